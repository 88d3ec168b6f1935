import type { LikenessScore } from '@common/likeness.ts';
import type { Db, Executor } from '../db/index.ts';
import type { Metrics } from '../ops/metrics.ts';
import { ProviderError, type GenerateInput, type ImageGenerator } from '../providers/inference/index.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { generationsRepository as repo } from '../repositories/generations.repository.ts';
import { extensionOf, type KeptImage } from '../services/generated-images.ts';
import { GENERATION_WORK, isShutdownInterruption, nsfwRejected } from '../services/generation-errors.ts';
import type { PaidCallRunner } from '../services/paid-jobs.ts';

export { isShutdownInterruption };

/** A shoot photo taken and stored, not yet a generation. */
export interface TakenPhoto extends KeptImage {
  input: GenerateInput;
  seed: number;
}

export type ShootPhotos = ReturnType<typeof createShootPhotos>;

/**
 * Rendering one photo of a photo shoot for the shoot runner: through the same provider path as create-image
 * (the instance's provider slots taken in turn per user, the deadline and shutdown, the safety check, the
 * stored copy), then saved as the photo's generation. The shoot's credits were taken when it was booked; the
 * runner refunds a photo that fails.
 */
export function createShootPhotos(deps: {
  db: Db;
  events: EventBus;
  metrics: Metrics;
  generator: ImageGenerator;
  runner: Pick<PaidCallRunner, 'inSlot' | 'images'>;
}) {
  const { db, events, metrics, generator, runner } = deps;

  /**
   * One photo stored under `generations/<user>/<name>`: the image, not yet a generation. Provider failures and
   * a flagged image throw (the caller refunds, or keeps the first photo of a re-take).
   */
  async function takePhoto(
    photo: { userId: string; name: string; input: GenerateInput },
    hooks: { started(): Promise<void>; signal?: AbortSignal },
  ): Promise<TakenPhoto> {
    const { userId, input } = photo;
    const output = await runner.inSlot(userId, generator.name, hooks.started, (opts) => generator.generate(input, opts), hooks.signal);
    if (output.images.length === 0) throw new ProviderError('The provider returned no image', 'failed');
    if (output.images.some((image) => image.nsfw)) throw nsfwRejected(GENERATION_WORK);
    const [kept] = await runner.images.keep(userId, photo.name, output.images.slice(0, 1), input.outputFormat);
    return { ...kept, input, seed: output.seed ?? input.seed };
  }

  /**
   * Saves a taken photo as the shoot photo's generation (id `generationId`, with its likeness) in one
   * transaction with `finish` (which ends the photo's job); null when `finish` says the photo had ended
   * already (another instance took it over and finished first; its image has the same key, so nothing is
   * deleted here).
   */
  async function savePhoto(
    photo: { userId: string; generationId: string; shootId: string; loraId: string | null; loraScale: number | null },
    taken: TakenPhoto,
    likeness: LikenessScore | null,
    finish: (tx: Executor, imageUrl: string) => Promise<boolean>,
  ) {
    const { userId, generationId } = photo;
    const { input } = taken;
    const saved = await db.transaction(async (tx) => {
      if (!(await finish(tx, taken.image.url))) return null;
      const row = await repo.insertGeneration(tx, {
        id: generationId,
        userId,
        prompt: input.prompt,
        width: taken.image.width,
        height: taken.image.height,
        outputFormat: extensionOf(taken.image.content_type, input.outputFormat),
        imageUrl: taken.image.url,
        loraId: photo.loraId,
        loraScale: photo.loraScale,
        seed: String(taken.seed),
        numInferenceSteps: input.numInferenceSteps,
        guidanceScale: input.guidanceScale,
        status: 'ACTIVE',
        shootId: photo.shootId,
        likeness: likeness?.likeness ?? null,
        likenessVerdict: likeness?.verdict ?? null,
      });
      await events.publish(tx, userId, { type: 'generation', action: 'created', id: generationId });
      return row;
    });
    if (saved) metrics.generationEnded('stored');
    return saved;
  }

  return {
    takePhoto,
    savePhoto,
    /** Deletes stored images that will never be shown (a re-take's loser, a photo of a deleted shoot). */
    forget: runner.images.forget,
  };
}
