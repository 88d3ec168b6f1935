import { randomUUID } from 'node:crypto';
import {
  randomSeed,
  toGenerationView as generationViewOf,
  type GenerateImageResponse,
  type GeneratedImage,
  type GenerationRequest,
  type GenerationView,
} from '@common/generation.ts';
import {
  UPSCALE_COSTS,
  upscaledSize,
  upscaleSourceMaxSide,
  upscaleTooLargeMessage,
  type EditRequest,
  type UpscaleFactor,
  type UpscaleRequest,
} from '@common/finishing.ts';
import type { LikenessScore } from '@common/likeness.ts';
import { CREDIT_COSTS } from '@common/product.ts';
import type { Db, Executor } from '../db/index.ts';
import { accountDeleted, AppError, conflict, notFound } from '../domain/errors.ts';
import type { JobLeases } from '../repositories/job-leases.ts';
import { failPaidJob, startPaidJob, type PaidJob } from './paid-jobs.ts';
import type { Logger } from '../logger.ts';
import type { GenerationOutcome, Metrics } from '../ops/metrics.ts';
import {
  ProviderError,
  type CallOptions,
  type GenerateInput,
  type GenerateOutput,
  type ImageFinisher,
  type ImageGenerator,
  type ProviderImage,
  type SourceImage,
} from '../providers/inference/index.ts';
import { keyFromMediaUrl, mediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import {
  generationsRepository as repo,
  type GenerationWithCharacter,
  type NewGenerationRow,
} from '../repositories/generations.repository.ts';
import { usersRepository } from '../repositories/users.repository.ts';
import { withDeadline } from '../domain/deadline.ts';
import { createFairSemaphore, createKeyedQueue, type FairSemaphore } from './concurrency.ts';
import { requireUsableCharacter } from './characters.service.ts';
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
  /** Upscales and edits, on the same engine as the generator. */
  finisher: ImageFinisher;
  logger: Logger;
  metrics: Metrics;
  /** Each job is leased to this instance while it runs (docs/decisions/009-job-leases.md). */
  leases: JobLeases;
  /** Provider calls in flight at once on this instance (INFERENCE_CONCURRENCY). */
  concurrency: number;
  /**
   * The instance's provider slots, shared with the photo-shoot runner so a shoot and single generations take
   * turns (one per user in turn); made here when absent.
   */
  slots?: FairSemaphore;
  /** Tells the likeness checker that an image made with a character landed (it also finds it by polling). */
  likenessDue?(): void;
}

export type GenerationsService = ReturnType<typeof createGenerationsService>;

type Character = Awaited<ReturnType<typeof requireUsableCharacter>>;

/** What a paid call's start records and checks. */
interface PaidStart {
  work: PaidWork;
  reason: string;
  refundReason: string;
  /** What the job row records (never image bytes). */
  jobInput: unknown;
  provider: string;
  /** An upscale's or edit's source, read by the start (refused there when not the user's, or too large). */
  source?: { id: string; upscaleFactor?: UpscaleFactor };
}

/** What a paid call does once its debit is written: the call, and the generation row it saves. */
interface PaidCall {
  outputFormat: 'jpeg' | 'png';
  call: (opts: CallOptions) => Promise<GenerateOutput>;
  /** The row's fields besides its id, owner, image and size. */
  row: (output: GenerateOutput) => Omit<NewGenerationRow, 'id' | 'userId' | 'width' | 'height' | 'outputFormat' | 'imageUrl' | 'status'>;
  character: Character | null;
}

const unavailableWhileStopping = () =>
  new AppError(503, 'server_restarting', 'The server is restarting. Nothing was charged; please try again in a moment.');

const extensionOf = (contentType: string, fallback: 'jpeg' | 'png') =>
  contentType === 'image/png' ? 'png' : contentType === 'image/jpeg' ? 'jpeg' : fallback;

/** The client view of a saved generation (product §3), built by the rule both modes share. */
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
    source_id: g.sourceId,
    derivation: g.derivation,
    upscale_factor: g.upscaleFactor,
    edit_strength: g.editStrength,
    likeness: g.likeness,
    likeness_verdict: g.likenessVerdict,
    shoot_id: g.shootId,
    lora_trainings: character
      ? {
          id: character.id,
          character_name: character.characterName,
          trigger_word: character.triggerWord,
          lora_file_url: character.loraFileUrl,
        }
      : null,
  });
}

/** An image copied into our storage: its key, its bytes (for the likeness check) and what it answers as. */
export interface KeptImage {
  key: string;
  data: Buffer;
  image: GeneratedImage;
}

/** A shoot photo taken and stored, not yet a generation. */
export interface TakenPhoto extends KeptImage {
  input: GenerateInput;
  seed: number;
}

/** Raised into a generation cut short because this instance is shutting down. */
class ShuttingDown extends Error {}
/** True for a call cut short by this instance shutting down (a shoot photo is then taken over, not refunded). */
export const isShutdownInterruption = (err: unknown) => err instanceof ShuttingDown;

/** What a paid image call is, in the words its messages use. */
interface PaidWork {
  cost: number;
  /** 'creating', 'upscaling', 'editing'. */
  doing: string;
  /** 'created', 'upscaled', 'edited'. */
  done: string;
}

const GENERATION_WORK: PaidWork = { cost: COST, doing: 'creating', done: 'created' };

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const timedOut = (work: PaidWork) =>
  new AppError(
    504,
    'generation_timeout',
    `${capitalised(work.doing)} the image took too long. Your ${work.cost} credits were refunded; please try again.`,
  );

/**
 * A failure after the debit, told to the user in words they can act on (the refund has happened by then). The
 * provider's own message (an HTTP status, "check FAL_KEY") only goes to the log: product §8, server-side error
 * details are never shown.
 */
function userFacingError(err: unknown, work: PaidWork): AppError {
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
function refundOutcome(err: unknown): GenerationOutcome {
  if (err instanceof AppError && err.code === 'nsfw_content') return 'nsfw';
  if (err instanceof ProviderError && err.kind === 'timeout') return 'timeout';
  return 'refunded';
}

const nsfwRejected = (work: PaidWork) =>
  new AppError(
    422,
    'nsfw_content',
    `The image was flagged by the safety checker and was not saved. Your ${work.cost} credits were refunded; please try a different prompt.`,
  );

/** What a provider is asked to render for a request; a request without a seed gets a random one. */
function generateInputOf(request: GenerationRequest): GenerateInput {
  return {
    prompt: request.prompt,
    imageSize: request.image_size,
    loras: request.loras,
    seed: request.seed ?? randomSeed(),
    numInferenceSteps: request.num_inference_steps,
    guidanceScale: request.guidance_scale,
    outputFormat: request.output_format,
  };
}

/** The one answer for "not yours", "deleted" and "never existed", so ids of other users cannot be probed. */
const noSuchSource = () => notFound('That image is not one of your generations, or it was deleted.');

const upscaleTooLarge = (width: number, height: number, factor: UpscaleFactor) =>
  new AppError(422, 'upscale_too_large', upscaleTooLargeMessage(width, height, factor));

/** A generation row's fields that come from a generate or edit request (its character, and the seed used). */
const requestedRow = (request: GenerationRequest, character: Character | undefined, seed: number | string) => ({
  prompt: request.prompt,
  loraId: character?.id ?? null,
  loraScale: character ? request.loras[0].scale : null,
  seed: String(seed),
  numInferenceSteps: request.num_inference_steps,
  guidanceScale: request.guidance_scale,
});

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
 * touching the database; across instances, the job's start (whose debit locks the user's row) refuses to start
 * while another PENDING job of the user is held by a running instance, and the request waits and
 * retries. A job whose instance died holds nobody up: its owner's session with the database is gone at once,
 * and its lease runs out within JOB_LEASE_SECONDS, when any instance refunds it (refundAbandonedJobs).
 * A session-level advisory lock per user would hold a pooled connection through the whole provider call
 * for every running or waiting user and exhaust the pool under load; the job row is written anyway for
 * recovery, so it doubles as the cross-instance lock at no extra cost.
 */
export function createGenerationsService(deps: GenerationsDeps) {
  const { db, events, storage, generator, finisher, logger, metrics, leases } = deps;
  const perUser = createKeyedQueue();
  const providerSlots = deps.slots ?? createFairSemaphore(deps.concurrency);
  /** Aborted at the end of a shutdown's grace period: generations still running are refunded. */
  const shutdown = new AbortController();
  let waiting = 0;

  /**
   * The debit and the PENDING job leased to this instance, in one statement (paid-jobs startPaidJob), retried
   * while another job of the user runs on a live instance; an upscale's or edit's source is read by the same
   * statement, and its refusals (not the user's, too large) write nothing and come before a 402.
   */
  async function startJobWhenFree(job: PaidJob, start: PaidStart): Promise<GenerationWithCharacter | null> {
    const deadline = Date.now() + PROVIDER_TIMEOUT_MS;
    const order = { ...job, reason: start.reason, input: start.jobInput, provider: start.provider };
    const source = start.source && {
      id: start.source.id,
      maxSide: start.source.upscaleFactor ? upscaleSourceMaxSide(start.source.upscaleFactor) : null,
    };
    for (;;) {
      const started = await startPaidJob(db, deps, order, { oneAtATime: true, source });
      if (started.outcome === 'no_source') throw noSuchSource();
      if (started.outcome === 'too_large') {
        const { width, height } = started.source!.generation;
        throw upscaleTooLarge(width, height, start.source!.upscaleFactor!);
      }
      if (started.outcome === 'started') {
        leases.hold('paid_call', job.id);
        return started.source;
      }
      if (Date.now() > deadline)
        throw conflict('Another image of yours is still being created. Please try again shortly.', 'generation_busy');
      if (shutdown.signal.aborted) throw unavailableWhileStopping();
      await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
    }
  }

  async function keepImages(userId: string, generationId: string, images: ProviderImage[], format: 'jpeg' | 'png') {
    const kept: KeptImage[] = [];
    try {
      for (const [i, image] of images.entries()) {
        const { data, contentType } = image.data ? { data: image.data, contentType: image.contentType } : await download(image.url ?? '');
        const name = i === 0 ? generationId : `${generationId}-${i}`;
        const key = `generations/${userId}/${name}.${extensionOf(contentType, format)}`;
        await storage.put(key, data, contentType);
        kept.push({ key, data, image: { url: mediaUrl(key), width: image.width, height: image.height, content_type: contentType } });
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

  /**
   * One paid image call from debit to saved generation: the job and its debit in one statement, the
   * provider call in a slot, the images copied to our storage, the generation saved with the job's end; any
   * failure after the debit refunds it exactly once.
   */
  async function runPaid(
    userId: string,
    start: PaidStart,
    /** The call, from the source the start read (null without one); a failure here is refunded. */
    prepare: (source: GenerationWithCharacter | null) => PaidCall | Promise<PaidCall>,
    started: () => void,
  ): Promise<GenerateImageResponse> {
    const { work } = start;
    const jobId = randomUUID();
    const generationId = randomUUID();
    const job: PaidJob = { id: jobId, userId, kind: 'generation', cost: work.cost };
    const source = await startJobWhenFree(job, start);

    let keptKeys: string[] = [];
    try {
      const order = await prepare(source);
      const output = await providerSlots.run(userId, async () => {
        started();
        if (shutdown.signal.aborted) throw new ShuttingDown('the server is shutting down');
        const began = performance.now();
        try {
          return await withDeadline(PROVIDER_TIMEOUT_MS, [shutdown.signal], (signal) => order.call({ signal }));
        } catch (err) {
          throw shutdown.signal.aborted ? new ShuttingDown('the server shut down during the call') : err;
        } finally {
          metrics.providerCall(start.provider, (performance.now() - began) / 1000);
        }
      });
      if (output.images.length === 0) throw new ProviderError('The provider returned no image', 'failed');
      if (output.images.some((image) => image.nsfw)) throw nsfwRejected(work);

      const kept = await keepImages(userId, generationId, output.images, order.outputFormat);
      keptKeys = kept.map((k) => k.key);
      const first = kept[0].image;
      // The job's end, the row and its event: one statement, so one transaction (and one round trip).
      const saved = await repo.finishWithGeneration(
        db,
        { id: jobId, providerRequestId: output.providerRequestId },
        {
          ...order.row(output),
          id: generationId,
          userId,
          width: first.width,
          height: first.height,
          outputFormat: extensionOf(first.content_type, order.outputFormat),
          imageUrl: first.url,
          status: 'ACTIVE',
        },
        { channel: events.channel, payload: events.payload(userId, { type: 'generation', action: 'created', id: generationId }) },
      );
      // The job is gone while the provider worked: the account was erased (its jobs with it), or recovery gave
      // up on the job and refunded it.
      if (!saved) throw (await usersRepository.accountBy(db, { id: userId }))?.erased ? accountDeleted() : timedOut(work);
      metrics.generationEnded('stored');
      if (saved.loraId && saved.derivation !== 'upscale') deps.likenessDue?.();
      return {
        images: kept.map((k) => k.image),
        prompt: saved.prompt,
        seed: Number(saved.seed),
        generation: toGenerationView({ generation: saved, character: order.character }),
      } satisfies GenerateImageResponse;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const known = err instanceof AppError || (err instanceof ProviderError && err.kind !== 'failed');
      if (known) logger.info({ jobId, userId, reason }, 'paid image call refused; refunding');
      else logger.error({ err, jobId, userId }, 'paid image call failed; refunding');
      await forget(keptKeys);
      await failPaidJob(deps, job, reason, start.refundReason).then(
        (refunded) => refunded && metrics.generationEnded(refundOutcome(err)),
        // The job stays PENDING; its lease runs out and refundAbandonedJobs refunds it. Nothing is lost.
        (refundErr: unknown) => logger.error({ err: refundErr, jobId, userId }, 'refund failed; left for recovery'),
      );
      throw userFacingError(err, work);
    } finally {
      leases.drop('paid_call', jobId);
    }
  }

  function generate(userId: string, request: GenerationRequest, character: Character | undefined, started: () => void) {
    const input = generateInputOf(request);
    return runPaid(
      userId,
      {
        work: GENERATION_WORK,
        reason: 'Image generation',
        refundReason: 'Refund: image generation failed',
        jobInput: input,
        provider: generator.name,
      },
      () => ({
        outputFormat: request.output_format,
        call: (opts) => generator.generate(input, opts),
        row: (output) => requestedRow(request, character, output.seed ?? input.seed),
        character: character ?? null,
      }),
      started,
    );
  }

  /**
   * The stored image of a source the start read. Gone from storage (a file lost while its row stayed) after
   * the debit: the caller refunds it, and the message says so.
   */
  async function sourceImage(source: GenerationWithCharacter, work: PaidWork, action: string): Promise<SourceImage> {
    const g = source.generation;
    const key = keyFromMediaUrl(g.imageUrl);
    const data = key ? await storage.read(key) : null;
    if (!data) {
      throw new AppError(
        410,
        'source_missing',
        `The original file of this image is no longer stored, so it cannot be ${action}. Your ${work.cost} credits were refunded.`,
      );
    }
    return { data, contentType: g.outputFormat === 'png' ? 'image/png' : 'image/jpeg', width: g.width, height: g.height };
  }

  /**
   * Calls of the same upscale (same user, source and factor) while one runs share its answer: a double click
   * charges once. Per instance; the SPA also disables the buttons while a call runs.
   */
  const upscalesRunning = new Map<string, Promise<GenerateImageResponse>>();

  /** Runs `fn` in the user's queue, counted as waiting until its provider call starts. */
  async function queued<T>(userId: string, fn: (started: () => void) => Promise<T>): Promise<T> {
    const started = waitingTicket();
    try {
      return await perUser.run(userId, () => fn(started));
    } finally {
      started();
    }
  }

  async function upscale(userId: string, { generation_id: sourceId, factor }: UpscaleRequest): Promise<GenerateImageResponse> {
    const work: PaidWork = { cost: UPSCALE_COSTS[factor], doing: 'upscaling', done: 'upscaled' };
    await refuseSourceWhileQueued(userId, sourceId, factor);
    return queued(userId, (started) =>
      runPaid(
        userId,
        {
          work,
          reason: `Image upscale ${factor}×`,
          refundReason: `Refund: image upscale ${factor}× failed`,
          jobInput: { operation: 'upscale', sourceId, factor },
          provider: finisher.name,
          source: { id: sourceId, upscaleFactor: factor },
        },
        async (source) => {
          const { generation: g, character } = source!;
          const format = g.outputFormat === 'png' ? 'png' : 'jpeg';
          const seed = Number(g.seed ?? NaN);
          const input = {
            image: await sourceImage(source!, work, 'upscaled'),
            factor,
            prompt: g.prompt,
            seed: Number.isSafeInteger(seed) ? seed : randomSeed(),
            outputFormat: format,
          } as const;
          return {
            outputFormat: format,
            call: (opts) => finisher.upscale(input, opts),
            row: () => ({
              prompt: g.prompt,
              style: g.style,
              loraId: g.loraId,
              loraScale: g.loraScale,
              seed: g.seed,
              numInferenceSteps: g.numInferenceSteps,
              guidanceScale: g.guidanceScale,
              sourceId,
              derivation: 'upscale',
              upscaleFactor: factor,
              // An upscale shows the same face: it inherits its source's likeness (or gets it when the source is checked).
              likeness: g.likeness,
              likenessVerdict: g.likenessVerdict,
            }),
            character: character as Character | null,
          };
        },
        started,
      ),
    );
  }

  async function edit(userId: string, request: EditRequest): Promise<GenerateImageResponse> {
    const character = await usableCharacter(userId, request);
    const input = generateInputOf(request);
    const work: PaidWork = { cost: CREDIT_COSTS.edit, doing: 'editing', done: 'edited' };
    await refuseSourceWhileQueued(userId, request.source_id);
    return queued(userId, (started) =>
      runPaid(
        userId,
        {
          work,
          reason: 'Image edit',
          refundReason: 'Refund: image edit failed',
          jobInput: { operation: 'edit', ...input, sourceId: request.source_id, strength: request.strength },
          provider: finisher.name,
          source: { id: request.source_id },
        },
        async (source) => {
          const image = await sourceImage(source!, work, 'edited');
          return {
            outputFormat: request.output_format,
            call: (opts) => finisher.edit({ ...input, image, strength: request.strength }, opts),
            row: (output) => ({
              ...requestedRow(request, character, output.seed ?? input.seed),
              sourceId: request.source_id,
              derivation: 'edit',
              editStrength: request.strength,
            }),
            character: character ?? null,
          };
        },
        started,
      ),
    );
  }

  /**
   * While an earlier generation of the user runs here, an upscale or edit waits in their queue: a source that
   * is not theirs, or too large, is refused now rather than after it (the start checks it again, with the debit).
   */
  async function refuseSourceWhileQueued(userId: string, sourceId: string, upscaleFactor?: UpscaleFactor) {
    if (!perUser.busy(userId)) return;
    const source = await repo.findOwnedWithCharacter(db, userId, sourceId);
    if (!source) throw noSuchSource();
    const { width, height } = source.generation;
    if (upscaleFactor && !upscaledSize(width, height, upscaleFactor)) throw upscaleTooLarge(width, height, upscaleFactor);
  }

  /** The request's character, which must be one of the caller's usable characters (characters.service). */
  async function usableCharacter(userId: string, request: GenerationRequest): Promise<Character | undefined> {
    const lora = request.loras[0];
    return lora ? requireUsableCharacter(db, userId, { loraFileUrl: lora.path }) : undefined;
  }

  /**
   * One photo of a photo shoot through the same provider path as create-image (the shared slots, the safety
   * check, the stored copy), stored under `generations/<user>/<name>`: the image, not yet a generation.
   * Provider failures and a flagged image throw (the caller refunds, or keeps the first photo of a re-take).
   */
  async function takePhoto(
    photo: { userId: string; name: string; input: GenerateInput },
    hooks: { started(): Promise<void>; signal?: AbortSignal },
  ): Promise<TakenPhoto> {
    const { userId, input } = photo;
    const output = await providerSlots.run(userId, async () => {
      if (shutdown.signal.aborted || hooks.signal?.aborted) throw new ShuttingDown('the server is shutting down');
      await hooks.started();
      const began = performance.now();
      try {
        return await withDeadline(PROVIDER_TIMEOUT_MS, [shutdown.signal, hooks.signal], (signal) => generator.generate(input, { signal }));
      } catch (err) {
        throw shutdown.signal.aborted ? new ShuttingDown('the server shut down during the generation') : err;
      } finally {
        metrics.providerCall(generator.name, (performance.now() - began) / 1000);
      }
    });
    if (output.images.length === 0) throw new ProviderError('The provider returned no image', 'failed');
    if (output.images.some((image) => image.nsfw)) throw nsfwRejected(GENERATION_WORK);
    const [kept] = await keepImages(userId, photo.name, output.images.slice(0, 1), input.outputFormat);
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

  /** One photo of a photo shoot, taken and saved (takePhoto, then savePhoto without a likeness). */
  async function renderPhoto(
    photo: { userId: string; generationId: string; shootId: string; input: GenerateInput; loraId: string | null; loraScale: number | null },
    hooks: { started(): Promise<void>; finish(tx: Executor, imageUrl: string): Promise<boolean>; signal?: AbortSignal },
  ) {
    const taken = await takePhoto({ userId: photo.userId, name: photo.generationId, input: photo.input }, hooks);
    return savePhoto(photo, taken, null, hooks.finish);
  }

  return {
    renderPhoto,
    takePhoto,
    savePhoto,
    /** Deletes stored images that will never be shown (a re-take's loser, a photo of a deleted shoot). */
    forget,
    /** The instance's provider slots (shared with the shoot runner). */
    slots: providerSlots,
    /** POST /api/image/generate-image for the caller. */
    async create(userId: string, request: GenerationRequest): Promise<GenerateImageResponse> {
      const character = await usableCharacter(userId, request);
      return queued(userId, (started) => generate(userId, request, character, started));
    },

    /** POST /api/image/upscale: a new generation, the source upscaled 2× or 4×. */
    upscale(userId: string, request: UpscaleRequest): Promise<GenerateImageResponse> {
      const key = `${userId}:${request.generation_id}:${request.factor}`;
      let running = upscalesRunning.get(key);
      if (!running) {
        running = upscale(userId, request).finally(() => upscalesRunning.delete(key));
        upscalesRunning.set(key, running);
      }
      return running;
    },

    /** POST /api/image/edit: a new generation re-rendered from the source with a new prompt. */
    edit,

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
