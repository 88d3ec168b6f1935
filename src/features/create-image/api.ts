import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { GenerateImageResponse, GenerationRequestInput, GenerationView } from '@common/generation';
import type { EditRequestInput } from '@common/finishing';
import { LIMITS } from '@common/product';
import { useBackend } from '@/backend/backend-context';
import type { ApiPort } from '@/backend/port';
import { downloadFile } from '@/lib/download-file';
import { useChanges } from '@/features/session/use-realtime';

export const recentGenerationsKey = ['generations', 'recent'] as const;
export const charactersKey = ['characters'] as const;

/** A new image, or an edit of a saved one when the request names its source. */
export async function generateImage(api: ApiPort, request: GenerationRequestInput | EditRequestInput): Promise<GenerateImageResponse> {
  const path = 'source_id' in request ? '/api/image/edit' : '/api/image/generate-image';
  const res = await api.request<GenerateImageResponse>(path, { method: 'POST', body: request });
  // The saved image is on our server; the hosted SPA may be served from elsewhere.
  const images = (list: GenerateImageResponse['images']) => list.map((image) => ({ ...image, url: api.mediaUrl(image.url) }));
  const { generation } = res;
  return {
    ...res,
    images: images(res.images),
    generation: { ...generation, result: { ...generation.result, images: images(generation.result.images) } },
  };
}

/** 'Recent Generations' (product §2): the 6 newest ACTIVE generations, kept fresh by realtime events. */
export function useRecentGenerations() {
  const { data } = useBackend();
  const qc = useQueryClient();
  // Deletes and favourites made elsewhere (another tab, the gallery) show up here too.
  useChanges('generations', () => void qc.invalidateQueries({ queryKey: recentGenerationsKey }));
  return useQuery({
    queryKey: recentGenerationsKey,
    queryFn: ({ signal }) => data.recentGenerations(LIMITS.recentGenerations, signal),
  });
}

/** Puts a fresh generation at the top of the recent list (product §4: max 6) without waiting for a refetch. */
export function usePrependRecent() {
  const qc = useQueryClient();
  return useCallback(
    (generation: GenerationView) =>
      qc.setQueryData<GenerationView[]>(recentGenerationsKey, (list = []) =>
        [generation, ...list.filter((g) => g.id !== generation.id)].slice(0, LIMITS.recentGenerations),
      ),
    [qc],
  );
}

export function useCharacters() {
  const { data } = useBackend();
  const qc = useQueryClient();
  useChanges('trainings', () => void qc.invalidateQueries({ queryKey: charactersKey }));
  return useQuery({ queryKey: charactersKey, queryFn: ({ signal }) => data.characters(signal) });
}

/** Saves a generation's image through GET /api/download/<id>, which names the file likeness-<timestamp>.<ext>. */
export function downloadGeneration(api: ApiPort, id: string): Promise<void> {
  return downloadFile(api, `/api/download/${encodeURIComponent(id)}`, 'likeness-image');
}
