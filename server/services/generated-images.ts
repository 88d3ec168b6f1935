import type { GeneratedImage } from '@common/generation.ts';
import type { Logger } from '../logger.ts';
import { ProviderError, type ProviderImage } from '../providers/inference/index.ts';
import { mediaUrl, type StorageProvider } from '../providers/storage/index.ts';

const DOWNLOAD_TIMEOUT_MS = 60_000;
const MAX_IMAGE_BYTES = 32 * 1024 * 1024;

/** An image copied into our storage: its key, its bytes (for the likeness check) and what it answers as. */
export interface KeptImage {
  key: string;
  data: Buffer;
  image: GeneratedImage;
}

/** The stored format of an image by its content type (the requested one when the type says neither). */
export const extensionOf = (contentType: string, fallback: 'jpeg' | 'png') =>
  contentType === 'image/png' ? 'png' : contentType === 'image/jpeg' ? 'jpeg' : fallback;

/** Reads a provider-hosted image with a deadline and a size cap (provider links expire, so we keep a copy). */
async function download(url: string): Promise<{ data: Buffer; contentType: string }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) }).catch((err: Error) => {
    throw new ProviderError(`Could not download the image: ${err.message}`, err.name === 'TimeoutError' ? 'timeout' : 'failed');
  });
  if (!res.ok || !res.body) throw new ProviderError(`Could not download the image: HTTP ${res.status}`, 'failed', res.status);
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!contentType.startsWith('image/')) throw new ProviderError(`The image link answered ${contentType || 'no content type'}`, 'failed');
  if (Number(res.headers.get('content-length') ?? 0) > MAX_IMAGE_BYTES) throw new ProviderError('The image is too large', 'failed');
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    size += part.value.length;
    if (size > MAX_IMAGE_BYTES) {
      await reader.cancel();
      throw new ProviderError('The image is too large', 'failed');
    }
    chunks.push(Buffer.from(part.value));
  }
  return { data: Buffer.concat(chunks), contentType };
}

export type GeneratedImages = ReturnType<typeof createGeneratedImages>;

/** A provider's images kept in our storage under `generations/<user>/<name>`, and forgotten when unused. */
export function createGeneratedImages(deps: { storage: StorageProvider; logger: Logger }) {
  const { storage, logger } = deps;

  /** Deletes stored images that will never be shown; a failure is only logged (retention removes orphans). */
  async function forget(keys: string[]) {
    for (const key of keys) {
      await storage.delete(key).catch((err) => logger.warn({ err, key }, 'could not delete an unused generated image'));
    }
  }

  /** Stores each image (downloaded when the provider gave a link); on a failure, none of them stays. */
  async function keep(userId: string, name: string, images: ProviderImage[], format: 'jpeg' | 'png'): Promise<KeptImage[]> {
    const kept: KeptImage[] = [];
    try {
      for (const [i, image] of images.entries()) {
        const { data, contentType } = image.data ? { data: image.data, contentType: image.contentType } : await download(image.url ?? '');
        const stored = i === 0 ? name : `${name}-${i}`;
        const key = `generations/${userId}/${stored}.${extensionOf(contentType, format)}`;
        await storage.put(key, data, contentType);
        kept.push({ key, data, image: { url: mediaUrl(key), width: image.width, height: image.height, content_type: contentType } });
      }
      return kept;
    } catch (err) {
      await forget(kept.map((k) => k.key));
      throw err;
    }
  }

  return { keep, forget };
}
