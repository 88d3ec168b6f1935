import { cn } from '@/lib/cn';

export function Spinner({ className, label = 'Loading' }: { className?: string; label?: string }) {
  return (
    <span
      role="status"
      aria-label={label}
      className={cn('inline-block size-5 animate-spin rounded-full border-2 border-current border-r-transparent', className)}
    />
  );
}

/** A spinner centred in the available space, for whole-page loading. */
export function PageSpinner({ label }: { label?: string }) {
  return (
    <div className="flex min-h-[50dvh] items-center justify-center text-brand">
      <Spinner className="size-8" label={label} />
    </div>
  );
}
