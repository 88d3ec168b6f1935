import type { ReactNode } from 'react';

/** The small uppercase title of each profile card. */
export function CardTitle({ icon, children }: { icon: ReactNode; children: ReactNode }) {
  return (
    <h2 className="flex items-center gap-2 text-sm font-semibold uppercase tracking-wide text-fg-muted">
      {icon}
      {children}
    </h2>
  );
}
