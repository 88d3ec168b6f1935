import { Link } from 'react-router';
import { Logo } from '@/components/logo';

export function SiteFooter() {
  return (
    <footer className="border-t border-border bg-bg-subtle">
      <div className="container-page flex flex-col gap-6 py-10 text-sm text-fg-muted sm:flex-row sm:items-center sm:justify-between">
        <Logo />
        <nav aria-label="Legal" className="flex gap-4">
          <Link to="/terms-of-service" className="hover:text-fg">Terms</Link>
          <Link to="/privacy-policy" className="hover:text-fg">Privacy</Link>
        </nav>
      </div>
    </footer>
  );
}
