import { ApiError } from '@fal-ai/client';
import { z } from 'zod';
import { falTrainingReport } from '@common/training.ts';
import { falClient, toProviderError, type FalConnection } from './fal-client.ts';
import type { FalWebhook } from './fal-webhook.ts';
import { ProviderError, type TrainingProvider, type TrainingState } from './provider.ts';

export const FLUX_LORA_FAST_TRAINING = 'fal-ai/flux-lora-fast-training';

const trainingOutput = z.object({
  diffusers_lora_file: z.object({ url: z.string().min(1) }).loose(),
  config_file: z.unknown().optional(),
});

/**
 * fal-ai/flux-lora-fast-training through the queue. Training takes minutes, so nothing here waits:
 * `submit` returns the request id, and the end arrives by webhook (trainingStateFromWebhook) or by
 * the caller polling `status`.
 */
export function createFalTrainer(opts: FalConnection): TrainingProvider {
  const fal = falClient(opts);
  return {
    name: 'fal',

    async uploadArchive(zip, callOpts) {
      try {
        const file = new File([new Uint8Array(zip)], 'training_images.zip', { type: 'application/zip' });
        if (callOpts?.signal?.aborted) throw new ProviderError('The upload was cancelled', 'cancelled');
        return await fal.storage.upload(file);
      } catch (err) {
        throw toProviderError(err, 'training photo upload');
      }
    },

    async submit(input, callOpts) {
      try {
        const submitted = await fal.queue.submit(FLUX_LORA_FAST_TRAINING, {
          input: {
            images_data_url: input.imagesDataUrl,
            ...(input.triggerWord ? { trigger_word: input.triggerWord } : {}),
            create_masks: input.createMasks,
            steps: input.steps,
            is_style: input.isStyle,
          },
          ...(callOpts?.webhookUrl ? { webhookUrl: callOpts.webhookUrl } : {}),
          abortSignal: callOpts?.signal,
        });
        return { requestId: submitted.request_id };
      } catch (err) {
        throw toProviderError(err, 'training request');
      }
    },

    async status(requestId, callOpts): Promise<TrainingState> {
      let status: { status: string; error?: unknown; queue_position?: unknown; logs?: unknown };
      try {
        // With its logs: the step counts in them are the training's progress (issue 54 item 6).
        status = await fal.queue.status(FLUX_LORA_FAST_TRAINING, { requestId, logs: true, abortSignal: callOpts?.signal });
      } catch (err) {
        throw toProviderError(err, 'training status');
      }
      if (status.status === 'IN_QUEUE' || status.status === 'IN_PROGRESS')
        return { status: status.status, report: falTrainingReport(status) };
      if (typeof status.error === 'string' && status.error) return { status: 'FAILED', error: status.error };
      try {
        const result = await fal.queue.result(FLUX_LORA_FAST_TRAINING, { requestId, abortSignal: callOpts?.signal });
        return completedState(result.data);
      } catch (err) {
        // The run itself failed when fal answers its result with a client error or a plain 500; a
        // 429/502/503/504 or a network failure says nothing about the run: ask again later.
        if (err instanceof ApiError && ((err.status >= 400 && err.status < 500 && err.status !== 429) || err.status === 500)) {
          return { status: 'FAILED', error: toProviderError(err, 'training').message };
        }
        throw toProviderError(err, 'training result');
      }
    },
  };
}

function completedState(data: unknown): TrainingState {
  const parsed = trainingOutput.safeParse(data);
  if (!parsed.success) return { status: 'FAILED', error: 'fal finished the training without a LoRA file' };
  return { status: 'COMPLETED', loraFileUrl: parsed.data.diffusers_lora_file.url, result: data };
}

/**
 * What a verified training webhook says; null when it carries no usable result (payload not JSON):
 * then poll `status` for it.
 */
export function trainingStateFromWebhook(hook: FalWebhook): TrainingState | null {
  if (hook.status === 'ERROR') return { status: 'FAILED', error: hook.error || 'Training failed at fal' };
  if (hook.payload == null) return null;
  return completedState(hook.payload);
}
