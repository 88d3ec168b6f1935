import type { ReactNode } from 'react';
import { AlertCircle } from 'lucide-react';
import { Button } from './button';

/** Nothing to show yet: a title, a line of help and an optional action. */
export function EmptyState({
  icon,
  title,
  description,
  action,
}: {
  icon?: ReactNode;
  title: string;
  description?: string;
  action?: ReactNode;
}) {
  return (
    <div className="flex flex-col items-center justify-center gap-3 rounded-lg border border-dashed border-border-strong px-6 py-14 text-center">
      {icon && <div className="text-fg-subtle">{icon}</div>}
      <div>
        <p className="text-base font-semibold text-fg">{title}</p>
        {description && <p className="mt-1 text-sm text-fg-muted">{description}</p>}
      </div>
      {action}
    </div>
  );
}

/** A failed load, with 'Try Again'. */
export function ErrorState({ title, onRetry }: { title: string; onRetry: () => void }) {
  return (
    <div
      role="alert"
      className="flex flex-col items-center justify-center gap-3 rounded-lg border border-danger-border bg-danger-soft px-6 py-12 text-center"
    >
      <AlertCircle className="size-8 text-danger" aria-hidden />
      <p className="text-base font-semibold text-danger">{title}</p>
      <Button variant="outline" onClick={onRetry}>
        Try Again
      </Button>
    </div>
  );
}
