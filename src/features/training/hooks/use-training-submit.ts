import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { zipSync, type Zippable } from 'fflate';
import { CREDIT_COSTS, LIMITS, TIMINGS } from '@common/product';
import { TRAINING_MESSAGES, type TrainingView } from '@common/training';
import { useBackend } from '@/backend/backend-context';
import { useActiveTeamId } from '@/session/space';
import { submitTraining, TrainingError, trainingsKey, uploadTrainingArchive } from '../api';
import type { PhotoWithProblem } from './use-photo-checks';
import type { TrainingFormApi } from './use-training-form';

/** Operation state (product §3, §4). */
export type TrainingOperation =
  | { kind: 'idle' }
  | { kind: 'uploading' }
  | { kind: 'training' }
  | { kind: 'completed'; requestId: string; result: unknown }
  | { kind: 'error'; message: string };

export const GENERIC_TRAINING_ERROR = 'An error occurred during training. Please try again.';
export const TRAINING_FAILED = 'Training failed. Please try again.';

const extensionOf = (file: File) => {
  const fromName = /\.([a-z0-9]{2,5})$/i.exec(file.name)?.[1]?.toLowerCase();
  return fromName ?? file.type.split('/')[1] ?? 'jpg';
};

/** Packs the chosen photos into the training archive; photos are already compressed, so they are stored as they are. */
export async function packTrainingImages(files: File[]): Promise<Blob> {
  const entries: Zippable = {};
  const contents = await Promise.all(files.map(async (file) => new Uint8Array(await file.arrayBuffer())));
  contents.forEach((bytes, i) => {
    entries[`photo-${String(i + 1).padStart(2, '0')}.${extensionOf(files[i]!)}`] = [bytes, { level: 0 }];
  });
  return new Blob([new Uint8Array(zipSync(entries))], { type: 'application/zip' });
}

/**
 * Why the form cannot be sent yet, in the spec's words; null when it can. `photoRefusal` is what the photo
 * checks refuse so far (an NSFW photo, too few photos of one person); the server checks again anyway.
 */
export function validateTraining(photoCount: number, characterName: string, photoRefusal: string | null = null): string | null {
  if (photoCount < LIMITS.trainingMinImages) return TRAINING_MESSAGES.tooFewImages;
  if (!characterName.trim()) return TRAINING_MESSAGES.nameRequired;
  return photoRefusal;
}

/**
 * The submit flow: pack, upload, submit (idle → uploading → idle, or error), the success banner for
 * 180000 ms, and the current request's outcome as it arrives (completed, or error with the stored text).
 */
export function useTrainingSubmit({
  formApi,
  credits,
  trainings,
  photoRefusal,
  problemPhotos = [],
}: {
  formApi: TrainingFormApi;
  credits: number;
  trainings: TrainingView[] | undefined;
  photoRefusal: string | null;
  /** Checked photos with a problem: Start Training asks once before spending credits on them. */
  problemPhotos?: PhotoWithProblem[];
}) {
  const { api } = useBackend();
  const qc = useQueryClient();
  const [operation, setOperation] = useState<TrainingOperation>({ kind: 'idle' });
  const [currentRequestId, setCurrentRequestId] = useState<string | null>(null);
  const [successVisible, setSuccessVisible] = useState(false);
  /** Why the last click could not submit, shown beside the button where the eye is; gone once its cause is. */
  const [validation, setValidation] = useState<string | null>(null);
  /** The photos with problems Start Training is asking about; null when it is not asking. */
  const [question, setQuestion] = useState<PhotoWithProblem[] | null>(null);
  const successTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(successTimer.current), []);

  const { form } = formApi;
  const currentProblem = validateTraining(form.photos.length, form.characterName, photoRefusal);
  useEffect(() => {
    if (validation === null || currentProblem === validation) return;
    setValidation(null);
    setOperation((op) => (op.kind === 'error' && op.message === validation ? { kind: 'idle' } : op));
  }, [currentProblem, validation]);
  const busy = operation.kind === 'uploading' || operation.kind === 'training';
  // In a team's space (issue 49) the training is team work: the team pays, and `credits` is the team's balance.
  const teamId = useActiveTeamId();
  const short = credits < CREDIT_COSTS.training;
  const canSubmit = form.photos.length > 0 && !busy && form.characterName.trim() !== '' && !short;

  const dismissSuccess = useCallback(() => {
    clearTimeout(successTimer.current);
    setSuccessVisible(false);
  }, []);

  // The record of the request sent from this page decides its outcome (product §4); the outcome replaces the
  // 'submitted' banner, so the page never says 'it will take 5-10 minutes' beside 'ready'.
  useEffect(() => {
    if (!currentRequestId || !trainings) return;
    const record = trainings.find((t) => t.request_id === currentRequestId);
    if (record?.status === 'COMPLETED' && record.result) {
      dismissSuccess();
      setOperation({ kind: 'completed', requestId: currentRequestId, result: record.result });
      setCurrentRequestId(null);
    } else if (record?.status === 'FAILED') {
      dismissSuccess();
      setOperation({ kind: 'error', message: record.error || TRAINING_FAILED });
      setCurrentRequestId(null);
    }
  }, [currentRequestId, dismissSuccess, trainings]);

  const submit = useCallback(
    async (opts: { anyway?: boolean } = {}) => {
      if (busy) return;
      if (currentProblem) {
        setValidation(currentProblem);
        setOperation({ kind: 'error', message: currentProblem });
        return;
      }
      if (short) return;
      if (problemPhotos.length && !opts.anyway) {
        setQuestion(problemPhotos);
        return;
      }
      setQuestion(null);
      dismissSuccess();
      setOperation({ kind: 'uploading' });
      try {
        const archive = await packTrainingImages(form.photos.map((p) => p.file));
        const imagesDataUrl = await uploadTrainingArchive(api, archive);
        setOperation({ kind: 'training' });
        const { request_id } = await submitTraining(api, {
          images_data_url: imagesDataUrl,
          ...(form.triggerWord ? { trigger_word: form.triggerWord } : {}),
          create_masks: true,
          steps: LIMITS.trainingSteps,
          is_style: false,
          character_name: form.characterName.trim(),
          gender: form.gender,
          hair_color: form.hairColor,
          // In a team's space (issue 49): a team character, paid by the team.
          ...(teamId ? { team_id: teamId } : {}),
        });
        // The new training goes to the top of the list at once; the server's copy replaces it.
        const placeholder: TrainingView = {
          id: request_id,
          character_name: form.characterName.trim(),
          trigger_word: form.triggerWord || null,
          gender: form.gender,
          hair_color: form.hairColor,
          status: 'IN_PROGRESS',
          created_at: new Date().toISOString(),
          lora_file_url: null,
          request_id,
          result: null,
          error: null,
          progress: null,
        };
        qc.setQueryData<TrainingView[]>(trainingsKey, (list) =>
          list?.some((t) => t.request_id === request_id) ? list : [placeholder, ...(list ?? [])],
        );
        void qc.invalidateQueries({ queryKey: trainingsKey });
        setCurrentRequestId(request_id);
        formApi.reset();
        setOperation({ kind: 'idle' });
        setSuccessVisible(true);
        successTimer.current = setTimeout(() => setSuccessVisible(false), TIMINGS.trainingSuccessBannerMs);
      } catch (err) {
        console.error('training submission failed', err);
        setOperation({ kind: 'error', message: err instanceof TrainingError ? err.message : GENERIC_TRAINING_ERROR });
      }
    },
    [api, busy, currentProblem, dismissSuccess, form, formApi, problemPhotos, qc, short, teamId],
  );

  const clearError = useCallback(() => setOperation((op) => (op.kind === 'error' || op.kind === 'completed' ? { kind: 'idle' } : op)), []);

  return {
    operation,
    validation,
    busy,
    short,
    canSubmit,
    submit,
    successVisible,
    dismissSuccess,
    clearError,
    question,
    trainAnyway: () => void submit({ anyway: true }),
    dismissQuestion: () => setQuestion(null),
  };
}
