import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { UploadResponse } from '@common/captions';
import type { PhotoCheck } from '@common/photo-check';
import { LIMITS } from '@common/product';
import type { TrainingSubmission, TrainingSubmitResponse, TrainingView } from '@common/training';
import { ApiError, responseBody } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import type { ApiPort } from '@/backend/port';
import { charactersKey } from '@/queries/characters';

/** Character training calls (product §7): the uploader for the archive, the submission and the caller's trainings. */

export const trainingsKey = ['trainings'] as const;

export function useTrainings() {
  const { data } = useBackend();
  return useQuery({ queryKey: trainingsKey, queryFn: ({ signal }) => data.trainings(signal) });
}

/** A failure whose message is already the one the page shows (product §8). */
export class TrainingError extends Error {
  override name = 'TrainingError';
}

export const TRAINING_ARCHIVE_NAME = 'training_images.zip';

/** Uploads the photo archive through the uploader; answers its URL ('Upload failed: {status} - {body}'). */
export async function uploadTrainingArchive(api: ApiPort, archive: Blob): Promise<string> {
  if (archive.size > LIMITS.trainingArchiveMaxBytes) {
    throw new TrainingError(
      `Upload failed: 413 - The photos are too large together (max ${LIMITS.trainingArchiveMaxBytes / 1024 / 1024} MB).`,
    );
  }
  const form = new FormData();
  form.append('file', new File([archive], TRAINING_ARCHIVE_NAME, { type: 'application/zip' }));
  let res: UploadResponse;
  try {
    res = await api.request<UploadResponse>('/api/upload', { method: 'POST', body: form });
  } catch (err) {
    if (err instanceof ApiError) throw new TrainingError(`Upload failed: ${err.status} - ${responseBody(err)}`);
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
    if (err instanceof ApiError) throw new TrainingError(`Training submission failed: ${err.status} - ${responseBody(err)}`);
    throw err;
  }
}

/**
 * POST /api/trainings/check-photo: the server's verdict on one photo (free, rate-limited). `original` is the
 * photo's own size when `file` is a smaller copy of it.
 */
export function checkTrainingPhoto(
  api: ApiPort,
  file: Blob,
  original: { width: number; height: number } | null,
  signal?: AbortSignal,
): Promise<PhotoCheck> {
  const form = new FormData();
  form.append('file', file, 'photo');
  const query = original ? `?width=${original.width}&height=${original.height}` : '';
  return api.request<PhotoCheck>(`/api/trainings/check-photo${query}`, { method: 'POST', body: form, signal });
}

/** 'Rename' in Previous Trainings: PATCH /api/trainings/:id (the server checks the name again). */
export function renameCharacter(api: ApiPort, id: string, characterName: string): Promise<TrainingView> {
  return api.request<TrainingView>(`/api/trainings/${encodeURIComponent(id)}`, {
    method: 'PATCH',
    body: { character_name: characterName },
  });
}

/** 'Delete' in Previous Trainings: DELETE /api/trainings/:id, through our server in both builds. */
export function deleteCharacter(api: ApiPort, id: string): Promise<void> {
  return api.request<void>(`/api/trainings/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** The toast's Undo after 'Delete': POST /api/trainings/:id/restore, through our server in both builds. */
export function restoreCharacter(api: ApiPort, id: string): Promise<TrainingView> {
  return api.request<TrainingView>(`/api/trainings/${encodeURIComponent(id)}/restore`, { method: 'POST' });
}

/**
 * Rename, delete and its Undo, each updating the list at once and then refetching it (and the character picker's
 * list, which a deleted or renamed character leaves or changes).
 */
export function useCharacterActions() {
  const { api } = useBackend();
  const qc = useQueryClient();
  const settle = () => {
    void qc.invalidateQueries({ queryKey: trainingsKey });
    void qc.invalidateQueries({ queryKey: charactersKey });
  };
  return {
    async rename(id: string, characterName: string) {
      const renamed = await renameCharacter(api, id, characterName);
      qc.setQueryData<TrainingView[]>(trainingsKey, (list) => list?.map((t) => (t.id === id ? renamed : t)));
      settle();
    },
    async remove(id: string) {
      await deleteCharacter(api, id);
      qc.setQueryData<TrainingView[]>(trainingsKey, (list) => list?.filter((t) => t.id !== id));
      settle();
    },
    async restore(id: string) {
      await restoreCharacter(api, id);
      await Promise.all([qc.invalidateQueries({ queryKey: trainingsKey }), qc.invalidateQueries({ queryKey: charactersKey })]);
    },
  };
}
