import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { GenerationView } from '@common/generation';
import { pageCountOf, type ExploreFilterOptions, type ExploreFilters, type ExplorePage, type LibraryPage } from '@common/library';
import { useBackend } from '@/backend/backend-context';
import { useRealtimeEvent } from '@/features/session/use-realtime';
import { downloadFile } from '@/lib/download-file';
import type { GalleryItem } from './gallery-item';

export type LibraryKind = 'generations' | 'favorites';

export const libraryKey = ['library'] as const;
const libraryPageKey = (kind: LibraryKind, page: number) => [...libraryKey, kind, page] as const;
export const exploreKey = ['explore'] as const;

/** My Generations or Favorites, one page (spec §4: 40 a page, newest first, exact total). */
export function useLibraryPage(kind: LibraryKind, page: number) {
  const { api } = useBackend();
  const qc = useQueryClient();
  // Changes made elsewhere (another tab, the create page) refresh the gallery.
  useRealtimeEvent('generation', () => void qc.invalidateQueries({ queryKey: libraryKey }));
  return useQuery({
    queryKey: libraryPageKey(kind, page),
    queryFn: ({ signal }) =>
      api.request<LibraryPage>(`/api/library/generations?page=${page}${kind === 'favorites' ? '&favorites=true' : ''}`, { signal }),
    placeholderData: keepPreviousData,
  });
}

function exploreSearch(filters: ExploreFilters, page: number): string {
  const params = new URLSearchParams({ page: String(page) });
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  return params.toString();
}

export function useExplorePage(filters: ExploreFilters, page: number) {
  const { api } = useBackend();
  const search = exploreSearch(filters, page);
  return useQuery({
    queryKey: [...exploreKey, 'page', search],
    queryFn: ({ signal }) => api.request<ExplorePage>(`/api/explore?${search}`, { signal }),
    placeholderData: keepPreviousData,
  });
}

export function useExploreFilterOptions() {
  const { api } = useBackend();
  return useQuery({
    queryKey: [...exploreKey, 'filters'],
    queryFn: ({ signal }) => api.request<ExploreFilterOptions>('/api/explore/filters', { signal }),
    staleTime: 5 * 60_000,
  });
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
 * Favourite on/off (spec §4): My Generations flips the card in place; on Favorites a removed favourite
 * drops out and the count goes down. Other cached pages are refetched afterwards.
 */
export function useSetFavorite() {
  const { api } = useBackend();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, isFavorite }: { id: string; isFavorite: boolean }) =>
      api.request<GenerationView>(`/api/library/generations/${encodeURIComponent(id)}`, { method: 'PATCH', body: { is_favorite: isFavorite } }),
    onSuccess: (updated, { id, isFavorite }) => {
      updatePages(qc, 'generations', (page) => ({ ...page, items: page.items.map((g) => (g.id === id ? updated : g)) }));
      if (!isFavorite) updatePages(qc, 'favorites', (page) => withoutItem(page, id));
      void qc.invalidateQueries({ queryKey: [...libraryKey, 'favorites'], refetchType: isFavorite ? 'active' : 'none' });
    },
    onError: (err) => console.error('Favorite update failed', err),
  });
}

/** Soft delete (spec §4): the card leaves every gallery and the counts go down. */
export function useDeleteGeneration() {
  const { api } = useBackend();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.request<void>(`/api/library/generations/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: (_void, id) => {
      updatePages(qc, 'generations', (page) => withoutItem(page, id));
      updatePages(qc, 'favorites', (page) => withoutItem(page, id));
      void qc.invalidateQueries({ queryKey: libraryKey });
    },
    onError: (err) => console.error('Delete failed', err),
  });
}

/** Saves an image through GET /api/download/<id>, which names it likeness-<timestamp>.<ext> (spec §7). */
export function downloadImage(item: Pick<GalleryItem, 'id' | 'source'>): Promise<void> {
  const query = item.source === 'explore' ? '?source=explore' : '';
  return downloadFile(`/api/download/${encodeURIComponent(item.id)}${query}`, `likeness-${Date.now()}.jpeg`);
}
