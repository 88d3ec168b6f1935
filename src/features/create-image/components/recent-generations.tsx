import { Link } from 'react-router';
import { ArrowRight, Images } from 'lucide-react';
import type { GenerationView } from '@common/generation';
import { thumbUrl } from '@common/media';
import { LIMITS } from '@common/product';
import { Button, buttonClasses } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { cn } from '@/lib/cn';

export interface RecentGenerationsProps {
  items: GenerationView[] | undefined;
  isError: boolean;
  onRetry: () => void;
  /** Shows a recent image in the result area. */
  onOpen: (generation: GenerationView) => void;
  activeId: string | null;
}

/** The right column: the 6 newest generations (product §2). */
export function RecentGenerations({ items, isError, onRetry, onOpen, activeId }: RecentGenerationsProps) {
  return (
    <Card className="flex flex-col gap-4 p-5">
      <h2 className="text-base font-semibold">Recent Generations</h2>
      {isError ? (
        <div role="alert" className="flex flex-col items-start gap-2 text-sm text-danger">
          Failed to load generations
          <Button variant="outline" size="sm" onClick={onRetry}>
            Try Again
          </Button>
        </div>
      ) : !items ? (
        <div className="grid grid-cols-3 gap-2 lg:grid-cols-2" aria-label="Loading recent generations">
          {Array.from({ length: LIMITS.recentGenerations }, (_, i) => (
            <div key={i} className="aspect-square animate-pulse rounded-md bg-bg-muted" />
          ))}
        </div>
      ) : items.length === 0 ? (
        <div className="flex flex-col items-center gap-2 rounded-lg border border-dashed border-border-strong px-4 py-8 text-center">
          <Images className="size-6 text-fg-subtle" aria-hidden />
          <p className="text-sm text-fg-muted">No generations yet</p>
        </div>
      ) : (
        <ul className="grid grid-cols-3 gap-2 lg:grid-cols-2" aria-label="Recent generations">
          {items.map((g) => {
            const image = g.result.images[0];
            return (
              <li key={g.id}>
                <button
                  type="button"
                  onClick={() => onOpen(g)}
                  aria-label={`Show: ${g.params.prompt}`}
                  aria-current={g.id === activeId || undefined}
                  className={cn(
                    'block aspect-square w-full overflow-hidden rounded-md bg-bg-muted ring-offset-2 transition hover:opacity-90',
                    g.id === activeId && 'ring-2 ring-brand',
                  )}
                >
                  {image && <img src={thumbUrl(image.url, 384)} alt="" loading="lazy" className="size-full object-cover" />}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <Link to="/app/my-generations" className={buttonClasses('ghost', 'md', 'justify-between text-brand hover:text-brand')}>
        View All Generations
        <ArrowRight className="size-4" aria-hidden />
      </Link>
    </Card>
  );
}
