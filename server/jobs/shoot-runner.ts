import { GENERATION_DEFAULTS, SEED_LIMIT } from '@common/generation.ts';
import { keepRetake, needsRetake, retakeCap, type LikenessScore } from '@common/likeness.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import { AppError } from '../domain/errors.ts';
import { ProviderError } from '../providers/inference/index.ts';
import { shootsRepository as repo, type ShootPhotoRow } from '../repositories/shoots.repository.ts';
import { likenessRepository as likenessRepo } from '../repositories/likeness.repository.ts';
import { isShutdownInterruption, type ShootPhotos, type TakenPhoto } from './shoot-photo.ts';
import type { LikenessService } from '../services/likeness.service.ts';
import { retakeImageName } from '../services/media.service.ts';
import type { ShootsService } from '../services/shoots.service.ts';
import type { JobLeases } from '../repositories/job-leases.ts';
import { createLeasedRunner } from './leased-runner.ts';

/**
 * The photo-shoot runner. Each photo of a shoot is a durable leased row of shoot_photos
 * (docs/decisions/009-job-leases.md): every instance's runner claims queued photos (and running ones whose
 * lease ran out: their instance died) up to its free inference slots, renews their leases while it renders
 * them through the generations service's provider path (the same slots single generations use, handed out
 * in turn per user), and ends each photo once: SUCCEEDED with its generation, or FAILED and refunded (a photo a
 * cancel ended while it waited for its slot is let go unrendered: the cancel refunded it).
 */
export interface ShootRunnerDeps {
  db: Db;
  leases: JobLeases;
  /** Takes and saves each photo (shoot-photo.ts). */
  generations: ShootPhotos;
  shoots: ShootsService;
  logger: Logger;
  /** INFERENCE_CONCURRENCY: photos held by this instance at once. */
  concurrency: number;
  /** How often the runner looks for queued photos (it is also woken by a new shoot and by each photo's end). */
  pollIntervalMs: number;
  /** Scores each photo against its character's face and decides its re-take; absent: photos are kept unscored. */
  likeness?: Pick<LikenessService, 'referenceOf' | 'score'>;
}

/** A re-take's seed: another one, derived from the photo's so a retried re-take renders the same image. */
const retakeSeed = (seed: number) => (seed + 7_919) % SEED_LIMIT;

export interface ShootRunner {
  start(): void;
  wake(): void;
  /** Photos this instance is rendering now. */
  running(): number;
  /** Stops claiming, cuts photos in flight short and gives them back to the queue (another instance takes them). */
  close(): Promise<void>;
}

/** A photo claimed this many times without ending (its instance kept dying on it) is failed and refunded. */
export const MAX_PHOTO_ATTEMPTS = 3;

/**
 * A failure in fixed words for the shoot page (the refund has happened by then). The provider's own message
 * (an HTTP status, "check FAL_KEY") is for the server's log only: product §8, server-side error details are
 * never shown.
 */
function photoError(err: unknown): string {
  const flagged = (err instanceof AppError && err.code === 'nsfw_content') || (err instanceof ProviderError && err.kind === 'nsfw');
  if (flagged) return 'Flagged by the safety checker; refunded.';
  if (err instanceof ProviderError && err.kind === 'timeout') return 'The image service took too long; refunded.';
  if (err instanceof ProviderError && err.kind === 'rejected') return 'The image service refused this photo; refunded.';
  return 'This photo could not be made; refunded.';
}

/** Raised by a photo's `started` hook when a cancel ended the photo while it waited for its render slot. */
class CancelledWhileWaiting extends Error {}

export function createShootRunner(deps: ShootRunnerDeps): ShootRunner {
  const { db, leases, generations, shoots, logger } = deps;

  async function fail(photo: ShootPhotoRow, reason: string, err?: unknown) {
    if (err) logger.warn({ err, photoId: photo.id, shootId: photo.shootId }, 'shoot photo failed; refunding');
    await shoots.photoFailed(photo, reason);
  }

  /** The likeness of an image, or null when the check could not run (the checker scores it later). */
  async function scoreOf(image: TakenPhoto, reference: number[], photo: ShootPhotoRow): Promise<LikenessScore | null> {
    try {
      return await deps.likeness!.score(image.data, reference);
    } catch (err) {
      logger.warn({ err, photoId: photo.id }, 'likeness check of a shoot photo failed; it is scored later');
      return null;
    }
  }

  /**
   * The likeness check of a landed photo, and its one re-take (product: a shoot re-takes the misses): a photo
   * judged weak or faceless is taken again with a new seed, at no charge, while the shoot has re-takes left
   * (⌈N/4⌉); the better of the two by score is kept (the caller deletes the other's file: `taken` gets the
   * re-take). A re-take that fails or is refused keeps the first photo. Without a reference (or a likeness
   * service) the photo is kept unscored.
   */
  async function review(
    photo: ShootPhotoRow,
    photoCount: number,
    characterId: string,
    first: TakenPhoto,
    hooks: { signal: AbortSignal; started(): Promise<void> },
    taken: TakenPhoto[],
  ): Promise<{ kept: TakenPhoto; score: LikenessScore | null }> {
    const reference = deps.likeness ? await deps.likeness.referenceOf(characterId).catch(() => null) : null;
    if (!reference) return { kept: first, score: null };
    const score = await scoreOf(first, reference, photo);
    if (!needsRetake(score)) return { kept: first, score };
    const granted = await db.transaction((tx) => likenessRepo.claimRetake(tx, photo.id, photo.shootId, retakeCap(photoCount)));
    if (!granted) return { kept: first, score };
    let again: TakenPhoto;
    try {
      again = await generations.takePhoto(
        { userId: photo.userId, name: retakeImageName(photo.id), input: { ...first.input, seed: retakeSeed(photo.seed) } },
        { ...hooks, started: async () => undefined },
      );
    } catch (err) {
      if (isShutdownInterruption(err) || hooks.signal.aborted) throw err;
      logger.info({ err, photoId: photo.id }, 'a likeness re-take failed; the first photo is kept');
      await likenessRepo.releaseRetake(db, photo.id, photo.shootId);
      return { kept: first, score };
    }
    taken.push(again);
    const second = await scoreOf(again, reference, photo);
    logger.info({ photoId: photo.id, first: score, retake: second }, 'shoot photo re-taken for likeness');
    return keepRetake(score, second) ? { kept: again, score: second } : { kept: first, score };
  }

  /**
   * Deletes the images this run stored that the photo does not show. `shown` is the image this run saved;
   * without one (another instance's save of the same photo won, or the photo failed or is gone) it is the image
   * the photo's row shows, if any: the photo's images have fixed keys, so the winner's may be one of ours and
   * must stay.
   */
  async function forgetUnshown(photo: ShootPhotoRow, taken: TakenPhoto[], shown?: TakenPhoto) {
    if (taken.length === 0) return;
    const shownUrl = shown ? shown.image.url : await repo.keptImageUrl(db, photo.id);
    await generations.forget([...new Set(taken.filter((t) => t.image.url !== shownUrl).map((t) => t.key))]);
  }

  async function run(photo: ShootPhotoRow, stop: AbortSignal): Promise<void> {
    const taken: TakenPhoto[] = [];
    try {
      if (photo.attempts > MAX_PHOTO_ATTEMPTS) return await fail(photo, 'This photo was interrupted too many times; refunded.');
      const shoot = await repo.findShoot(db, photo.shootId);
      const character = shoot?.loraId ? await repo.findCharacter(db, shoot.loraId) : undefined;
      if (!shoot || !character || character.status !== 'COMPLETED' || !character.loraFileUrl) {
        return await fail(photo, 'The character is no longer available; refunded.');
      }
      const input = {
        prompt: photo.prompt,
        imageSize: { width: photo.width, height: photo.height },
        loras: [{ path: character.loraFileUrl, scale: GENERATION_DEFAULTS.loraScale }],
        seed: photo.seed,
        numInferenceSteps: GENERATION_DEFAULTS.numInferenceSteps,
        guidanceScale: GENERATION_DEFAULTS.guidanceScale,
        outputFormat: 'jpeg' as const,
      };
      const hooks = {
        signal: stop,
        // Checked when the photo gets its render slot: a cancel while it waited has ended and refunded it.
        started: async () => {
          if (!(await repo.markStarted(db, photo.id))) throw new CancelledWhileWaiting();
        },
      };
      const first = await generations.takePhoto({ userId: photo.userId, name: photo.id, input }, hooks);
      taken.push(first);
      const { kept, score } = await review(photo, shoot.photoCount, character.id, first, hooks, taken);
      const saved = await generations.savePhoto(
        {
          userId: photo.userId,
          generationId: photo.id,
          shootId: photo.shootId,
          loraId: character.id,
          loraScale: GENERATION_DEFAULTS.loraScale,
        },
        kept,
        score,
        (tx, imageUrl) => shoots.photoSucceeded(tx, photo, imageUrl),
      );
      // The loser of a re-take is never shown; nor is anything of a photo another instance saved first (but
      // its own image, which may have our key) or whose shoot was deleted meanwhile.
      await forgetUnshown(photo, taken, saved ? kept : undefined);
    } catch (err) {
      if (err instanceof CancelledWhileWaiting) {
        logger.info({ photoId: photo.id, shootId: photo.shootId }, 'shoot photo cancelled while it waited for a render slot');
        return;
      }
      if (isShutdownInterruption(err) || stop.aborted) {
        // Not the photo's fault: back to the queue for whichever instance claims it next.
        await repo
          .requeue(db, photo.id)
          .catch((e: unknown) => logger.warn({ err: e, photoId: photo.id }, 'could not requeue a photo; its lease runs out'));
        return;
      }
      try {
        await fail(photo, photoError(err), err);
      } catch (e) {
        // The photo stays RUNNING; its lease runs out and it is tried again (or failed after MAX_PHOTO_ATTEMPTS).
        logger.error({ err: e, photoId: photo.id }, 'could not record a failed shoot photo; it will be tried again');
        return;
      }
      // Images taken before the failure (a save that threw) are shown by nobody, unless another instance saved them.
      await forgetUnshown(photo, taken).catch((e: unknown) =>
        logger.warn({ err: e, photoId: photo.id }, 'could not delete the images of a failed shoot photo'),
      );
    }
  }

  const runner = createLeasedRunner({
    kind: 'shoot_photo',
    logger,
    leases,
    concurrency: deps.concurrency,
    pollMs: deps.pollIntervalMs,
    claim: (limit) => repo.claimPhotos(db, leases.claim(), limit),
    keyOf: (photo) => photo.id,
    work: run,
    // run() ends every photo it was given (landed, failed and refunded, or put back in the queue).
    afterWork: 'drop',
    failed: 'shoot photo run failed; its lease runs out and it is tried again',
    // Photos in flight are cut short and go back to the queue for another instance.
    abortOnClose: true,
  });

  return {
    start: runner.start,
    wake: runner.wake,
    running: runner.running,
    close: runner.close,
  };
}
