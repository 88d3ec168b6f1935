import { randomUUID } from 'node:crypto';
import type { CaptionResponse } from '@common/captions.ts';
import { CREDIT_COSTS } from '@common/product.ts';
import { AppError, forbidden } from '../http/errors.ts';
import type { Logger } from '../logger.ts';
import { ProviderError, type CaptionDetail, type ImageCaptioner } from '../providers/inference/index.ts';
import { keyFromMediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import type { CreditsService } from './credits.service.ts';
import type { UploadsService } from './uploads.service.ts';

const COST: Record<CaptionDetail, number> = { fast: CREDIT_COSTS.captionFast, detailed: CREDIT_COSTS.captionDetailed };
/** A caption that has not come back by then is abandoned and refunded. */
const CAPTION_TIMEOUT_MS = 60_000;

export interface CaptionsDeps {
  credits: CreditsService;
  uploads: UploadsService;
  storage: StorageProvider;
  captioner: ImageCaptioner;
  logger: Logger;
}

export type CaptionsService = ReturnType<typeof createCaptionsService>;

const NOT_YOURS = 'You can only extract a prompt from an image you uploaded. Please upload the image again.';

/**
 * Prompt extraction (spec §4, §7): the image must be one of the caller's own live uploads (the server never
 * fetches a URL it is given), the credits are taken before the provider is called and given back exactly
 * once if it fails.
 */
export function createCaptionsService(deps: CaptionsDeps) {
  return {
    async caption(userId: string, imageUrl: string, detail: CaptionDetail): Promise<CaptionResponse> {
      const key = keyFromMediaUrl(imageUrl);
      const upload = key ? await deps.uploads.findOwned(userId, key) : undefined;
      if (!upload || upload.kind !== 'image') throw forbidden(NOT_YOURS, 'not_your_upload');
      const image = await deps.storage.read(upload.storageKey);
      if (!image) throw forbidden(NOT_YOURS, 'not_your_upload');

      const cost = COST[detail];
      const debitKey = `caption:${randomUUID()}`;
      await deps.credits.debit(userId, cost, `${detail} caption`, debitKey);
      try {
        const results = await deps.captioner.caption(
          { image, contentType: upload.contentType, detail },
          { signal: AbortSignal.timeout(CAPTION_TIMEOUT_MS) },
        );
        return { results };
      } catch (err) {
        await deps.credits.refund(userId, cost, `${detail} caption failed`, debitKey);
        deps.logger.warn({ err, userId, detail, provider: deps.captioner.name }, 'caption failed; credits refunded');
        if (err instanceof ProviderError && err.kind === 'rejected' && deps.captioner.name === 'builtin') {
          throw new AppError(422, 'unreadable_image', 'This image could not be read. Please upload a different JPG, PNG or WEBP file.');
        }
        if (err instanceof ProviderError && err.kind === 'timeout') {
          throw new AppError(504, 'caption_timeout', 'Extracting the prompt took too long. Your credits were refunded; please try again.');
        }
        throw new AppError(502, 'caption_failed', 'The prompt could not be extracted. Your credits were refunded; please try again.');
      }
    },
  };
}
