import sharp, { type Sharp } from 'sharp';
import { LIMITS } from '@common/product.ts';
import {
  ProviderError,
  type CallOptions,
  type GenerateOutput,
  type ImageFinisher,
  type ImageGenerator,
  type SourceImage,
} from './provider.ts';

/**
 * The built-in engine's finishing, honest about what it is: no model adds detail here.
 *  - Upscale: a resampling upscale (sharp's Lanczos-3) with a mild unsharp mask, so edges stay crisp at 2× and
 *    4×; it cannot invent texture a super-resolution model would.
 *  - Edit: the built-in generator paints the new prompt at the requested size, and the result is a visible
 *    blend of that render over the source, `strength` parts new to `1 − strength` parts source.
 */
export function createBuiltinFinisher(deps: { generator: ImageGenerator }): ImageFinisher {
  return {
    name: 'builtin',
    async upscale(input, opts) {
      checkAborted(opts);
      const width = input.image.width * input.factor;
      const height = input.image.height * input.factor;
      const data = await encode(upscaleImage(input.image.data, width, height), input.outputFormat);
      checkAborted(opts);
      return output(data, width, height, input.outputFormat, input.seed);
    },
    async edit(input, opts) {
      checkAborted(opts);
      const { width, height } = input.imageSize;
      const render = await deps.generator.generate({ ...input, outputFormat: 'png' }, opts);
      const fresh = render.images[0]?.data;
      if (!fresh) throw new ProviderError('The built-in engine did not render the edit', 'failed');
      const data = await encode(await blend(input.image, fresh, width, height, input.strength), input.outputFormat);
      checkAborted(opts);
      return output(data, width, height, input.outputFormat, render.seed);
    },
  };
}

/** Sources are our own stored images, but an upscale of a large one is still bounded like every decode. */
const DECODE_LIMITS = { limitInputPixels: LIMITS.imageMaxPixels } as const;

function checkAborted(opts?: CallOptions) {
  if (opts?.signal?.aborted) throw new ProviderError('The request was cancelled', 'cancelled');
}

/**
 * A mild unsharp mask as one 3×3 convolution: the pixel plus half of its difference from the mean of its four
 * neighbours (weights sum to 1). sharp's `sharpen()` works in LAB with a Gaussian and took over twice as long
 * as the resize itself on a 2048² output; this keeps the 2× upscale of a 1024² image within its budget.
 */
const UNSHARP = { width: 3, height: 3, kernel: [0, -1, 0, -1, 12, -1, 0, -1, 0], scale: 8 };

/** Lanczos-3 resampling to the exact size, then the mild unsharp mask. */
export function upscaleImage(data: Buffer, width: number, height: number): Sharp {
  return sharp(data, DECODE_LIMITS).removeAlpha().resize(width, height, { kernel: 'lanczos3', fit: 'fill' }).convolve(UNSHARP);
}

/** `strength` of the fresh render over `1 − strength` of the source (covering the requested size), per pixel. */
async function blend(source: SourceImage, fresh: Buffer, width: number, height: number, strength: number): Promise<Sharp> {
  const raw = { width, height, channels: 3 as const };
  const [base, over] = await Promise.all([
    sharp(source.data, DECODE_LIMITS).removeAlpha().resize(width, height, { fit: 'cover', kernel: 'lanczos3' }).raw().toBuffer(),
    sharp(fresh).removeAlpha().resize(width, height, { fit: 'fill' }).raw().toBuffer(),
  ]);
  const out = Buffer.allocUnsafe(base.length);
  const keep = 1 - strength;
  for (let i = 0; i < out.length; i++) out[i] = Math.round(base[i] * keep + over[i] * strength);
  return sharp(out, { raw });
}

function encode(image: Sharp, format: 'jpeg' | 'png'): Promise<Buffer> {
  return format === 'png'
    ? image.png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer()
    : image.jpeg({ quality: 90, chromaSubsampling: '4:2:0' }).toBuffer();
}

function output(data: Buffer, width: number, height: number, format: 'jpeg' | 'png', seed: number): GenerateOutput {
  return { images: [{ data, width, height, contentType: format === 'png' ? 'image/png' : 'image/jpeg', nsfw: false }], seed };
}
