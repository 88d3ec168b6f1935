import { Link, useLocation } from 'react-router';
import { Button, buttonClasses } from '@/components/ui/button';
import { Logo } from '@/components/logo';
import { cn } from '@/lib/cn';
import { MobileMenuButton } from './mobile-menu-button';
import { SITE_NAV } from '../lib/site-nav';
import { useAuthActions } from '../hooks/use-auth-actions';

/** Public header: section links, and the account actions for the visitor's state (product §2). */
export function SiteHeader() {
  const { loading, signedIn, signOut } = useAuthActions();
  const { pathname, hash } = useLocation();
  const current = (to: string) => (pathname === '/' && `/${hash}` === to) || (to === '/' && pathname === '/' && !hash);
  return (
    <header className="sticky top-0 z-40 border-b border-border/70 bg-bg/85 backdrop-blur-md">
      <div className="container-page flex h-16 items-center justify-between gap-4">
        <Link to="/" aria-label="Likeness home" className="rounded-md">
          <Logo />
        </Link>
        <nav aria-label="Main" className="hidden items-center gap-1 md:flex">
          {SITE_NAV.map((item) => (
            <Link
              key={item.label}
              to={item.to}
              aria-current={current(item.to) ? 'page' : undefined}
              className={cn(
                'rounded-md px-3 py-2 text-sm font-medium text-fg-muted transition-colors hover:text-fg',
                'aria-[current=page]:text-fg',
              )}
            >
              {item.label}
            </Link>
          ))}
        </nav>
        {/* A fixed-width slot while the session loads, so nothing moves when the buttons appear. */}
        <div className={cn('hidden min-w-44 items-center justify-end gap-2 md:flex', loading && 'invisible')}>
          {signedIn ? (
            <>
              <Button variant="ghost" size="sm" onClick={signOut}>
                Sign out
              </Button>
              <Link to="/app/create-image" className={buttonClasses('primary', 'sm')}>
                Dashboard
              </Link>
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
        <MobileMenuButton />
      </div>
    </header>
  );
}
