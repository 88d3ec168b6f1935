import { ChevronLeft, ChevronRight } from 'lucide-react';
import { cn } from '@/lib/cn';
import { pageWindow } from '../lib/page-window';

export interface PaginationProps {
  page: number;
  pageCount: number;
  total: number;
  onChange: (page: number) => void;
  /** Phones get prev/next with 'X of Y'; desktops the numbered pager with 'Page X of Y (N total)'. */
  compact: boolean;
}

const stepClasses =
  'inline-flex h-10 items-center gap-1 rounded-md border border-border bg-bg px-3 text-sm font-medium text-fg transition-colors hover:bg-bg-muted disabled:pointer-events-none disabled:opacity-40';

export function Pagination({ page, pageCount, total, onChange, compact }: PaginationProps) {
  if (pageCount <= 1 && compact) return null;
  const prev = (
    <button type="button" className={stepClasses} onClick={() => onChange(page - 1)} disabled={page <= 1} aria-label="Previous page">
      <ChevronLeft className="size-4" aria-hidden />
      {!compact && 'Previous'}
    </button>
  );
  const next = (
    <button type="button" className={stepClasses} onClick={() => onChange(page + 1)} disabled={page >= pageCount} aria-label="Next page">
      {!compact && 'Next'}
      <ChevronRight className="size-4" aria-hidden />
    </button>
  );

  if (compact) {
    return (
      <nav aria-label="Pagination" className="mt-6 flex items-center justify-between gap-3">
        {prev}
        <span className="text-sm font-medium tabular-nums text-fg-muted">
          {page} of {pageCount}
        </span>
        {next}
      </nav>
    );
  }

  return (
    <nav aria-label="Pagination" className="mt-8 flex flex-col items-center gap-3">
      {pageCount > 1 && (
        <div className="flex items-center gap-1.5">
          {prev}
          <ol className="flex items-center gap-1.5">
            {pageWindow(page, pageCount).map((slot, i) =>
              slot === 'gap' ? (
                <li key={`gap-${i}`} aria-hidden className="w-8 text-center text-fg-subtle">
                  …
                </li>
              ) : (
                <li key={slot}>
                  <button
                    type="button"
                    onClick={() => onChange(slot)}
                    aria-current={slot === page ? 'page' : undefined}
                    aria-label={`Page ${slot}`}
                    className={cn(
                      'h-10 min-w-10 rounded-md px-3 text-sm font-medium tabular-nums transition-colors',
                      slot === page ? 'bg-brand text-brand-fg shadow-sm' : 'border border-border bg-bg text-fg hover:bg-bg-muted',
                    )}
                  >
                    {slot}
                  </button>
                </li>
              ),
            )}
          </ol>
          {next}
        </div>
      )}
      <p className="text-sm tabular-nums text-fg-muted">
        Page {page} of {pageCount} ({total} total)
      </p>
    </nav>
  );
}
