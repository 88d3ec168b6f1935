import { useEffect, useState } from 'react';
import { CheckSquare, Download, Heart, ImageIcon, ScanFace } from 'lucide-react';
import { MAX_SELECTION, SELECTION_TOO_LARGE } from '@common/library';
import { LIKENESS_TEXTS } from '@common/likeness';
import { Link } from 'react-router';
import { Button, buttonClasses } from '@/components/ui/button';
import { EmptyState, ErrorState } from '@/components/ui/states';
import { DownloadAllButton } from '@/components/download-all-button';
import { useIsPhone } from '@/lib/use-is-phone';
import { FAVORITES_ARCHIVE_PATH, useLibraryPage, useSelectionActions, type LibraryKind } from '../api';
import { fromGeneration } from '../lib/gallery-item';
import { useSelection } from '../hooks/use-selection';
import { useUndoDelete } from '../hooks/use-undo-delete';
import { useUrlPage } from '../hooks/use-url-page';
import { GalleryGrid, GallerySkeleton } from './gallery-grid';
import { Pagination } from './pagination';
import { SelectionBar } from './selection-bar';

/** Texts of the two galleries (product §2). */
const TEXTS: Record<LibraryKind, { title: string; empty: string; emptyHint: string; error: string }> = {
  generations: {
    title: 'My Generations',
    empty: 'No generations yet',
    emptyHint: 'Start creating some amazing images!',
    error: 'Failed to load generations',
  },
  favorites: {
    title: 'Favorites',
    empty: 'No favorites yet',
    emptyHint: 'Add some from your generations!',
    error: 'Failed to load favorites',
  },
};

/** My Generations and Favorites: title, total count, grid and pager; delete only on My Generations (product §6). */
export function LibraryGallery({ kind }: { kind: LibraryKind }) {
  const texts = TEXTS[kind];
  const phone = useIsPhone();
  const { page, setPage, params, setParams } = useUrlPage();
  // 'Weak likeness' (My Generations): the images that miss their character, to clean up; kept in the URL.
  const weakOnly = kind === 'generations' && params.get('likeness') === 'weak';
  const query = useLibraryPage(kind, page, weakOnly);
  const toggleWeak = () =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.delete('page');
      if (weakOnly) next.delete('likeness');
      else next.set('likeness', 'weak');
      return next;
    });
  const data = query.data;
  // Select mode: My Generations only, where images may be deleted.
  const selectable = kind === 'generations';
  const selection = useSelection();
  const selectionActions = useSelectionActions();
  const offerUndo = useUndoDelete();
  const [selectionNotice, setSelectionNotice] = useState<string | null>(null);

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
      <header className="flex flex-wrap items-end justify-between gap-x-4 gap-y-3">
        <div>
          <h1 className="text-2xl font-bold md:text-3xl">{texts.title}</h1>
          {data && (
            <p className="mt-1 text-sm text-fg-muted" data-testid="gallery-count">
              {data.total} {data.total === 1 ? 'image' : 'images'}
            </p>
          )}
        </div>
        {selectable && !selection.active && (
          <div className="flex items-center gap-2">
            <Button variant={weakOnly ? 'primary' : 'outline'} size="sm" aria-pressed={weakOnly} onClick={toggleWeak}>
              <ScanFace className="size-4" aria-hidden />
              {LIKENESS_TEXTS.filter}
            </Button>
            {!!data?.total && (
              <Button variant="outline" size="sm" onClick={selection.start}>
                <CheckSquare className="size-4" aria-hidden />
                Select
              </Button>
            )}
          </div>
        )}
        {kind === 'favorites' && data && data.total > 0 && (
          <DownloadAllButton
            path={FAVORITES_ARCHIVE_PATH}
            fallbackName="likeness-favorites.zip"
            icon={<Download className="size-4" aria-hidden />}
          />
        )}
      </header>

      {query.isPending ? (
        <GallerySkeleton />
      ) : query.isError ? (
        <ErrorState title={texts.error} onRetry={() => void query.refetch()} />
      ) : data!.total === 0 && weakOnly ? (
        <EmptyState
          icon={<ScanFace className="size-10" aria-hidden />}
          title="No weak likenesses"
          description="Every checked image looks like its character."
          action={
            <Button variant="outline" onClick={toggleWeak} className="mt-2">
              Show all generations
            </Button>
          }
        />
      ) : data!.total === 0 ? (
        <EmptyState
          icon={kind === 'favorites' ? <Heart className="size-10" aria-hidden /> : <ImageIcon className="size-10" aria-hidden />}
          title={texts.empty}
          description={texts.emptyHint}
          action={
            <Link
              to={kind === 'favorites' ? '/app/my-generations' : '/app/create-image'}
              className={buttonClasses('primary', 'md', 'mt-2')}
            >
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
            selection={selectable ? selection : undefined}
            onSelectionFull={() => setSelectionNotice(SELECTION_TOO_LARGE)}
          />
          <Pagination page={page} pageCount={data!.pageCount} total={data!.total} onChange={changePage} compact={phone} />
        </div>
      )}
      {selection.active && (
        <SelectionBar
          count={selection.ids.length}
          notice={selection.ids.length >= MAX_SELECTION ? selectionNotice : null}
          onDelete={async () => {
            const ids = selection.ids;
            const changed = await selectionActions.remove(ids);
            selection.clear();
            offerUndo(ids);
            return changed;
          }}
          onFavorite={() => selectionActions.favorite(selection.ids)}
          onDownload={() => selectionActions.download(selection.ids)}
          onDone={() => {
            selection.stop();
            setSelectionNotice(null);
          }}
        />
      )}
    </div>
  );
}
