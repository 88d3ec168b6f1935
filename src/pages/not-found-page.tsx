import { Link, useLocation } from 'react-router';
import { Compass } from 'lucide-react';
import { buttonClasses } from '@/components/ui/button';
import { usePageTitle } from '@/lib/use-page-title';

export default function NotFoundPage() {
  usePageTitle('Page not found');
  // A wrong link inside the app leads back to the app's first page (where the logo goes), not out to the landing page.
  const inApp = useLocation().pathname.startsWith('/app/');
  return (
    <div className="container-page flex min-h-[60dvh] flex-col items-center justify-center gap-4 py-16 text-center">
      <Compass className="size-12 text-brand" aria-hidden />
      <h1 className="text-3xl font-bold">Page not found</h1>
      <p className="max-w-md text-fg-muted">We couldn't find the page you were looking for. It may have moved, or the link may be wrong.</p>
      <Link to={inApp ? '/app/create-image' : '/'} className={buttonClasses('primary', 'lg')}>
        {inApp ? 'Back to Create Image' : 'Back to home'}
      </Link>
    </div>
  );
}
