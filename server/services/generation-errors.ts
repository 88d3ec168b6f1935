import { upscaleTooLargeMessage, type UpscaleFactor } from '@common/finishing.ts';
import { CREDIT_COSTS } from '@common/product.ts';
import { AppError, notFound } from '../domain/errors.ts';
import type { GenerationOutcome } from '../ops/metrics.ts';
import { ProviderError } from '../providers/inference/index.ts';

/**
 * What a paid image call tells its user when it cannot go on: fixed words they can act on, with the refund
 * they got. The provider's own message (an HTTP status, "check FAL_KEY") only goes to the log: product §8,
 * server-side error details are never shown.
 */

/** What a paid image call is, in the words its messages use. */
export interface PaidWork {
  cost: number;
  /** 'creating', 'upscaling', 'editing'. */
  doing: string;
  /** 'created', 'upscaled', 'edited'. */
  done: string;
}

export const GENERATION_WORK: PaidWork = { cost: CREDIT_COSTS.generation, doing: 'creating', done: 'created' };

/** Raised into a generation cut short because this instance is shutting down. */
export class ShuttingDown extends Error {}
/** True for a call cut short by this instance shutting down (a shoot photo is then taken over, not refunded). */
export const isShutdownInterruption = (err: unknown) => err instanceof ShuttingDown;

export const unavailableWhileStopping = () =>
  new AppError(503, 'server_restarting', 'The server is restarting. Nothing was charged; please try again in a moment.');

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export const timedOut = (work: PaidWork) =>
  new AppError(
    504,
    'generation_timeout',
    `${capitalised(work.doing)} the image took too long. Your ${work.cost} credits were refunded; please try again.`,
  );

export const nsfwRejected = (work: PaidWork) =>
  new AppError(
    422,
    'nsfw_content',
    `The image was flagged by the safety checker and was not saved. Your ${work.cost} credits were refunded; please try a different prompt.`,
  );

/** A failure after the debit, told to the user in words they can act on (the refund has happened by then). */
export function userFacingError(err: unknown, work: PaidWork): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ShuttingDown) {
    return new AppError(
      503,
      'server_restarting',
      `The server restarted while ${work.doing} your image. Your ${work.cost} credits were refunded; please try again.`,
    );
  }
  if (err instanceof ProviderError) {
    switch (err.kind) {
      case 'nsfw':
        return nsfwRejected(work);
      case 'timeout':
        return timedOut(work);
      case 'rejected':
        return new AppError(422, 'generation_rejected', `The image service refused this request. Your ${work.cost} credits were refunded.`);
      default:
        break;
    }
  }
  return new AppError(
    502,
    'generation_failed',
    `The image could not be ${work.done}. Your ${work.cost} credits were refunded; please try again.`,
  );
}

/** The metric outcome of a refunded generation. */
export function refundOutcome(err: unknown): GenerationOutcome {
  if (err instanceof AppError && err.code === 'nsfw_content') return 'nsfw';
  if (err instanceof ProviderError && err.kind === 'timeout') return 'timeout';
  return 'refunded';
}

/** The one answer for "not yours", "deleted" and "never existed", so ids of other users cannot be probed. */
export const noSuchSource = () => notFound('That image is not one of your generations, or it was deleted.');

export const upscaleTooLarge = (width: number, height: number, factor: UpscaleFactor) =>
  new AppError(422, 'upscale_too_large', upscaleTooLargeMessage(width, height, factor));

/**
 * A source whose stored file is gone (a file lost while its row stayed), found after the debit: the caller
 * refunds it, and the message says so.
 */
export const sourceMissing = (work: PaidWork, action: string) =>
  new AppError(
    410,
    'source_missing',
    `The original file of this image is no longer stored, so it cannot be ${action}. Your ${work.cost} credits were refunded.`,
  );
