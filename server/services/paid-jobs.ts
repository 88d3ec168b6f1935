import { randomUUID } from 'node:crypto';
import type { Db, Executor } from '../db/index.ts';
import { accountDeleted, AppError, conflict } from '../domain/errors.ts';
import { withDeadline } from '../domain/deadline.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../ops/metrics.ts';
import { ProviderError, type CallOptions, type GenerateOutput } from '../providers/inference/index.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import {
  generationsRepository as repo,
  type GenerationRow,
  type GenerationWithCharacter,
  type NewGenerationRow,
} from '../repositories/generations.repository.ts';
import { usersRepository } from '../repositories/users.repository.ts';
import type { CreditsService } from './credits.service.ts';
import type { PaidJobSource } from '../repositories/credits.repository.ts';
import type { JobLeases } from '../repositories/job-leases.ts';
import { createFairSemaphore, createKeyedQueue, type FairSemaphore } from './concurrency.ts';
import { extensionOf, type GeneratedImages, type KeptImage } from './generated-images.ts';
import {
  nsfwRejected,
  refundOutcome,
  ShuttingDown,
  timedOut,
  unavailableWhileStopping,
  userFacingError,
  type PaidWork,
} from './generation-errors.ts';

/**
 * Paid provider calls (an image generation, a prompt extraction) are rows of generation_jobs: the debit and
 * the PENDING job, leased to the instance making the call, are written in one transaction; the call's end
 * moves the job to SUCCEEDED, or to FAILED with its refund in one transaction; a job nobody holds any more
 * (its instance died, or gave it back while shutting down) is refunded by whichever instance sweeps first.
 * So every debit ends with its result or a refund, exactly once (docs/decisions/009-job-leases.md).
 */
export type PaidJobKind = 'generation' | 'caption';

export interface PaidJob {
  id: string;
  userId: string;
  kind: PaidJobKind;
  /** Credits the debit takes and a refund gives back. */
  cost: number;
}

/** Ledger key of a job's debit; its refund is keyed `refund:<this>` by the credits service. */
export const paidJobDebitKey = (job: Pick<PaidJob, 'kind' | 'id'>) => `${job.kind}:${job.id}`;

/**
 * Debits the job and records it PENDING, leased to this instance, in one statement (credits.startPaidJob).
 * With `oneAtATime` (generations), 'busy' and nothing written while another job of its kind of the user runs
 * on a live instance; with a `source` (an upscale's or edit's), 'no_source' or 'too_large' and nothing
 * written when it is not the user's ACTIVE generation or is too large.
 */
export function startPaidJob(
  executor: Executor,
  deps: { credits: CreditsService; leases: JobLeases },
  job: PaidJob & { reason: string; input: unknown; provider: string },
  opts: { oneAtATime: boolean; source?: PaidJobSource },
) {
  const { id, userId, kind, cost, reason, input, provider } = job;
  return deps.credits.startPaidJob(
    executor,
    { userId, cost, reason, debitKey: paidJobDebitKey(job), jobId: id, kind, input, provider },
    { ...opts, lease: { owner: deps.leases.owner, seconds: deps.leases.leaseMs / 1000 } },
  );
}

/** Ends a PENDING job FAILED and refunds its debit, in one transaction; false when it had already ended. */
export async function failPaidJob(
  deps: { db: Db; credits: CreditsService },
  job: PaidJob,
  reason: string,
  refundReason: string,
): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    if (!(await repo.finishJob(tx, job.id, { status: 'FAILED', error: reason.slice(0, 1000) }))) return false;
    await deps.credits.refund(job.userId, job.cost, refundReason, paidJobDebitKey(job), tx);
    return true;
  });
}

const INTERRUPTED: Record<PaidJobKind, string> = {
  generation: 'Refund: image generation interrupted',
  caption: 'Refund: prompt extraction interrupted',
};

/**
 * Refunds the PENDING jobs nobody works on any more: their instance died (its lease ran out), gave them back
 * while shutting down, or (PGlite) was this process's previous run. Every instance runs it every few
 * seconds; each job is ended and refunded at most once, whoever gets there first.
 */
export async function refundAbandonedJobs(deps: { db: Db; credits: CreditsService; logger: Logger; metrics: Metrics }): Promise<number> {
  let refunded = 0;
  for (const job of await repo.listAbandonedJobs(deps.db)) {
    if (await failPaidJob(deps, job, 'Interrupted: the server stopped during the call', INTERRUPTED[job.kind])) {
      // failPaidJob's transaction has committed: the refund is real.
      if (job.kind === 'generation') deps.metrics.generationEnded('refunded');
      refunded++;
    }
  }
  if (refunded) deps.logger.warn({ refunded }, 'refunded interrupted paid calls');
  return refunded;
}

// ── The paid image call runner: one call from debit to saved generation, shared by generation and finishing.

/** A provider call is abandoned (and refunded) after this. */
export const PROVIDER_TIMEOUT_MS = 5 * 60_000;
/** How often a request waits for the same user's generation running on another instance. */
const BUSY_RETRY_MS = 250;

/** The stored side of a paid image call: the statements the runner makes, each one step. */
export interface PaidCallStore {
  /**
   * The debit and the PENDING job leased to this instance, in one statement (startPaidJob): 'busy' while
   * another generation of the user runs on a live instance; 'no_source' or 'too_large' for a `source` that is
   * not the user's or is too large, nothing written. The account's refusals (no credits, erased) throw.
   */
  start(
    job: PaidJob & { reason: string; input: unknown; provider: string },
    source?: PaidJobSource,
  ): Promise<{ outcome: 'started' | 'busy' | 'no_source' | 'too_large'; source: GenerationWithCharacter | null }>;
  /** The job's end, its generation and the generation's event in one statement; undefined when the job had ended. */
  finish(job: { id: string; providerRequestId?: string }, row: NewGenerationRow & { id: string }): Promise<GenerationRow | undefined>;
  /** The job FAILED and its debit refunded, in one transaction; false when it had ended already (failPaidJob). */
  fail(job: PaidJob, reason: string, refundReason: string): Promise<boolean>;
  /** Whether the user's account has been erased (its jobs went with it). */
  accountErased(userId: string): Promise<boolean>;
  /** The user's ACTIVE generation `id` with its character, if any. */
  ownedSource(userId: string, id: string): Promise<GenerationWithCharacter | undefined>;
}

/** The store over Postgres: the credits service's paid-job start, the generations and users repositories. */
export function paidCallStore(deps: { db: Db; credits: CreditsService; leases: JobLeases; events: EventBus }): PaidCallStore {
  const { db, events } = deps;
  return {
    start: (job, source) => startPaidJob(db, deps, job, { oneAtATime: true, source }),
    finish: (job, row) =>
      repo.finishWithGeneration(db, job, row, {
        channel: events.channel,
        payload: events.payload(row.userId, { type: 'generation', action: 'created', id: row.id }),
      }),
    fail: (job, reason, refundReason) => failPaidJob(deps, job, reason, refundReason),
    accountErased: async (userId) => Boolean((await usersRepository.accountBy(db, { id: userId }))?.erased),
    ownedSource: (userId, id) => repo.findOwnedWithCharacter(db, userId, id),
  };
}

/** What a paid call's start records and checks. */
export interface PaidStart {
  work: PaidWork;
  reason: string;
  refundReason: string;
  /** What the job row records (never image bytes). */
  jobInput: unknown;
  provider: string;
  /** An upscale's or edit's source, read by the start (refused there when not the user's, or too large). */
  source?: { id: string; maxSide: number | null };
}

/** What a paid call does once its debit is written: the call, and the generation row it saves. */
export interface PaidCall {
  outputFormat: 'jpeg' | 'png';
  call: (opts: CallOptions) => Promise<GenerateOutput>;
  /** The row's fields besides its id, owner, image and size. */
  row: (output: GenerateOutput) => Omit<NewGenerationRow, 'id' | 'userId' | 'width' | 'height' | 'outputFormat' | 'imageUrl' | 'status'>;
  /** The generation's character, as its view shows it. */
  character: GenerationWithCharacter['character'];
}

/** Refusals of a start whose source is not the user's or too large (the finishing service words them). */
export interface SourceRefusals {
  noSource(): Error;
  tooLarge(source: GenerationWithCharacter): Error;
}

/** A paid call's result: its images in our storage, the saved generation and its character. */
export interface PaidResult {
  kept: KeptImage[];
  saved: GenerationRow;
  character: GenerationWithCharacter['character'];
}

export interface PaidCallRunnerDeps {
  store: PaidCallStore;
  images: GeneratedImages;
  logger: Logger;
  metrics: Metrics;
  /** Each job is leased to this instance while it runs (docs/decisions/009-job-leases.md). */
  leases: Pick<JobLeases, 'hold' | 'drop'>;
  /** Provider calls in flight at once on this instance (INFERENCE_CONCURRENCY), when `slots` is absent. */
  concurrency: number;
  /** The instance's provider slots, shared with the photo-shoot runner; made here when absent. */
  slots?: FairSemaphore;
  /** Tells the likeness checker that an image made with a character landed (it also finds it by polling). */
  likenessDue?(): void;
}

export type PaidCallRunner = ReturnType<typeof createPaidCallRunner>;

/**
 * The paid image pipeline: debit and record a job in one statement, call the provider, keep the images, save
 * the generation; any failure after the debit refunds it exactly once.
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
export function createPaidCallRunner(deps: PaidCallRunnerDeps) {
  const { store, images, logger, metrics, leases } = deps;
  const perUser = createKeyedQueue();
  const slots = deps.slots ?? createFairSemaphore(deps.concurrency);
  /** Aborted at the end of a shutdown's grace period: calls still running are refunded. */
  const shutdown = new AbortController();
  let waiting = 0;

  /**
   * The debit and the PENDING job, retried while another job of the user runs on a live instance; an upscale's
   * or edit's source is read by the same statement, and its refusals (not the user's, too large) write nothing
   * and come before a 402.
   */
  async function startJobWhenFree(job: PaidJob, start: PaidStart, refusals?: SourceRefusals) {
    const deadline = Date.now() + PROVIDER_TIMEOUT_MS;
    const order = { ...job, reason: start.reason, input: start.jobInput, provider: start.provider };
    for (;;) {
      const started = await store.start(order, start.source);
      if (started.outcome === 'no_source') throw refusals!.noSource();
      if (started.outcome === 'too_large') throw refusals!.tooLarge(started.source!);
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
   * Runs `call` in a provider slot taken in turn per user, with the provider deadline and this instance's
   * shutdown (and `signal`) cutting it short: a call cut short by the shutdown throws ShuttingDown.
   */
  function inSlot(
    userId: string,
    provider: string,
    started: () => void | Promise<void>,
    call: (opts: CallOptions) => Promise<GenerateOutput>,
    signal?: AbortSignal,
  ) {
    return slots.run(userId, async () => {
      if (shutdown.signal.aborted || signal?.aborted) throw new ShuttingDown('the server is shutting down');
      await started();
      const began = performance.now();
      try {
        return await withDeadline(PROVIDER_TIMEOUT_MS, [shutdown.signal, signal], (s) => call({ signal: s }));
      } catch (err) {
        throw shutdown.signal.aborted ? new ShuttingDown('the server shut down during the call') : err;
      } finally {
        metrics.providerCall(provider, (performance.now() - began) / 1000);
      }
    });
  }

  /**
   * One paid image call from debit to saved generation: the job and its debit in one statement, the
   * provider call in a slot, the images copied to our storage, the generation saved with the job's end; any
   * failure after the debit refunds it exactly once.
   */
  async function run(
    userId: string,
    start: PaidStart,
    /** The call, from the source the start read (null without one); a failure here is refunded. */
    prepare: (source: GenerationWithCharacter | null) => PaidCall | Promise<PaidCall>,
    started: () => void,
    refusals?: SourceRefusals,
  ): Promise<PaidResult> {
    const { work } = start;
    const jobId = randomUUID();
    const generationId = randomUUID();
    const job: PaidJob = { id: jobId, userId, kind: 'generation', cost: work.cost };
    const source = await startJobWhenFree(job, start, refusals);

    let keptKeys: string[] = [];
    try {
      const order = await prepare(source);
      const output = await inSlot(userId, start.provider, started, order.call);
      if (output.images.length === 0) throw new ProviderError('The provider returned no image', 'failed');
      if (output.images.some((image) => image.nsfw)) throw nsfwRejected(work);

      const kept = await images.keep(userId, generationId, output.images, order.outputFormat);
      keptKeys = kept.map((k) => k.key);
      const first = kept[0].image;
      // The job's end, the row and its event: one statement, so one transaction (and one round trip).
      const saved = await store.finish(
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
      );
      // The job is gone while the provider worked: the account was erased (its jobs with it), or recovery gave
      // up on the job and refunded it.
      if (!saved) throw (await store.accountErased(userId)) ? accountDeleted() : timedOut(work);
      metrics.generationEnded('stored');
      if (saved.loraId && saved.derivation !== 'upscale') deps.likenessDue?.();
      return { kept, saved, character: order.character };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const known = err instanceof AppError || (err instanceof ProviderError && err.kind !== 'failed');
      if (known) logger.info({ jobId, userId, reason }, 'paid image call refused; refunding');
      else logger.error({ err, jobId, userId }, 'paid image call failed; refunding');
      await images.forget(keptKeys);
      await store.fail(job, reason, start.refundReason).then(
        (refunded) => refunded && metrics.generationEnded(refundOutcome(err)),
        // The job stays PENDING; its lease runs out and refundAbandonedJobs refunds it. Nothing is lost.
        (refundErr: unknown) => logger.error({ err: refundErr, jobId, userId }, 'refund failed; left for recovery'),
      );
      throw userFacingError(err, work);
    } finally {
      leases.drop('paid_call', jobId);
    }
  }

  return {
    /** One paid call; answers with the kept images and the saved row (the services build their answer from it). */
    run,
    /** Runs `fn` in the user's queue, counted as waiting until its provider call starts. */
    async queued<T>(userId: string, fn: (started: () => void) => Promise<T>): Promise<T> {
      const started = waitingTicket();
      try {
        return await perUser.run(userId, () => fn(started));
      } finally {
        started();
      }
    },
    /** Whether a call of the user is queued or running on this instance. */
    busy: (userId: string) => perUser.busy(userId),
    inSlot,
    images,
    /** The instance's provider slots (shared with the shoot runner). */
    slots,
    /** Provider calls running now on this instance (health and tests). */
    inFlight: () => slots.active,
    /** Requests waiting for a provider slot here, or for the same user's previous generation. */
    waiting: () => waiting,
    /** Shutdown, once the grace period is over: calls still running are cut short and refunded, waiting ones refused. */
    abortAll() {
      shutdown.abort();
    },
  };
}

export type { KeptImage };
