import { useEffect } from 'react';
import { Download, Heart, ImageIcon } from 'lucide-react';
import { Link } from 'react-router';
import { buttonClasses } from '@/components/ui/button';
import { EmptyState, ErrorState } from '@/components/ui/states';
import { DownloadAllButton } from '@/features/photo-shoots/components/download-all-button';
import { FAVORITES_ARCHIVE_PATH } from '@/features/photo-shoots/api';
import { useIsPhone } from '@/lib/use-is-phone';
import { useLibraryPage, type LibraryKind } from '../api';
import { fromGeneration } from '../gallery-item';
import { useUrlPage } from '../use-url-page';
import { GalleryGrid, GallerySkeleton } from './gallery-grid';
import { Pagination } from './pagination';

/** Texts of the two galleries (spec §2). */
const TEXTS: Record<LibraryKind, { title: string; empty: string; emptyHint: string; error: string }> = {
  generations: { title: 'My Generations', empty: 'No generations yet', emptyHint: 'Start creating some amazing images!', error: 'Failed to load generations' },
  favorites: { title: 'Favorites', empty: 'No favorites yet', emptyHint: 'Add some from your generations!', error: 'Failed to load favorites' },
};

/** My Generations and Favorites: title, total count, grid and pager; delete only on My Generations (spec §6). */
export function LibraryGallery({ kind }: { kind: LibraryKind }) {
  const texts = TEXTS[kind];
  const phone = useIsPhone();
  const { page, setPage } = useUrlPage();
  const query = useLibraryPage(kind, page);
  const data = query.data;

  // Past the last page (the last card of it was removed, or an old link): go to the last page there is.
  useEffect(() => {
    if (data && data.total > 0 && page > data.pageCount) setPage(data.pageCount, { replace: true });
  }, [data, page, setPage]);

  const changePage = (next: number) => {
    setPage(next);
    window.scrollTo({ top: 0 });
  };

  return (
    <div className="flex flex-col gap-6">
      <header className="flex items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold md:text-3xl">{texts.title}</h1>
          {data && (
            <p className="mt-1 text-sm text-fg-muted" data-testid="gallery-count">
              {data.total} {data.total === 1 ? 'image' : 'images'}
            </p>
          )}
        </div>
        {kind === 'favorites' && data && data.total > 0 && (
          <DownloadAllButton path={FAVORITES_ARCHIVE_PATH} fallbackName="likeness-favorites.zip" icon={<Download className="size-4" aria-hidden />} />
        )}
      </header>

      {query.isPending ? (
        <GallerySkeleton />
      ) : query.isError ? (
        <ErrorState title={texts.error} onRetry={() => void query.refetch()} />
      ) : data!.total === 0 ? (
        <EmptyState
          icon={kind === 'favorites' ? <Heart className="size-10" aria-hidden /> : <ImageIcon className="size-10" aria-hidden />}
          title={texts.empty}
          description={texts.emptyHint}
          action={
            <Link to={kind === 'favorites' ? '/app/my-generations' : '/app/create-image'} className={buttonClasses('primary', 'md', 'mt-2')}>
              {kind === 'favorites' ? 'Go to My Generations' : 'Create Image'}
            </Link>
          }
        />
      ) : (
        <div className={query.isPlaceholderData ? 'opacity-60 transition-opacity' : undefined}>
          <GalleryGrid
            items={data!.items.map(fromGeneration)}
            permissions={{ favorite: true, delete: kind === 'generations' }}
            label={texts.title}
          />
          <Pagination page={page} pageCount={data!.pageCount} total={data!.total} onChange={changePage} compact={phone} />
        </div>
      )}
    </div>
  );
}
