import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { GenerateImageResponse, GenerationCharacter, GenerationRequestInput, GenerationView } from '@common/generation';
import { LIMITS } from '@common/product';
import { useBackend } from '@/backend/backend-context';
import type { ApiPort } from '@/backend/port';
import { downloadFile } from '@/lib/download-file';
import { useRealtimeEvent } from '@/features/session/use-realtime';

/** A character the user can generate with: one of their COMPLETED trainings with a LoRA file. */
export interface Character extends GenerationCharacter {
  lora_file_url: string;
}

export const recentGenerationsKey = ['generations', 'recent'] as const;
export const charactersKey = ['characters'] as const;

export function generateImage(api: ApiPort, request: GenerationRequestInput): Promise<GenerateImageResponse> {
  return api.request<GenerateImageResponse>('/api/image/generate-image', { method: 'POST', body: request });
}

/** 'Recent Generations' (spec §2): the 6 newest ACTIVE generations, kept fresh by realtime events. */
export function useRecentGenerations() {
  const { api } = useBackend();
  const qc = useQueryClient();
  // Deletes and favourites made elsewhere (another tab, the gallery) show up here too.
  useRealtimeEvent('generation', () => void qc.invalidateQueries({ queryKey: recentGenerationsKey }));
  return useQuery({
    queryKey: recentGenerationsKey,
    queryFn: ({ signal }) =>
      api.request<{ items: GenerationView[] }>(`/api/generations?limit=${LIMITS.recentGenerations}`, { signal }).then((r) => r.items),
  });
}

/** Puts a fresh generation at the top of the recent list (spec §4: max 6) without waiting for a refetch. */
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
  const { api } = useBackend();
  const qc = useQueryClient();
  useRealtimeEvent('training', () => void qc.invalidateQueries({ queryKey: charactersKey }));
  return useQuery({
    queryKey: charactersKey,
    queryFn: ({ signal }) => api.request<{ items: Character[] }>('/api/characters', { signal }).then((r) => r.items),
  });
}

/** Saves a generation's image through GET /api/download/<id>, which names the file likeness-<timestamp>.<ext>. */
export function downloadGeneration(id: string): Promise<void> {
  return downloadFile(`/api/download/${encodeURIComponent(id)}`, 'likeness-image');
}
