import { randomUUID } from 'node:crypto';
import {
  randomSeed,
  toGenerationView as generationViewOf,
  type GenerateImageResponse,
  type GeneratedImage,
  type GenerationRequest,
  type GenerationView,
} from '@common/generation.ts';
import { CREDIT_COSTS } from '@common/product.ts';
import type { Database, Db } from '../db/index.ts';
import { AppError, conflict, forbidden } from '../domain/errors.ts';
import type { JobLeases } from '../repositories/job-leases.ts';
import { failPaidJob, recordPaidJob, type PaidJob } from './paid-jobs.ts';
import type { Logger } from '../logger.ts';
import type { GenerationOutcome, Metrics } from '../ops/metrics.ts';
import { ProviderError, type GenerateInput, type ImageGenerator, type ProviderImage } from '../providers/inference/index.ts';
import { mediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { generationsRepository as repo, type GenerationWithCharacter } from '../repositories/generations.repository.ts';
import { createKeyedQueue, createSemaphore } from './concurrency.ts';
import type { CreditsService } from './credits.service.ts';

const COST = CREDIT_COSTS.generation;
/** A provider call is abandoned (and refunded) after this. */
const PROVIDER_TIMEOUT_MS = 5 * 60_000;
const DOWNLOAD_TIMEOUT_MS = 60_000;
const MAX_IMAGE_BYTES = 32 * 1024 * 1024;
/** How often a request waits for the same user's generation running on another instance. */
const BUSY_RETRY_MS = 250;

export interface GenerationsDeps {
  db: Db;
  credits: CreditsService;
  events: EventBus;
  storage: StorageProvider;
  generator: ImageGenerator;
  logger: Logger;
  metrics: Metrics;
  /** Each job is leased to this instance while it runs (docs/decisions/009-job-leases.md). */
  leases: JobLeases;
  /** Tells whether the instance holding another job of the user still runs. */
  isInstanceAlive: Database['isInstanceAlive'];
  /** Provider calls in flight at once on this instance (INFERENCE_CONCURRENCY). */
  concurrency: number;
}

export type GenerationsService = ReturnType<typeof createGenerationsService>;

type Character = NonNullable<Awaited<ReturnType<typeof repo.findUsableCharacter>>>;

/** Raised inside the start transaction when the user already has a generation running elsewhere. */
class UserBusy extends Error {}

const unavailableWhileStopping = () =>
  new AppError(503, 'server_restarting', 'The server is restarting. Nothing was charged; please try again in a moment.');

const extensionOf = (contentType: string, fallback: 'jpeg' | 'png') =>
  contentType === 'image/png' ? 'png' : contentType === 'image/jpeg' ? 'jpeg' : fallback;

/** The client view of a saved generation (spec §3), built by the rule both modes share. */
export function toGenerationView({ generation: g, character }: GenerationWithCharacter): GenerationView {
  return generationViewOf({
    id: g.id,
    prompt: g.prompt,
    style: g.style,
    width: g.width,
    height: g.height,
    output_format: g.outputFormat,
    image_url: g.imageUrl,
    lora_scale: g.loraScale,
    seed: g.seed,
    num_inference_steps: g.numInferenceSteps,
    guidance_scale: g.guidanceScale,
    is_favorite: g.isFavorite,
    created_at: g.createdAt.toISOString(),
    lora_trainings: character
      ? { id: character.id, character_name: character.characterName, trigger_word: character.triggerWord, lora_file_url: character.loraFileUrl }
      : null,
  });
}

/** Raised into a generation cut short because this instance is shutting down. */
class ShuttingDown extends Error {}

/** A failure after the debit, told to the user in words they can act on (the refund has happened by then). */
function userFacingError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ShuttingDown) {
    return new AppError(503, 'server_restarting', `The server restarted while creating your image. Your ${COST} credits were refunded; please try again.`);
  }
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

/** The metric outcome of a refunded generation. */
function refundOutcome(err: unknown): GenerationOutcome {
  if (err instanceof AppError && err.code === 'nsfw_content') return 'nsfw';
  if (err instanceof ProviderError && err.kind === 'timeout') return 'timeout';
  return 'refunded';
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
 * to start while another PENDING job of the user is held by a running instance, and the request waits and
 * retries. A job whose instance died holds nobody up: its owner's session with the database is gone at once,
 * and its lease runs out within JOB_LEASE_SECONDS, when any instance refunds it (refundAbandonedJobs).
 * A session-level advisory lock per user would hold a pooled connection through the whole provider call
 * for every running or waiting user and exhaust the pool under load; the job row is written anyway for
 * recovery, so it doubles as the cross-instance lock at no extra cost.
 */
export function createGenerationsService(deps: GenerationsDeps) {
  const { db, events, storage, generator, logger, metrics, leases } = deps;
  const perUser = createKeyedQueue();
  const providerSlots = createSemaphore(deps.concurrency);
  /** Aborted at the end of a shutdown's grace period: generations still running are refunded. */
  const shutdown = new AbortController();
  let waiting = 0;

  /**
   * One transaction: debit (which locks the user's row), check that no other job of theirs runs on a live
   * instance, write the PENDING job leased to this instance. A busy user rolls the debit back with the rest.
   */
  async function startJob(job: PaidJob, input: GenerateInput): Promise<void> {
    await db.transaction(async (tx) => {
      await recordPaidJob(tx, deps, { ...job, reason: 'Image generation', input, provider: generator.name });
      for (const other of await repo.listHeldGenerations(tx, job.userId)) {
        if (other.id !== job.id && other.leaseOwner && (await deps.isInstanceAlive(tx, other.leaseOwner))) throw new UserBusy();
      }
    });
    leases.hold('paid_call', job.id);
  }

  async function startJobWhenFree(job: PaidJob, input: GenerateInput): Promise<void> {
    const deadline = Date.now() + PROVIDER_TIMEOUT_MS;
    for (;;) {
      try {
        return await startJob(job, input);
      } catch (err) {
        if (!(err instanceof UserBusy)) throw err;
        if (Date.now() > deadline) throw conflict('Another image of yours is still being created. Please try again shortly.', 'generation_busy');
        if (shutdown.signal.aborted) throw unavailableWhileStopping();
        await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
      }
    }
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

  /** Counts a request as waiting until the returned function is called (once or more). */
  function waitingTicket(): () => void {
    waiting++;
    let open = true;
    return () => {
      if (open) waiting--;
      open = false;
    };
  }

  async function generate(userId: string, request: GenerationRequest, character: Character | undefined, started: () => void) {
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
    const job: PaidJob = { id: jobId, userId, kind: 'generation', cost: COST };
    await startJobWhenFree(job, input);

    let keptKeys: string[] = [];
    try {
      const output = await providerSlots.run(async () => {
        started();
        if (shutdown.signal.aborted) throw new ShuttingDown('the server is shutting down');
        const began = performance.now();
        try {
          return await generator.generate(input, { signal: AbortSignal.any([AbortSignal.timeout(PROVIDER_TIMEOUT_MS), shutdown.signal]) });
        } catch (err) {
          throw shutdown.signal.aborted ? new ShuttingDown('the server shut down during the generation') : err;
        } finally {
          metrics.providerCall(generator.name, (performance.now() - began) / 1000);
        }
      });
      if (output.images.length === 0) throw new ProviderError('The provider returned no image', 'failed');
      if (output.images.some((image) => image.nsfw)) throw nsfwRejected();

      const kept = await keepImages(userId, generationId, output.images, request.output_format);
      keptKeys = kept.map((k) => k.key);
      const first = kept[0].image;
      // The job's end, the row and its event: one statement, so one transaction (and one round trip).
      const saved = await repo.finishWithGeneration(
        db,
        { id: jobId, providerRequestId: output.providerRequestId },
        {
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
        },
        events.notification(userId, { type: 'generation', action: 'created', id: generationId }),
      );
      // Recovery gave up on this job (and refunded it) while the provider was still working.
      if (!saved) throw new AppError(504, 'generation_timeout', `Creating the image took too long. Your ${COST} credits were refunded; please try again.`);
      metrics.generationEnded('stored');
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
      await failPaidJob(deps, job, reason, 'Refund: image generation failed').then(
        (refunded) => refunded && metrics.generationEnded(refundOutcome(err)),
        // The job stays PENDING; its lease runs out and refundAbandonedJobs refunds it. Nothing is lost.
        (refundErr: unknown) => logger.error({ err: refundErr, jobId, userId }, 'refund failed; left for recovery'),
      );
      throw userFacingError(err);
    } finally {
      leases.drop('paid_call', jobId);
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
      const started = waitingTicket();
      try {
        return await perUser.run(userId, () => generate(userId, request, character, started));
      } finally {
        started();
      }
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
    /** Requests waiting for a provider slot here, or for the same user's previous generation. */
    waiting: () => waiting,
    /**
     * Shutdown, once the grace period is over: generations still running are cut short and refunded (their
     * callers get a clear message), and waiting ones are refused.
     */
    abortAll() {
      shutdown.abort();
    },
  };
}
