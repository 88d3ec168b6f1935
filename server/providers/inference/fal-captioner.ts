import { ApiError } from '@fal-ai/client';
import { withDeadline } from '../../domain/deadline.ts';
import { falClient, isAbort, type FalConnection } from './fal-client.ts';
import { ProviderError, type CaptionDetail, type ImageCaptioner } from './provider.ts';

/** fal's Florence-2 endpoints (see shared/contracts/fal.md): input {image_url}, output {results}. */
export const FAL_CAPTION_ENDPOINTS: Record<CaptionDetail, string> = {
  fast: 'fal-ai/florence-2-large/caption',
  detailed: 'fal-ai/florence-2-large/more-detailed-caption',
};

export interface FalCaptionerOptions extends FalConnection {
  pollIntervalMs?: number;
  timeoutMs?: number;
}

function toProviderError(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof ApiError) {
    const kind = err.status >= 400 && err.status < 500 && err.status !== 429 ? 'rejected' : 'failed';
    return new ProviderError(`fal.ai answered ${err.status}: ${err.message}`, kind, err.status, err.body);
  }
  if (isAbort(err)) {
    return new ProviderError(
      'fal.ai did not finish the caption in time.',
      (err as Error).name === 'TimeoutError' ? 'timeout' : 'cancelled',
    );
  }
  return new ProviderError(`fal.ai caption failed: ${err instanceof Error ? err.message : String(err)}`, 'failed');
}

/**
 * Captions through fal's queue. Our media URLs are not public, so the bytes go to fal storage first and
 * the model reads them from there.
 */
export function createFalCaptioner(opts: FalCaptionerOptions): ImageCaptioner {
  const fal = falClient(opts);
  const timeoutMs = opts.timeoutMs ?? 120_000;

  return {
    name: 'fal',
    caption(input, callOpts = {}) {
      return withDeadline(timeoutMs, [callOpts.signal], async (signal) => {
        try {
          const ext = input.contentType.split('/')[1] ?? 'bin';
          const file = new File([new Uint8Array(input.image)], `caption-input.${ext}`, { type: input.contentType });
          const imageUrl = await fal.storage.upload(file);
          signal.throwIfAborted();
          const { data } = await fal.subscribe(FAL_CAPTION_ENDPOINTS[input.detail], {
            input: { image_url: imageUrl },
            pollInterval: opts.pollIntervalMs ?? 500,
            abortSignal: signal,
          });
          const results = (data as { results?: unknown }).results;
          if (typeof results !== 'string' || !results.trim()) {
            throw new ProviderError('fal.ai returned a caption without text.', 'failed', undefined, data);
          }
          return results.trim();
        } catch (err) {
          throw toProviderError(err);
        }
      });
    },
  };
}
