import { randomUUID } from 'node:crypto';
import type { CaptionResponse } from '@common/captions.ts';
import { CREDIT_COSTS } from '@common/product.ts';
import { AppError, forbidden } from '../domain/errors.ts';
import type { Db } from '../db/index.ts';
import type { JobLeases } from '../repositories/job-leases.ts';
import { failPaidJob, startPaidJob, type PaidJob } from './paid-jobs.ts';
import type { Logger } from '../logger.ts';
import { generationsRepository as jobs } from '../repositories/generations.repository.ts';
import { ProviderError, type CaptionDetail, type ImageCaptioner } from '../providers/inference/index.ts';
import { keyFromMediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import type { CreditsService } from './credits.service.ts';
import { withDeadline } from '../domain/deadline.ts';
import { decodesWithinBudget } from '../domain/image-budget.ts';
import type { PhotoCheckService } from './photo-check.service.ts';
import type { UploadsService } from './uploads.service.ts';

const COST: Record<CaptionDetail, number> = { fast: CREDIT_COSTS.captionFast, detailed: CREDIT_COSTS.captionDetailed };
/** A caption that has not come back by then is abandoned and refunded. */
const CAPTION_TIMEOUT_MS = 60_000;

export interface CaptionsDeps {
  db: Db;
  credits: CreditsService;
  /** Each extraction is a paid job leased to this instance while the captioner works (server/jobs/paid-jobs.ts). */
  leases: JobLeases;
  uploads: UploadsService;
  storage: StorageProvider;
  captioner: ImageCaptioner;
  photoChecks: PhotoCheckService;
  logger: Logger;
}

export type CaptionsService = ReturnType<typeof createCaptionsService>;

const unreadableImage = () =>
  new AppError(422, 'unreadable_image', 'This image could not be read. Please upload a different JPG, PNG or WEBP file.');

const NOT_YOURS = 'You can only extract a prompt from an image you uploaded. Please upload the image again.';

/**
 * Prompt extraction (product §4, §7): the image must be one of the caller's own live uploads (the server never
 * fetches a URL it is given) and pass the NSFW classifier (a refused image is deleted at once, nothing is
 * charged); the credits are taken before the provider is called and given back exactly once if it fails — or,
 * if this instance dies meanwhile, by another one when the job's lease runs out.
 */
export function createCaptionsService(deps: CaptionsDeps) {
  return {
    async caption(userId: string, imageUrl: string, detail: CaptionDetail): Promise<CaptionResponse> {
      const key = keyFromMediaUrl(imageUrl);
      const upload = key ? await deps.uploads.findOwned(userId, key) : undefined;
      if (!upload || upload.kind !== 'image') throw forbidden(NOT_YOURS, 'not_your_upload');
      const image = await deps.storage.read(upload.storageKey);
      if (!image) throw forbidden(NOT_YOURS, 'not_your_upload');
      // A header can pass the uploader and the pixels behind it still be broken: found here, before charging,
      // whichever captioner would have been asked.
      if (!(await decodesWithinBudget(image))) throw unreadableImage();
      try {
        await deps.photoChecks.assertAllowed(image);
      } catch (err) {
        if (err instanceof AppError && err.code === 'image_not_allowed') {
          deps.logger.warn({ userId, uploadId: upload.id }, 'prompt extraction refused an NSFW image');
          await deps.uploads.discard(upload);
        }
        throw err;
      }

      const job: PaidJob = { id: randomUUID(), userId, kind: 'caption', cost: COST[detail] };
      await startPaidJob(
        deps.db,
        deps,
        { ...job, reason: `${detail} caption`, input: { detail, upload: upload.storageKey }, provider: deps.captioner.name },
        { oneAtATime: false },
      );
      deps.leases.hold('paid_call', job.id);
      try {
        const results = await withDeadline(CAPTION_TIMEOUT_MS, [], (signal) =>
          deps.captioner.caption({ image, contentType: upload.contentType, detail }, { signal }),
        );
        // Ended already: this instance lost the job's lease (it could not renew it) and another refunded it.
        if (!(await jobs.finishJob(deps.db, job.id, { status: 'SUCCEEDED' })))
          throw new ProviderError('the job was refunded meanwhile', 'timeout');
        return { results };
      } catch (err) {
        deps.logger.warn({ err, userId, detail, provider: deps.captioner.name }, 'caption failed; refunding');
        await failPaidJob(deps, job, err instanceof Error ? err.message : String(err), `${detail} caption failed`).catch(
          (refundErr: unknown) =>
            // The job stays PENDING; its lease runs out and refundAbandonedJobs refunds it. Nothing is lost.
            deps.logger.error({ err: refundErr, jobId: job.id, userId }, 'refund failed; left for recovery'),
        );
        if (err instanceof ProviderError && err.kind === 'rejected' && deps.captioner.name === 'builtin') throw unreadableImage();
        if (err instanceof ProviderError && err.kind === 'timeout') {
          throw new AppError(504, 'caption_timeout', 'Extracting the prompt took too long. Your credits were refunded; please try again.');
        }
        throw new AppError(502, 'caption_failed', 'The prompt could not be extracted. Your credits were refunded; please try again.');
      } finally {
        deps.leases.drop('paid_call', job.id);
      }
    },
  };
}
