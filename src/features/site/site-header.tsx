import { Link, useNavigate } from 'react-router';
import { buttonClasses, Button } from '@/components/ui/button';
import { Logo } from '@/components/logo';
import { useSessionUser, useSignOut } from '@/features/session/api';

const NAV = [
  { label: 'Home', hash: '' },
  { label: 'How It Works', hash: 'features' },
  { label: 'Pricing', hash: 'pricing' },
  { label: 'FAQ', hash: 'faq' },
];

/** Public header: section links, and Dashboard / Sign out or Sign in / Sign up. */
export function SiteHeader() {
  const session = useSessionUser();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const signedIn = !!session.data;
  return (
    <header className="sticky top-0 z-40 border-b border-border/70 bg-bg/90 backdrop-blur">
      <div className="container-page flex h-16 items-center justify-between gap-4">
        <Link to="/" aria-label="Likeness home">
          <Logo />
        </Link>
        <nav aria-label="Site" className="hidden items-center gap-1 md:flex">
          {NAV.map((item) => (
            <Link key={item.label} to={item.hash ? `/#${item.hash}` : '/'} className="rounded-md px-3 py-2 text-sm font-medium text-fg-muted hover:text-fg">
              {item.label}
            </Link>
          ))}
        </nav>
        <div className="flex items-center gap-2">
          {signedIn ? (
            <>
              <Link to="/app/create-image" className={buttonClasses('primary', 'sm')}>
                Dashboard
              </Link>
              <Button
                variant="ghost"
                size="sm"
                onClick={async () => {
                  await signOut();
                  navigate('/');
                }}
              >
                Sign out
              </Button>
            </>
          ) : (
            <>
              <Link to="/sign-in" className={buttonClasses('ghost', 'sm')}>
                Sign in
              </Link>
              <Link to="/sign-up" className={buttonClasses('primary', 'sm')}>
                Sign up
              </Link>
            </>
          )}
        </div>
      </div>
    </header>
  );
}
