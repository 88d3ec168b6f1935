import type { RefObject } from 'react';
import { Link } from 'react-router';
import { Dialog } from 'radix-ui';
import { X } from 'lucide-react';
import { Button, buttonClasses } from '@/components/ui/button';
import { Logo } from '@/components/logo';
import { SITE_NAV } from '../lib/site-nav';
import { useAuthActions } from '../hooks/use-auth-actions';

/**
 * The slide-in menu for phones: a modal sheet, so focus stays inside, Escape closes it and focus returns to the
 * button that opened it. Loaded on demand (see mobile-menu-button.tsx).
 */
export default function MobileMenu({
  open,
  onOpenChange,
  returnFocusTo,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The opener: focus goes back to it on close (a tap does not always focus it, so Radix cannot know it). */
  returnFocusTo: RefObject<HTMLButtonElement | null>;
}) {
  const { loading, signedIn, signOut } = useAuthActions();
  const close = () => onOpenChange(false);
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-fg/40 transition-opacity duration-300 starting:opacity-0" />
        <Dialog.Content
          onCloseAutoFocus={(e) => {
            e.preventDefault();
            returnFocusTo.current?.focus();
          }}
          className="fixed inset-y-0 right-0 z-50 flex w-[min(20rem,86vw)] flex-col bg-bg shadow-pop transition-transform duration-300 ease-out starting:translate-x-full focus:outline-none"
        >
          <div className="flex h-16 items-center justify-between border-b border-border px-4">
            <Logo />
            <Dialog.Close aria-label="Close menu" className={buttonClasses('ghost', 'icon')}>
              <X className="size-5" aria-hidden />
            </Dialog.Close>
          </div>
          <Dialog.Title className="sr-only">Menu</Dialog.Title>
          <Dialog.Description className="sr-only">Site navigation and account</Dialog.Description>
          <nav aria-label="Mobile" className="flex flex-col gap-1 p-3">
            {SITE_NAV.map((item) => (
              <Link
                key={item.label}
                to={item.to}
                onClick={close}
                className="rounded-md px-3 py-3 text-base font-medium text-fg hover:bg-bg-muted"
              >
                {item.label}
              </Link>
            ))}
          </nav>
          {!loading && (
            <div className="mt-auto flex flex-col gap-2 border-t border-border p-4">
              {signedIn ? (
                <>
                  <Link to="/app/create-image" onClick={close} className={buttonClasses('primary', 'lg')}>
                    Dashboard
                  </Link>
                  <Button
                    variant="outline"
                    size="lg"
                    onClick={async () => {
                      close();
                      await signOut();
                    }}
                  >
                    Sign out
                  </Button>
                </>
              ) : (
                <>
                  <Link to="/sign-up" onClick={close} className={buttonClasses('primary', 'lg')}>
                    Sign up
                  </Link>
                  <Link to="/sign-in" onClick={close} className={buttonClasses('outline', 'lg')}>
                    Sign in
                  </Link>
                </>
              )}
            </div>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
