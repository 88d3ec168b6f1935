import { z } from 'zod';
import { falClient, toProviderError, type FalConnection } from './fal-client.ts';
import { fluxLoraInput, runFalQueue, toFluxOutput, type FalGeneratorOptions } from './fal-generator.ts';
import { ProviderError, type CallOptions, type ImageFinisher, type SourceImage } from './provider.ts';

export const CLARITY_UPSCALER = 'fal-ai/clarity-upscaler';
export const FLUX_LORA_IMAGE_TO_IMAGE = 'fal-ai/flux-lora/image-to-image';

/**
 * Upscales keep the face and the character: low creativity (how much the model may repaint) and high
 * resemblance (how closely it follows the source). fal's defaults (0.35 / 0.6) repaint faces noticeably.
 */
export const UPSCALE_CREATIVITY = 0.2;
export const UPSCALE_RESEMBLANCE = 0.9;

const clarityOutput = z.object({
  image: z.object({
    url: z.string().min(1),
    width: z.number().int().positive().optional(),
    height: z.number().int().positive().optional(),
    content_type: z.string().optional(),
  }),
  seed: z.number().optional(),
});

/**
 * Finishing on fal (shared/contracts/fal.md): `fal-ai/clarity-upscaler` for upscales and
 * `fal-ai/flux-lora/image-to-image` (with the character's LoRA) for edits. The source image is read from our
 * storage and uploaded to fal's storage first, since our server may not be reachable from fal.
 */
export function createFalFinisher(
  opts: FalConnection & Pick<FalGeneratorOptions, 'timeoutMs' | 'pollIntervalMs' | 'logger'>,
): ImageFinisher {
  const fal = falClient(opts);
  const queue = { timeoutMs: opts.timeoutMs ?? 180_000, pollIntervalMs: opts.pollIntervalMs ?? 500, logger: opts.logger };

  async function upload(image: SourceImage, callOpts?: CallOptions): Promise<string> {
    if (callOpts?.signal?.aborted) throw new ProviderError('The request was cancelled', 'cancelled');
    try {
      return await fal.storage.upload(new Blob([new Uint8Array(image.data)], { type: image.contentType }));
    } catch (err) {
      throw toProviderError(err, 'source image upload');
    }
  }

  return {
    name: 'fal',
    async upscale(input, callOpts) {
      const imageUrl = await upload(input.image, callOpts);
      const { data, requestId } = await runFalQueue(
        fal,
        CLARITY_UPSCALER,
        {
          image_url: imageUrl,
          upscale_factor: input.factor,
          prompt: input.prompt,
          creativity: UPSCALE_CREATIVITY,
          resemblance: UPSCALE_RESEMBLANCE,
          seed: input.seed,
          enable_safety_checker: true,
        },
        queue,
        callOpts,
      );
      const parsed = clarityOutput.safeParse(data);
      if (!parsed.success) throw new ProviderError('fal answered without an image', 'failed', undefined, data);
      const { image, seed } = parsed.data;
      return {
        images: [
          {
            url: image.url,
            width: image.width ?? input.image.width * input.factor,
            height: image.height ?? input.image.height * input.factor,
            contentType: image.content_type ?? input.image.contentType,
            nsfw: false,
          },
        ],
        seed: seed ?? input.seed,
        providerRequestId: requestId,
      };
    },
    async edit(input, callOpts) {
      const imageUrl = await upload(input.image, callOpts);
      const { data, requestId } = await runFalQueue(
        fal,
        FLUX_LORA_IMAGE_TO_IMAGE,
        { ...fluxLoraInput(input), image_url: imageUrl, strength: input.strength },
        queue,
        callOpts,
      );
      return toFluxOutput(data, input, requestId);
    },
  };
}
