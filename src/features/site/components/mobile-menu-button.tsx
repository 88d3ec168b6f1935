import { lazy, Suspense, useRef, useState } from 'react';
import { Menu } from 'lucide-react';
import { buttonClasses } from '@/components/ui/button';

// The sheet (and the dialog library behind it) is fetched when a visitor reaches for the button, so it stays
// out of the landing page's initial JavaScript.
const loadMenu = () => import('./mobile-menu');
const MobileMenu = lazy(loadMenu);

/** The header's 'Open menu' button on phones. */
export function MobileMenuButton() {
  const [open, setOpen] = useState(false);
  const [used, setUsed] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  return (
    <>
      <button
        ref={button}
        type="button"
        aria-label="Open menu"
        aria-haspopup="dialog"
        aria-expanded={open}
        className={buttonClasses('ghost', 'icon', 'md:hidden')}
        onPointerEnter={loadMenu}
        onFocus={loadMenu}
        onClick={() => {
          setUsed(true);
          setOpen(true);
        }}
      >
        <Menu className="size-5" aria-hidden />
      </button>
      {used && (
        <Suspense fallback={null}>
          <MobileMenu open={open} onOpenChange={setOpen} returnFocusTo={button} />
        </Suspense>
      )}
    </>
  );
}
