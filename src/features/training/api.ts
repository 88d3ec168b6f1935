import { useQuery } from '@tanstack/react-query';
import type { UploadResponse } from '@common/captions';
import { LIMITS } from '@common/product';
import type { TrainingSubmission, TrainingSubmitResponse, TrainingView } from '@common/training';
import { ApiError } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import type { ApiPort } from '@/backend/port';

/** Character training calls (spec §7): the uploader for the archive, the submission and the caller's trainings. */

export const trainingsKey = ['trainings'] as const;

export async function fetchTrainings(api: ApiPort, signal?: AbortSignal): Promise<TrainingView[]> {
  return (await api.request<{ items: TrainingView[] }>('/api/trainings', { signal })).items;
}

export function useTrainings() {
  const { api } = useBackend();
  return useQuery({ queryKey: trainingsKey, queryFn: ({ signal }) => fetchTrainings(api, signal) });
}

/** A failure whose message is already the one the page shows (spec §8). */
export class TrainingError extends Error {
  override name = 'TrainingError';
}

/** The {body} of the spec's messages: the server's user-safe message when it sent JSON, else the raw text. */
function bodyOf(err: ApiError): string {
  const text = err.bodyText.trim();
  try {
    const json = JSON.parse(text) as { message?: unknown };
    if (typeof json.message === 'string' && json.message) return json.message;
  } catch {
    // Not JSON (a proxy's error page): show it as it came.
  }
  return text || 'No response body';
}

export const TRAINING_ARCHIVE_NAME = 'training_images.zip';

/** Uploads the photo archive through the uploader; answers its URL ('Upload failed: {status} - {body}'). */
export async function uploadTrainingArchive(api: ApiPort, archive: Blob): Promise<string> {
  if (archive.size > LIMITS.trainingArchiveMaxBytes) {
    throw new TrainingError(`Upload failed: 413 - The photos are too large together (max ${LIMITS.trainingArchiveMaxBytes / 1024 / 1024} MB).`);
  }
  const form = new FormData();
  form.append('file', new File([archive], TRAINING_ARCHIVE_NAME, { type: 'application/zip' }));
  let res: UploadResponse;
  try {
    res = await api.request<UploadResponse>('/api/upload', { method: 'POST', body: form });
  } catch (err) {
    if (err instanceof ApiError) throw new TrainingError(`Upload failed: ${err.status} - ${bodyOf(err)}`);
    throw err;
  }
  if (!res || res.success !== true || typeof res.url !== 'string') throw new TrainingError('Upload failed: Invalid response format');
  return res.url;
}

/** POST /api/image/submit-lora-training ('Training submission failed: {status} - {body}'). */
export async function submitTraining(api: ApiPort, payload: TrainingSubmission): Promise<TrainingSubmitResponse> {
  try {
    return await api.request<TrainingSubmitResponse>('/api/image/submit-lora-training', { method: 'POST', body: payload });
  } catch (err) {
    if (err instanceof ApiError) throw new TrainingError(`Training submission failed: ${err.status} - ${bodyOf(err)}`);
    throw err;
  }
}
