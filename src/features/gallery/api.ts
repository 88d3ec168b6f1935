import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { UpscaleFactor } from '@common/finishing';
import type { GenerateImageResponse, GenerationView } from '@common/generation';
import { pageCountOf, type ExploreFilters, type LibraryPage, type SelectionResult } from '@common/library';
import { useBackend } from '@/backend/backend-context';
import type { ApiPort } from '@/backend/port';
import { useChanges } from '@/session/use-realtime';
import { downloadFile } from '@/lib/download-file';
import type { GalleryItem } from './lib/gallery-item';

export type LibraryKind = 'generations' | 'favorites';

export const libraryKey = ['library'] as const;
const libraryPageKey = (kind: LibraryKind, page: number, weakLikeness: boolean) =>
  [...libraryKey, kind, page, weakLikeness ? 'weak' : 'all'] as const;
export const exploreKey = ['explore'] as const;

/** 'Download all' on Favorites: the ZIP our server streams of the user's favourites. */
export const FAVORITES_ARCHIVE_PATH = '/api/favorites/archive';

/** My Generations or Favorites, one page (product §4: 40 a page, newest first, exact total). */
export function useLibraryPage(kind: LibraryKind, page: number, weakLikeness = false) {
  const { data } = useBackend();
  const qc = useQueryClient();
  // Changes made elsewhere (another tab, the create page) refresh the gallery.
  useChanges('generations', () => void qc.invalidateQueries({ queryKey: libraryKey }));
  return useQuery({
    queryKey: libraryPageKey(kind, page, weakLikeness),
    queryFn: ({ signal }) => data.generationsPage({ page, favorites: kind === 'favorites', weakLikeness }, signal),
    placeholderData: keepPreviousData,
  });
}

/** The set filters only, in a fixed order, so equal choices share one cache entry. */
const filterKey = (filters: ExploreFilters) =>
  Object.entries(filters)
    .filter(([, value]) => value)
    .sort(([a], [b]) => a.localeCompare(b));

export function useExplorePage(filters: ExploreFilters, page: number) {
  const { data } = useBackend();
  return useQuery({
    queryKey: [...exploreKey, 'page', filterKey(filters), page],
    queryFn: ({ signal }) => data.explorePage(filters, page, signal),
    placeholderData: keepPreviousData,
  });
}

export function useExploreFilterOptions() {
  const { data } = useBackend();
  return useQuery({
    queryKey: [...exploreKey, 'filters'],
    queryFn: ({ signal }) => data.exploreFilterOptions(signal),
    staleTime: 5 * 60_000,
  });
}

const generationKey = (id: string) => ['generation', id] as const;

/** The names of the user's shoots by id ('LinkedIn Profile'), for the photos made in them; read only when needed. */
export function useShootNames(enabled: boolean): Map<string, string> {
  const { data } = useBackend();
  const qc = useQueryClient();
  useChanges('shoots', () => void qc.invalidateQueries({ queryKey: ['gallery-shoot-names'] }));
  const query = useQuery({
    queryKey: ['gallery-shoot-names'],
    queryFn: async ({ signal }) => new Map((await data.shoots({}, signal)).map((s) => [s.id, s.pack_name] as const)),
    enabled,
    staleTime: 5 * 60_000,
  });
  return query.data ?? NO_NAMES;
}
const NO_NAMES = new Map<string, string>();

/**
 * One generation kept current (a result shown outside the galleries: its likeness arrives once checked, its
 * heart from any tab): starts from `initial` and is read again when the user's generations change.
 */
export function useGeneration(initial: GenerationView) {
  const { data } = useBackend();
  const qc = useQueryClient();
  useChanges('generations', () => void qc.invalidateQueries({ queryKey: generationKey(initial.id) }));
  return useQuery({
    queryKey: generationKey(initial.id),
    queryFn: ({ signal }) => data.generation(initial.id, signal),
    initialData: initial,
    staleTime: Infinity,
  }).data;
}

/** Applies `change` to every cached library page of one kind. */
function updatePages(qc: QueryClient, kind: LibraryKind, change: (page: LibraryPage) => LibraryPage) {
  qc.setQueriesData<LibraryPage>({ queryKey: [...libraryKey, kind] }, (page) => (page ? change(page) : page));
}

const withoutItem = (page: LibraryPage, id: string): LibraryPage => {
  if (!page.items.some((g) => g.id === id)) return page;
  const total = page.total - 1;
  return { ...page, items: page.items.filter((g) => g.id !== id), total, pageCount: pageCountOf(total) };
};

/**
 * Favourite on/off (product §4): My Generations flips the card in place; on Favorites a removed favourite
 * drops out and the count goes down. Other cached pages are refetched afterwards.
 */
export function useSetFavorite() {
  const { data } = useBackend();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, isFavorite }: { id: string; isFavorite: boolean }): Promise<GenerationView> => data.setFavorite(id, isFavorite),
    onSuccess: (updated, { id, isFavorite }) => {
      qc.setQueryData(generationKey(id), updated);
      updatePages(qc, 'generations', (page) => ({ ...page, items: page.items.map((g) => (g.id === id ? updated : g)) }));
      if (!isFavorite) updatePages(qc, 'favorites', (page) => withoutItem(page, id));
      void qc.invalidateQueries({ queryKey: [...libraryKey, 'favorites'], refetchType: isFavorite ? 'active' : 'none' });
    },
    onError: (err) => console.error('Favorite update failed', err),
  });
}

/** Soft delete (product §4): the card leaves every gallery and the counts go down. */
export function useDeleteGeneration() {
  const { data } = useBackend();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => data.deleteGeneration(id),
    onSuccess: (_void, id) => {
      updatePages(qc, 'generations', (page) => withoutItem(page, id));
      updatePages(qc, 'favorites', (page) => withoutItem(page, id));
      void qc.invalidateQueries({ queryKey: libraryKey });
    },
    onError: (err) => console.error('Delete failed', err),
  });
}

/**
 * The toast's Undo after a delete (one image, or a selection's): through our server in both builds. In hosted
 * mode too: the browser's Supabase role may delete but never un-delete (row-level security), and only the server
 * knows whether the Undo is still in time. Every gallery page and the recent list are refetched, so the images
 * come back where they were.
 */
export function useRestoreGenerations() {
  const { api } = useBackend();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (ids: string[]): Promise<void> => {
      if (ids.length === 1)
        await api.request<GenerationView>(`/api/library/generations/${encodeURIComponent(ids[0])}/restore`, { method: 'POST' });
      else await api.request<SelectionResult>('/api/library/selection', { method: 'POST', body: { action: 'restore', ids } });
    },
    onSuccess: () => Promise.all([qc.invalidateQueries({ queryKey: libraryKey }), qc.invalidateQueries({ queryKey: ['generations'] })]),
  });
}

/**
 * Upscale 2× or 4×: a paid call to our server in both modes; the new generation joins every
 * gallery (its realtime change refreshes them too, this is for the tab that asked).
 */
export function useUpscale() {
  const { api } = useBackend();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, factor }: { id: string; factor: UpscaleFactor }) =>
      api.request<GenerateImageResponse>('/api/image/upscale', { method: 'POST', body: { generation_id: id, factor } }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: libraryKey });
      void qc.invalidateQueries({ queryKey: ['generations'] });
    },
  });
}

/** Saves an image through GET /api/download/<id>, which names it likeness-<timestamp>.<ext> (product §7). */
export function downloadImage(api: ApiPort, item: Pick<GalleryItem, 'id' | 'source'>): Promise<void> {
  const query = item.source === 'explore' ? '?source=explore' : '';
  return downloadFile(api, `/api/download/${encodeURIComponent(item.id)}${query}`, `likeness-${Date.now()}.jpeg`);
}

/**
 * Select mode on My Generations: 'Delete' and 'Add to favorites' for the selected images through
 * our server in both builds (all or nothing), then every cached gallery page is refetched.
 */
export function useSelectionActions() {
  const { api } = useBackend();
  const qc = useQueryClient();
  async function apply(action: 'delete' | 'favorite', ids: string[]): Promise<number> {
    const { changed } = await api.request<SelectionResult>('/api/library/selection', { method: 'POST', body: { action, ids } });
    if (action === 'delete') {
      for (const id of ids) {
        updatePages(qc, 'generations', (page) => withoutItem(page, id));
        updatePages(qc, 'favorites', (page) => withoutItem(page, id));
      }
    }
    await qc.invalidateQueries({ queryKey: libraryKey });
    return changed;
  }
  return {
    remove: (ids: string[]) => apply('delete', ids),
    favorite: (ids: string[]) => apply('favorite', ids),
    /** The selected images' original files in one ZIP. */
    download: (ids: string[]) =>
      downloadFile(api, `/api/library/selection.zip?ids=${ids.map(encodeURIComponent).join(',')}`, `likeness-${ids.length}-images.zip`),
  };
}
