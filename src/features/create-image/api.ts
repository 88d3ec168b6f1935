import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { GenerateImageResponse, GenerationRequestInput, GenerationView } from '@common/generation';
import type { CaptionResponse, UploadResponse } from '@common/captions';
import type { EditRequestInput } from '@common/finishing';
import { LIMITS } from '@common/product';
import { useBackend } from '@/backend/backend-context';
import { ApiError, responseBody } from '@/backend/api-error';
import type { ApiPort } from '@/backend/port';
import { downloadFile } from '@/lib/download-file';
import { useChanges } from '@/session/use-realtime';
import { ExtractionError, type AnalysisType } from './lib/extraction';

export const recentGenerationsKey = ['generations', 'recent'] as const;

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

/** Saves a generation's image through GET /api/download/<id>, which names the file likeness-<timestamp>.<ext>. */
export function downloadGeneration(api: ApiPort, id: string): Promise<void> {
  return downloadFile(api, `/api/download/${encodeURIComponent(id)}`, 'likeness-image');
}

/** Prompt extraction (product §2, §5, §8): the uploader and the two caption calls, failing with the panel's messages. */
const CAPTION_PATH: Record<AnalysisType, string> = {
  fast: '/api/image/fast-caption',
  detailed: '/api/image/detail-caption',
};

/** POST /api/upload (multipart, field `file`) → the stored image's URL. */
export async function uploadImage(api: ApiPort, file: File, signal?: AbortSignal): Promise<string> {
  const form = new FormData();
  form.append('file', file);
  let answer: Partial<UploadResponse> | null;
  try {
    answer = await api.request<Partial<UploadResponse> | null>('/api/upload', { method: 'POST', body: form, signal });
  } catch (err) {
    if (err instanceof ApiError) throw new ExtractionError(`Upload failed: ${err.status} - ${responseBody(err)}`);
    throw err;
  }
  if (!answer?.success || typeof answer.url !== 'string' || !answer.url)
    throw new ExtractionError('Upload failed: Invalid response format');
  return answer.url;
}

/** POST /api/image/fast-caption or /detail-caption with the uploaded image's URL → the prompt text. */
export async function captionImage(api: ApiPort, imageUrl: string, type: AnalysisType, signal?: AbortSignal): Promise<string> {
  let answer: Partial<CaptionResponse> | null;
  try {
    answer = await api.request<Partial<CaptionResponse> | null>(CAPTION_PATH[type], {
      method: 'POST',
      body: { image_url: imageUrl },
      signal,
    });
  } catch (err) {
    if (err instanceof ApiError) throw new ExtractionError(`API error: ${err.status} - ${responseBody(err)}`);
    throw err;
  }
  if (typeof answer?.results !== 'string') throw new ExtractionError('Invalid API response: missing results field');
  return answer.results;
}
