import { z } from 'zod';
import type { Logger } from '../../logger.ts';
import { withDeadline } from '../../domain/deadline.ts';
import type { FalClient } from '@fal-ai/client';
import { falClient, sleep, toProviderError, untilAborted, type FalConnection } from './fal-client.ts';
import { ProviderError, type CallOptions, type GenerateInput, type GenerateOutput, type ImageGenerator } from './provider.ts';

export const FLUX_LORA = 'fal-ai/flux-lora';

export interface FalGeneratorOptions extends FalConnection {
  /** Give up (and cancel the fal request) after this long in total. fal needs 2–4 s plus queueing. */
  timeoutMs?: number;
  /** How often to ask the queue for the status. */
  pollIntervalMs?: number;
  logger?: Pick<Logger, 'warn'>;
}

const falImage = z.object({
  url: z.string().min(1),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  content_type: z.string().optional(),
});

const fluxLoraOutput = z.object({
  images: z.array(falImage).min(1),
  seed: z.number().optional(),
  has_nsfw_concepts: z.array(z.boolean()).optional(),
});

/** The fal-ai/flux-lora input of a request (contracts/fal.md); num_images and the safety checker are fixed. */
export function fluxLoraInput(input: GenerateInput) {
  return {
    prompt: input.prompt,
    image_size: { width: input.imageSize.width, height: input.imageSize.height },
    loras: input.loras.map((l) => ({ path: l.path, scale: l.scale })),
    seed: input.seed,
    num_inference_steps: input.numInferenceSteps,
    guidance_scale: input.guidanceScale,
    num_images: 1,
    enable_safety_checker: true,
    output_format: input.outputFormat,
  };
}

/** How long and how often a queued fal call waits. */
export interface FalQueueOptions {
  timeoutMs: number;
  pollIntervalMs: number;
  logger?: Pick<Logger, 'warn'>;
}

/**
 * One model call through fal's queue: submit, poll the status, fetch the result. The overall timeout and the
 * caller's signal both end the wait and send the queue's cancel request, so fal stops working (and billing)
 * on an image nobody will receive. Shared by generation and finishing (fal-finisher.ts).
 */
export async function runFalQueue(
  fal: FalClient,
  endpointId: string,
  input: Record<string, unknown>,
  opts: FalQueueOptions,
  callOpts?: CallOptions,
): Promise<{ data: unknown; requestId: string }> {
  let requestId: string | undefined;
  let submitting: Promise<{ request_id: string }> | undefined;
  const cancelQuietly = async (id: string) => {
    try {
      await fal.queue.cancel(endpointId, { requestId: id, abortSignal: AbortSignal.timeout(5_000) });
    } catch (err) {
      // Best effort: fal finishes or expires the request on its own; nothing is charged to the user.
      opts.logger?.warn({ err, requestId: id }, 'fal did not accept the cancel request');
    }
  };
  return withDeadline(opts.timeoutMs, [callOpts?.signal], async (signal) => {
    try {
      submitting = fal.queue.submit(endpointId, { input, abortSignal: signal });
      requestId = (await untilAborted(submitting, signal)).request_id;
      for (;;) {
        const status = await untilAborted(fal.queue.status(endpointId, { requestId, logs: false, abortSignal: signal }), signal);
        if (status.status === 'COMPLETED') break;
        await sleep(opts.pollIntervalMs, signal);
      }
      const result = await untilAborted(fal.queue.result(endpointId, { requestId, abortSignal: signal }), signal);
      return { data: result.data, requestId: result.requestId || requestId };
    } catch (err) {
      if (signal.aborted) {
        if (requestId) await cancelQuietly(requestId);
        // A submit still in flight may yet start work at fal: cancel it if it lands.
        else
          submitting?.then(
            (s) => cancelQuietly(s.request_id),
            () => {},
          );
        throw callOpts?.signal?.aborted
          ? new ProviderError('The request was cancelled', 'cancelled')
          : new ProviderError(`fal did not finish within ${Math.round(opts.timeoutMs / 1000)} s`, 'timeout');
      }
      throw toProviderError(err, endpointId === FLUX_LORA ? 'image generation' : `${endpointId} request`);
    }
  });
}

/** fal-ai/flux-lora through fal's queue (runFalQueue). */
export function createFalGenerator(opts: FalGeneratorOptions): ImageGenerator {
  const fal = falClient(opts);
  const queue = { timeoutMs: opts.timeoutMs ?? 120_000, pollIntervalMs: opts.pollIntervalMs ?? 500, logger: opts.logger };
  return {
    name: 'fal',
    async generate(input, callOpts) {
      const { data, requestId } = await runFalQueue(fal, FLUX_LORA, fluxLoraInput(input), queue, callOpts);
      return toFluxOutput(data, input, requestId);
    },
  };
}

/** The images of a flux-lora (or flux-lora image-to-image) answer, with the safety checker's verdicts. */
export function toFluxOutput(data: unknown, input: GenerateInput, requestId: string): GenerateOutput {
  const parsed = fluxLoraOutput.safeParse(data);
  if (!parsed.success) throw new ProviderError('fal answered without an image', 'failed', undefined, data);
  const { images, seed, has_nsfw_concepts: nsfw } = parsed.data;
  const fallbackType = input.outputFormat === 'png' ? 'image/png' : 'image/jpeg';
  return {
    images: images.map((image, i) => ({
      url: image.url,
      width: image.width ?? input.imageSize.width,
      height: image.height ?? input.imageSize.height,
      contentType: image.content_type ?? fallbackType,
      nsfw: nsfw?.[i] ?? false,
    })),
    seed: seed ?? input.seed,
    providerRequestId: requestId,
  };
}
