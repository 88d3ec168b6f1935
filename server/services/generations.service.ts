import { randomUUID } from 'node:crypto';
import {
  randomSeed,
  type GenerateImageResponse,
  type GeneratedImage,
  type GenerationRequest,
  type GenerationView,
} from '@common/generation.ts';
import { CREDIT_COSTS } from '@common/product.ts';
import type { Db } from '../db/index.ts';
import { AppError, conflict, forbidden } from '../http/errors.ts';
import type { Logger } from '../logger.ts';
import { ProviderError, type GenerateInput, type ImageGenerator, type ProviderImage } from '../providers/inference/index.ts';
import { mediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { generationsRepository as repo, type GenerationWithCharacter } from '../repositories/generations.repository.ts';
import { createKeyedQueue, createSemaphore } from './concurrency.ts';
import type { CreditsService } from './credits.service.ts';

const COST = CREDIT_COSTS.generation;
/** A provider call is abandoned (and refunded) after this. */
const PROVIDER_TIMEOUT_MS = 5 * 60_000;
/** A PENDING job older than this belongs to a dead request (its provider call has long timed out). */
export const JOB_STALE_MS = 2 * PROVIDER_TIMEOUT_MS;
const DOWNLOAD_TIMEOUT_MS = 60_000;
const MAX_IMAGE_BYTES = 32 * 1024 * 1024;
/** How often a request waits for the same user's generation running on another instance. */
const BUSY_RETRY_MS = 250;

/** The ledger key of a job's debit; its refund is keyed `refund:<this>` by the credits service. */
const debitKey = (jobId: string) => `generation:${jobId}`;

export interface GenerationsDeps {
  db: Db;
  credits: CreditsService;
  events: EventBus;
  storage: StorageProvider;
  generator: ImageGenerator;
  logger: Logger;
  /** Provider calls in flight at once on this instance (INFERENCE_CONCURRENCY). */
  concurrency: number;
}

export type GenerationsService = ReturnType<typeof createGenerationsService>;

type Character = NonNullable<Awaited<ReturnType<typeof repo.findUsableCharacter>>>;

/** Raised inside the start transaction when the user already has a generation running elsewhere. */
class UserBusy extends Error {}

const contentTypeOf = (format: string) => (format === 'png' ? 'image/png' : 'image/jpeg');
const extensionOf = (contentType: string, fallback: 'jpeg' | 'png') =>
  contentType === 'image/png' ? 'png' : contentType === 'image/jpeg' ? 'jpeg' : fallback;

/** The client view of a saved generation (spec §3). */
export function toGenerationView({ generation: g, character }: GenerationWithCharacter): GenerationView {
  const images: GeneratedImage[] = [
    { url: g.imageUrl, width: g.width, height: g.height, content_type: contentTypeOf(g.outputFormat) },
  ];
  const timestamp = g.createdAt.toISOString();
  return {
    id: g.id,
    result: { images, prompt: g.prompt, timestamp, style: g.style },
    params: {
      prompt: g.prompt,
      image_size: { width: g.width, height: g.height },
      loras: character?.loraFileUrl ? [{ path: character.loraFileUrl, scale: g.loraScale ?? 1 }] : [],
      seed: g.seed,
      num_inference_steps: g.numInferenceSteps,
      guidance_scale: g.guidanceScale,
      output_format: g.outputFormat,
    },
    timestamp,
    isFavorited: g.isFavorite,
    lora_trainings: character
      ? {
          id: character.id,
          character_name: character.characterName,
          trigger_word: character.triggerWord,
          lora_file_url: character.loraFileUrl,
        }
      : null,
  };
}

/** A failure after the debit, told to the user in words they can act on (the refund has happened by then). */
function userFacingError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ProviderError) {
    switch (err.kind) {
      case 'nsfw':
        return nsfwRejected();
      case 'timeout':
        return new AppError(504, 'generation_timeout', `Creating the image took too long. Your ${COST} credits were refunded; please try again.`);
      case 'rejected':
        return new AppError(422, 'generation_rejected', `The image service refused this request (${err.message}). Your ${COST} credits were refunded.`);
      default:
        break;
    }
  }
  return new AppError(502, 'generation_failed', `The image could not be created. Your ${COST} credits were refunded; please try again.`);
}

const nsfwRejected = () =>
  new AppError(
    422,
    'nsfw_content',
    `The image was flagged by the safety checker and was not saved. Your ${COST} credits were refunded; please try a different prompt.`,
  );

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

/**
 * The paid image pipeline: validate ownership, debit and record a job in one transaction, call the provider,
 * keep the images, save the generation; any failure after the debit refunds it exactly once.
 *
 * One generation at a time per user: an in-process queue per user orders this instance's requests without
 * touching the database; across instances, the start transaction (whose debit locks the user's row) refuses
 * to start while another PENDING job of the user is younger than JOB_STALE_MS, and the request waits and
 * retries. A session-level advisory lock would hold a pooled connection through the whole provider call
 * (seconds to minutes) for every running or waiting user and exhaust the pool under load; the job row is
 * written anyway for crash recovery, so it doubles as the cross-instance lock at no extra cost.
 */
export function createGenerationsService(deps: GenerationsDeps) {
  const { db, credits, events, storage, generator, logger } = deps;
  const perUser = createKeyedQueue();
  const providerSlots = createSemaphore(deps.concurrency);

  /**
   * One transaction: debit (which locks the user's row), check that no other job of theirs runs, write the
   * PENDING job. A busy user rolls the debit back with the rest.
   */
  async function startJob(userId: string, jobId: string, input: GenerateInput): Promise<void> {
    await db.transaction(async (tx) => {
      await credits.debit(userId, COST, 'Image generation', debitKey(jobId), tx);
      if (await repo.findRunningJob(tx, userId, new Date(Date.now() - JOB_STALE_MS))) throw new UserBusy();
      await repo.insertJob(tx, { id: jobId, userId, input, provider: generator.name });
    });
  }

  async function startJobWhenFree(userId: string, jobId: string, input: GenerateInput): Promise<void> {
    const deadline = Date.now() + PROVIDER_TIMEOUT_MS;
    for (;;) {
      try {
        return await startJob(userId, jobId, input);
      } catch (err) {
        if (!(err instanceof UserBusy)) throw err;
        if (Date.now() > deadline) throw conflict('Another image of yours is still being created. Please try again shortly.', 'generation_busy');
        await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
      }
    }
  }

  /** Marks the job FAILED and refunds its debit, both only if the job was still PENDING. */
  async function failJob(userId: string, jobId: string, reason: string): Promise<void> {
    await db.transaction(async (tx) => {
      if (await repo.finishJob(tx, jobId, { status: 'FAILED', error: reason.slice(0, 1000) })) {
        await credits.refund(userId, COST, 'Refund: image generation failed', debitKey(jobId), tx);
      }
    });
  }

  async function keepImages(userId: string, generationId: string, images: ProviderImage[], format: 'jpeg' | 'png') {
    const kept: { key: string; image: GeneratedImage }[] = [];
    try {
      for (const [i, image] of images.entries()) {
        const { data, contentType } = image.data
          ? { data: image.data, contentType: image.contentType }
          : await download(image.url ?? '');
        const name = i === 0 ? generationId : `${generationId}-${i}`;
        const key = `generations/${userId}/${name}.${extensionOf(contentType, format)}`;
        await storage.put(key, data, contentType);
        kept.push({ key, image: { url: mediaUrl(key), width: image.width, height: image.height, content_type: contentType } });
      }
      return kept;
    } catch (err) {
      await forget(kept.map((k) => k.key));
      throw err;
    }
  }

  async function forget(keys: string[]) {
    for (const key of keys) {
      await storage.delete(key).catch((err) => logger.warn({ err, key }, 'could not delete an unused generated image'));
    }
  }

  async function generate(userId: string, request: GenerationRequest, character: Character | undefined) {
    const jobId = randomUUID();
    const generationId = randomUUID();
    const seed = request.seed ?? randomSeed();
    const input: GenerateInput = {
      prompt: request.prompt,
      imageSize: request.image_size,
      loras: request.loras,
      seed,
      numInferenceSteps: request.num_inference_steps,
      guidanceScale: request.guidance_scale,
      outputFormat: request.output_format,
    };
    await startJobWhenFree(userId, jobId, input);

    let keptKeys: string[] = [];
    try {
      const output = await providerSlots.run(() => generator.generate(input, { signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) }));
      if (output.images.length === 0) throw new ProviderError('The provider returned no image', 'failed');
      if (output.images.some((image) => image.nsfw)) throw nsfwRejected();

      const kept = await keepImages(userId, generationId, output.images, request.output_format);
      keptKeys = kept.map((k) => k.key);
      const first = kept[0].image;
      const saved = await db.transaction(async (tx) => {
        const stillOurs = await repo.finishJob(tx, jobId, {
          status: 'SUCCEEDED',
          generationId,
          providerRequestId: output.providerRequestId,
        });
        // Recovery gave up on this job (and refunded it) while the provider was still working.
        if (!stillOurs) throw new AppError(504, 'generation_timeout', `Creating the image took too long. Your ${COST} credits were refunded; please try again.`);
        const row = await repo.insertGeneration(tx, {
          id: generationId,
          userId,
          prompt: request.prompt,
          width: first.width,
          height: first.height,
          outputFormat: extensionOf(first.content_type, request.output_format),
          imageUrl: first.url,
          loraId: character?.id ?? null,
          loraScale: character ? request.loras[0].scale : null,
          seed: String(output.seed ?? seed),
          numInferenceSteps: request.num_inference_steps,
          guidanceScale: request.guidance_scale,
          status: 'ACTIVE',
        });
        await events.publish(tx, userId, { type: 'generation', action: 'created', id: generationId });
        return row;
      });
      return {
        images: kept.map((k) => k.image),
        prompt: request.prompt,
        seed: Number(saved.seed),
        generation: toGenerationView({ generation: saved, character: character ?? null }),
      } satisfies GenerateImageResponse;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const known = err instanceof AppError || (err instanceof ProviderError && err.kind !== 'failed');
      if (known) logger.info({ jobId, userId, reason }, 'generation refused; refunding');
      else logger.error({ err, jobId, userId }, 'generation failed; refunding');
      await forget(keptKeys);
      await failJob(userId, jobId, reason).catch((refundErr) =>
        // The job stays PENDING and start-up recovery refunds it; nothing is lost.
        logger.error({ err: refundErr, jobId, userId }, 'refund failed; left for recovery'),
      );
      throw userFacingError(err);
    }
  }

  return {
    /** POST /api/image/generate-image for the caller. */
    async create(userId: string, request: GenerationRequest): Promise<GenerateImageResponse> {
      const lora = request.loras[0];
      const character = lora ? await repo.findUsableCharacter(db, userId, lora.path) : undefined;
      if (lora && !character) {
        throw forbidden('That character is not one of your completed trainings. Choose another character.', 'lora_not_allowed');
      }
      return perUser.run(userId, () => generate(userId, request, character));
    },

    async listRecent(userId: string, limit: number): Promise<GenerationView[]> {
      return (await repo.listRecent(db, userId, limit)).map(toGenerationView);
    },

    async listCharacters(userId: string) {
      return (await repo.listCharacters(db, userId)).map((c) => ({
        id: c.id,
        character_name: c.characterName,
        trigger_word: c.triggerWord,
        lora_file_url: c.loraFileUrl,
        gender: c.gender,
        hair_color: c.hairColor,
        created_at: c.createdAt.toISOString(),
      }));
    },

    /** Provider calls running now on this instance (health and tests). */
    inFlight: () => providerSlots.active,
  };
}

/**
 * Refunds and fails generation jobs left PENDING by a server that stopped mid-generation. With PGlite the
 * database belongs to this one process, so at start-up every PENDING job is an orphan (olderThanMs 0); with
 * Postgres other instances may be mid-call, so only jobs older than JOB_STALE_MS are taken.
 */
export async function recoverInterruptedGenerations(
  deps: { db: Db; credits: CreditsService; logger: Logger },
  opts: { olderThanMs: number },
): Promise<number> {
  const orphans = await repo.listPendingJobsBefore(deps.db, new Date(Date.now() - opts.olderThanMs));
  let refunded = 0;
  for (const job of orphans) {
    await deps.db.transaction(async (tx) => {
      if (!(await repo.finishJob(tx, job.id, { status: 'FAILED', error: 'Interrupted: the server stopped during the generation' }))) return;
      await deps.credits.refund(job.userId, COST, 'Refund: image generation interrupted', debitKey(job.id), tx);
      refunded++;
    });
  }
  if (refunded) deps.logger.warn({ refunded }, 'refunded interrupted generations');
  return refunded;
}
