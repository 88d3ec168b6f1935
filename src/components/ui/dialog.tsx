import { useRef, type ReactNode } from 'react';
import { Dialog as RadixDialog } from 'radix-ui';
import { X } from 'lucide-react';
import { cn } from '@/lib/cn';

export interface DialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
  className?: string;
  /** Visually hide the title (it stays for screen readers). */
  hideTitle?: boolean;
}

/** Modal dialog: focus trapped, Escape and the close button dismiss it, focus returns to the opener. */
export function Dialog({ open, onOpenChange, title, description, children, className, hideTitle }: DialogProps) {
  // These dialogs are opened from state, not from a Radix Trigger, so Radix has no trigger to refocus on close.
  const opener = useRef<HTMLElement | null>(null);
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="fixed inset-0 z-50 bg-fg/50 backdrop-blur-[2px] data-[state=open]:animate-in" />
        <RadixDialog.Content
          className={cn(
            'fixed left-1/2 top-1/2 z-50 max-h-[90dvh] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 overflow-y-auto',
            'rounded-xl border border-border bg-bg p-6 shadow-pop focus:outline-none',
            className,
          )}
          onOpenAutoFocus={() => {
            opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
          }}
          onCloseAutoFocus={(event) => {
            if (opener.current?.isConnected) {
              event.preventDefault();
              opener.current.focus();
            }
          }}
        >
          <RadixDialog.Title className={cn('text-lg font-semibold', hideTitle && 'sr-only')}>{title}</RadixDialog.Title>
          {description ? (
            <RadixDialog.Description className="mt-1 text-sm text-fg-muted">{description}</RadixDialog.Description>
          ) : (
            <RadixDialog.Description className="sr-only">{title}</RadixDialog.Description>
          )}
          <div className={cn(!hideTitle && 'mt-4')}>{children}</div>
          <RadixDialog.Close
            aria-label="Close"
            className="absolute right-3 top-3 rounded-md p-1.5 text-fg-muted hover:bg-bg-muted hover:text-fg"
          >
            <X className="size-5" />
          </RadixDialog.Close>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
