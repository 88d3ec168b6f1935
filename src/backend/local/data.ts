import type { GenerationView } from '@common/generation';
import type { ExploreFilterOptions, ExploreItem, ExplorePage, LibraryPage } from '@common/library';
import type { TrainingView } from '@common/training';
import type { PackView, ShootSummary, ShootView } from '@common/photo-shoots';
import type { HistoryPage } from '@common/credits';
import type { ApiPort, Character, DataPort, Me } from '../port';
import { spaceParam } from '../space';
import { askedAtOnce } from './asked-at-once';

/**
 * The data operations over this product's server (server/routes/: me, library, generations, trainings, explore).
 * With `syncAtOnce`, the user record is asked for as the page opens (askedAtOnce).
 */
export function createLocalData(api: ApiPort, { syncAtOnce = false } = {}): DataPort {
  return {
    // The server knows the caller from the session cookie and takes the profile from its own accounts.
    syncUser: askedAtOnce(() => api.request<Me>('/api/me/sync', { method: 'POST' }), syncAtOnce),

    generationsPage: ({ page, favorites, weakLikeness }, signal) =>
      api.request<LibraryPage>(
        `/api/library/generations?page=${page}${favorites ? '&favorites=true' : ''}${weakLikeness ? '&likeness=weak' : ''}${spaceParam('&')}`,
        { signal },
      ),

    recentGenerations: async (limit, signal) =>
      (await api.request<{ items: GenerationView[] }>(`/api/generations?limit=${limit}${spaceParam('&')}`, { signal })).items,

    generation: (id, signal) => api.request<GenerationView>(`/api/library/generations/${encodeURIComponent(id)}`, { signal }),

    setFavorite: (id, isFavorite) =>
      api.request<GenerationView>(`/api/library/generations/${encodeURIComponent(id)}`, {
        method: 'PATCH',
        body: { is_favorite: isFavorite },
      }),

    deleteGeneration: (id) => api.request<void>(`/api/library/generations/${encodeURIComponent(id)}`, { method: 'DELETE' }),

    trainings: async (signal) => (await api.request<{ items: TrainingView[] }>(`/api/trainings${spaceParam('?')}`, { signal })).items,

    characters: async (signal) => (await api.request<{ items: Character[] }>(`/api/characters${spaceParam('?')}`, { signal })).items,

    explorePage(filters, page, signal) {
      const params = new URLSearchParams({ page: String(page) });
      for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
      return api.request<ExplorePage>(`/api/explore?${params}`, { signal });
    },

    exploreFilterOptions: (signal) => api.request<ExploreFilterOptions>('/api/explore/filters', { signal }),

    exploreFeatured: async (signal) => (await api.request<{ items: ExploreItem[] }>('/api/explore/featured', { signal })).items,

    balance: async (signal) => (await api.request<Me>('/api/me', { signal })).credits,

    photoPacks: async (signal) => (await api.request<{ items: PackView[] }>('/api/photo-packs', { signal })).items,

    shoots: async ({ running }, signal) =>
      (
        await api.request<{ items: ShootSummary[] }>(`/api/shoots${running ? '?running=true' : ''}${spaceParam(running ? '&' : '?')}`, {
          signal,
        })
      ).items,

    shoot: (id, signal) => api.request<ShootView>(`/api/shoots/${encodeURIComponent(id)}`, { signal }),

    creditHistory({ kind, cursor }, signal) {
      const params = new URLSearchParams();
      if (kind) params.set('kind', kind);
      if (cursor) params.set('cursor', cursor);
      const query = params.toString();
      return api.request<HistoryPage>(`/api/credits/history${query ? `?${query}` : ''}`, { signal });
    },
  };
}
