import { useState } from 'react';
import { Loader2, SlidersHorizontal } from 'lucide-react';
import { Tooltip } from 'radix-ui';
import { EXPLORE_FILTER_NAMES, type ExploreFilterName, type ExploreFilters } from '@common/library';
import { EmptyState, ErrorState } from '@/components/ui/states';
import { cn } from '@/lib/cn';
import { useIsPhone } from '@/lib/use-is-phone';
import { useExploreFilterOptions, useExplorePage } from '../api';
import { fromExplore } from '../lib/gallery-item';
import { useUrlPage } from '../hooks/use-url-page';
import { ExploreFiltersPanel } from './explore-filters';
import { GalleryGrid, GallerySkeleton } from './gallery-grid';
import { Pagination } from './pagination';

/** Explore is read-only: no favourite, no delete (product §6). */
const READ_ONLY = { favorite: false, delete: false };

/** The community gallery (product §2 Explore); the page and the filters live in the URL query. */
export function ExploreGallery() {
  const phone = useIsPhone();
  const { page, setPage, params, setParams } = useUrlPage();
  const filters: ExploreFilters = Object.fromEntries(
    EXPLORE_FILTER_NAMES.map((name) => [name, params.get(name) || undefined]),
  ) as ExploreFilters;
  const activeCount = EXPLORE_FILTER_NAMES.filter((name) => filters[name]).length;
  const [filtersOpen, setFiltersOpen] = useState(activeCount > 0);
  const query = useExplorePage(filters, page);
  const options = useExploreFilterOptions();
  const data = query.data;

  // Changing a filter starts again from page 1 (product §4).
  const setFilter = (name: ExploreFilterName, value: string | undefined) =>
    setParams((current) => {
      const updated = new URLSearchParams(current);
      if (value) updated.set(name, value);
      else updated.delete(name);
      updated.delete('page');
      return updated;
    });
  const clearAll = () =>
    setParams((current) => {
      const updated = new URLSearchParams(current);
      for (const name of EXPLORE_FILTER_NAMES) updated.delete(name);
      updated.delete('page');
      return updated;
    });
  const changePage = (next: number) => {
    setPage(next);
    window.scrollTo({ top: 0 });
  };

  const count = data && (
    <p className="text-sm text-fg-muted" data-testid="gallery-count">
      {data.total} {data.total === 1 ? 'image' : 'images'}
    </p>
  );

  return (
    <Tooltip.Provider>
      <div className="flex flex-col gap-6">
        {phone ? (
          <header className="flex items-center justify-between gap-3">
            <div>
              <h1 className="text-2xl font-bold">Explore</h1>
              {count}
            </div>
            <button
              type="button"
              onClick={() => setFiltersOpen((open) => !open)}
              aria-expanded={filtersOpen}
              aria-controls="explore-filters"
              className={cn(
                'inline-flex h-10 items-center gap-2 rounded-md border px-3 text-sm font-medium transition-colors',
                filtersOpen ? 'border-brand bg-brand-soft text-brand' : 'border-border-strong bg-bg text-fg',
              )}
            >
              <SlidersHorizontal className="size-4" aria-hidden />
              Filters
              {activeCount > 0 && <span className="rounded-full bg-brand px-1.5 text-xs text-brand-fg">{activeCount}</span>}
            </button>
          </header>
        ) : (
          <header className="flex items-end justify-between gap-4">
            <div>
              <h1 className="text-3xl font-bold">Explore Gallery</h1>
              <p className="mt-1 text-fg-muted">Discover amazing AI-generated images from our community</p>
            </div>
            {count}
          </header>
        )}

        {(!phone || filtersOpen) && (
          <div id="explore-filters">
            <ExploreFiltersPanel options={options.data} value={filters} onChange={setFilter} onClear={clearAll} />
          </div>
        )}

        {query.isPending ? (
          <GallerySkeleton />
        ) : query.isError ? (
          <ErrorState title="Failed to load explore gallery" onRetry={() => void query.refetch()} />
        ) : data!.items.length === 0 ? (
          <EmptyState title="No images found" description="Try adjusting your filters" />
        ) : (
          <div className={cn('relative', query.isPlaceholderData && 'opacity-60 transition-opacity')} aria-busy={query.isPlaceholderData}>
            {/* A new filter or page is loading: the previous images stay, dimmed, under a clear note. */}
            {query.isPlaceholderData && (
              <p
                role="status"
                className="absolute top-3 left-1/2 z-10 flex -translate-x-1/2 items-center gap-2 rounded-full bg-bg px-3 py-1.5 text-sm font-medium text-fg shadow-pop"
              >
                <Loader2 className="size-4 animate-spin text-brand" aria-hidden />
                Loading images…
              </p>
            )}
            <GalleryGrid items={data!.items.map(fromExplore)} permissions={READ_ONLY} label="Explore Gallery" />
            <Pagination page={page} pageCount={data!.pageCount} total={data!.total} onChange={changePage} compact={phone} />
          </div>
        )}
      </div>
    </Tooltip.Provider>
  );
}
