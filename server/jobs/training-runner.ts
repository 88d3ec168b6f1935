import type { Db } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import type { BuiltinTrainer } from '../providers/inference/builtin-trainer.ts';
import { ProviderError, type TrainingProvider } from '../providers/inference/index.ts';
import { keyFromMediaUrl, mediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import type { JobLeases } from '../repositories/job-leases.ts';
import { trainingsRepository as repo, type TrainingRow } from '../repositories/trainings.repository.ts';
import type { CreditsService } from '../services/credits.service.ts';
import { finishTraining, recordTrainingProgress, TRAINING_COST, trainingEndOf, type TrainingEnd } from '../services/trainings.service.ts';
import { checkTrainingArchive } from '../services/training-archive.ts';
import { LIMITS } from '@common/product.ts';
import type { TrainerReport } from '@common/training.ts';
import { createLeasedRunner } from './leased-runner.ts';

/**
 * The training job runner (docs/decisions/004-training-jobs.md). Each IN_PROGRESS lora_trainings row is
 * its own durable job: the runner polls for rows whose next_run_at has come and whose lease is free, leases
 * them (renewed while the step runs, docs/decisions/009-job-leases.md), does one step, schedules the next and
 * gives the lease back. A step is safe to repeat, so a crash at any point only means the step runs again once
 * the lease runs out (at once on PGlite, which one process owns, and after a shutdown, which gives it back).
 */
export interface TrainingRunnerDeps {
  db: Db;
  credits: CreditsService;
  events: EventBus;
  storage: StorageProvider;
  logger: Logger;
  metrics: Metrics;
  leases: JobLeases;
  builtin: BuiltinTrainer;
  /** Present when FAL_KEY is set: new trainings run there. */
  fal?: TrainingProvider;
  /** How long the built-in trainer takes (TRAINING_DURATION_SECONDS). */
  builtinDurationMs: number;
  /** A training not ended by then is failed and refunded (TRAINING_TIMEOUT_MINUTES). */
  timeoutMs: number;
  /** How often the runner looks for due rows. */
  pollIntervalMs: number;
  /** How often a fal training's status is asked for (the fallback for lost webhooks). */
  falPollMs: number;
  /** `${PUBLIC_URL}/api/webhooks/fal`, when the server has a public address. */
  falWebhookUrl?: string;
}

export interface TrainingRunner {
  start(): void;
  /** Looks for due rows now (after a submission). */
  wake(): void;
  /** Ends a fal training from its webhook; null (no usable payload) asks for a status poll now. */
  applyFalResult(row: TrainingRow, end: TrainingEnd | null): Promise<void>;
  /** Stops polling and waits for the steps in flight. */
  close(): Promise<void>;
}

const BATCH = 4;
/** A step that failed for a passing reason (network, storage) is tried again after this. */
const RETRY_MS = 10_000;
const MAX_LORA_BYTES = 512 * 1024 * 1024;
/** The built-in trainer spends this share of its run preparing photos, and reports its steps this many times. */
const BUILTIN_PREPARE_SHARE = 0.1;
const BUILTIN_TICKS = 20;
const BUILTIN_MIN_TICK_MS = 250;

const refunded = `Your ${TRAINING_COST} credits have been refunded.`;

export function createTrainingRunner(deps: TrainingRunnerDeps): TrainingRunner {
  const { leases } = deps;

  /** The row's next step in `ms`, or at its time limit if that comes first (so the limit is kept). */
  const scheduleIn = (row: TrainingRow, ms: number) =>
    repo.scheduleNextRun(deps.db, row.id, new Date(Math.min(Date.now() + ms, row.createdAt.getTime() + deps.timeoutMs + 1)));

  const fail = (row: TrainingRow, error: string) => finishTraining(deps, row.id, { status: 'FAILED', error });

  async function readArchive(row: TrainingRow): Promise<Buffer> {
    const key = row.uploadUrl ? keyFromMediaUrl(row.uploadUrl) : null;
    const zip = key ? await deps.storage.read(key) : null;
    if (!zip) throw new PermanentFailure(`The uploaded photos are no longer available. ${refunded}`);
    return zip;
  }

  async function readArchiveImages(row: TrainingRow): Promise<Uint8Array[]> {
    const zip = await readArchive(row);
    // The archive passed this check before the row existed; it is read the same way here, by the one reader.
    return (await checkTrainingArchive(zip)).map((image) => image.bytes);
  }

  /** Stores and announces the trainer's progress; a failure to do so never fails the training. */
  async function report(row: TrainingRow, report: TrainerReport | null | undefined): Promise<void> {
    if (!report) return;
    const saved = await recordTrainingProgress(deps, row, report).catch((err: unknown) => {
      deps.logger.warn({ err, trainingId: row.id }, 'could not record training progress');
      return null;
    });
    if (saved) row.progress = saved;
  }

  /**
   * The built-in trainer's steps: its run lasts builtinDurationMs from submission, the first part of it spent
   * preparing the photos, then LIMITS.trainingSteps steps in even time, reported at each tick; then it saves.
   */
  async function runBuiltin(row: TrainingRow): Promise<void> {
    const duration = deps.builtinDurationMs;
    const elapsed = Date.now() - row.createdAt.getTime();
    if (elapsed < duration) {
      const prepareMs = duration * BUILTIN_PREPARE_SHARE;
      const tick = Math.max(BUILTIN_MIN_TICK_MS, duration / BUILTIN_TICKS);
      if (elapsed < prepareMs) {
        await report(row, { stage: 'preparing' });
        return scheduleIn(row, Math.min(tick, prepareMs - elapsed));
      }
      const total = LIMITS.trainingSteps;
      const step = Math.min(total - 1, Math.floor(((elapsed - prepareMs) / (duration - prepareMs)) * total));
      await report(row, { stage: 'training', step, totalSteps: total });
      return scheduleIn(row, Math.min(tick, duration - elapsed));
    }
    await report(row, { stage: 'saving', step: LIMITS.trainingSteps, totalSteps: LIMITS.trainingSteps });
    const images = await readArchiveImages(row);
    let artefact: Buffer;
    try {
      artefact = await deps.builtin.train({ images, characterName: row.characterName, triggerWord: row.triggerWord });
    } catch (err) {
      throw new PermanentFailure(`The photos could not be used for training: ${(err as Error).message}. ${refunded}`);
    }
    // The key depends only on the training, so a repeated step overwrites instead of leaving copies.
    const key = `loras/${row.userId}/${row.id}.json`;
    await deps.storage.put(key, artefact, 'application/json');
    const url = mediaUrl(key);
    const finished = await finishTraining(deps, row.id, {
      status: 'COMPLETED',
      loraFileUrl: url,
      result: {
        engine: 'builtin',
        diffusers_lora_file: { url, content_type: 'application/json', file_name: `${row.id}.json`, file_size: artefact.length },
        steps: LIMITS.trainingSteps,
        image_count: images.length,
      },
    });
    if (!finished) await forgetIfDeleted(row, key);
  }

  /** A LoRA written for a training its owner deleted meanwhile is removed again (its row no longer names it). */
  async function forgetIfDeleted(row: TrainingRow, key: string): Promise<void> {
    const now = await repo.findOwned(deps.db, row.userId, row.id);
    if (now && !now.deletedAt) return;
    await deps.storage
      .delete(key)
      .catch((err: unknown) => deps.logger.warn({ err, key }, 'could not delete the LoRA of a deleted character'));
  }

  /** Copies fal's LoRA into our storage (fal keeps outputs for a limited time) and ends the training. */
  async function completeFal(row: TrainingRow, end: Extract<TrainingEnd, { status: 'COMPLETED' }>): Promise<void> {
    const res = await fetch(end.loraFileUrl, { signal: AbortSignal.timeout(5 * 60_000) });
    if (!res.ok) throw new Error(`the LoRA file could not be downloaded from fal (HTTP ${res.status})`);
    const bytes = Buffer.from(await res.arrayBuffer());
    if (bytes.length > MAX_LORA_BYTES) throw new PermanentFailure(`fal returned an unexpectedly large LoRA file. ${refunded}`);
    const key = `loras/${row.userId}/${row.id}.safetensors`;
    await deps.storage.put(key, bytes, 'application/octet-stream');
    // fal's generator reads LoRAs by URL, so lora_file_url stays fal's address; our copy is the backup.
    const result = { ...(end.result as Record<string, unknown>), stored_copy: mediaUrl(key) };
    const finished = await finishTraining(deps, row.id, { status: 'COMPLETED', loraFileUrl: end.loraFileUrl, result });
    if (!finished) await forgetIfDeleted(row, key);
  }

  async function applyFalResult(row: TrainingRow, end: TrainingEnd | null): Promise<void> {
    if (!end) return repo.scheduleNextRun(deps.db, row.id, new Date());
    if (end.status === 'FAILED') {
      await fail(row, `The training failed: ${end.error}. ${refunded}`);
      return;
    }
    await completeFal(row, end);
  }

  async function runFal(row: TrainingRow): Promise<void> {
    const fal = deps.fal;
    if (!fal) throw new PermanentFailure(`This server can no longer reach the trainer that started this training. ${refunded}`);
    if (!row.providerRequestId) {
      const imagesDataUrl = await fal.uploadArchive(await readArchive(row));
      const { requestId } = await fal.submit(
        { imagesDataUrl, triggerWord: row.triggerWord ?? undefined, createMasks: true, steps: LIMITS.trainingSteps, isStyle: false },
        { webhookUrl: deps.falWebhookUrl },
      );
      await repo.setProviderRequestId(deps.db, row.id, requestId);
      await scheduleIn(row, deps.falPollMs);
      return;
    }
    const state = await fal.status(row.providerRequestId);
    const end = trainingEndOf(state);
    if (end) return applyFalResult(row, end);
    if (state.status === 'IN_QUEUE' || state.status === 'IN_PROGRESS') await report(row, state.report);
    await scheduleIn(row, deps.falPollMs);
  }

  async function step(row: TrainingRow): Promise<void> {
    try {
      if (Date.now() - row.createdAt.getTime() > deps.timeoutMs) {
        const minutes = Math.max(1, Math.round(deps.timeoutMs / 60_000));
        await fail(row, `The training did not finish within ${minutes} minute${minutes === 1 ? '' : 's'} and was stopped. ${refunded}`);
        deps.logger.warn({ trainingId: row.id }, 'training timed out');
        return;
      }
      if (row.provider === 'fal') await runFal(row);
      else await runBuiltin(row);
    } catch (err) {
      if (err instanceof PermanentFailure || (err instanceof ProviderError && !err.retryable)) {
        deps.logger.warn({ err, trainingId: row.id }, 'training failed');
        await fail(row, err instanceof PermanentFailure ? err.message : `The training failed: ${err.message}. ${refunded}`).catch(
          (e: unknown) => deps.logger.error({ err: e, trainingId: row.id }, 'could not record a failed training; it will be tried again'),
        );
        return;
      }
      deps.logger.warn({ err, trainingId: row.id }, 'training step failed; trying again later');
      await scheduleIn(row, RETRY_MS).catch(() => undefined);
    }
  }

  // One step with the row leased; the lease is given back after it, so the next step may run anywhere.
  const runner = createLeasedRunner({
    kind: 'training',
    logger: deps.logger,
    leases,
    concurrency: BATCH,
    pollMs: deps.pollIntervalMs,
    // Soon rather than inside the caller's request; a built-in training with no wait is done at once.
    wakeDelayMs: 10,
    claim: (limit) => repo.claimDue(deps.db, leases.claim(), limit),
    keyOf: (row) => row.id,
    work: step,
    afterWork: 'release',
    failed: 'training step failed; it is tried again',
  });

  return {
    start: runner.start,
    wake: runner.wake,
    applyFalResult,
    close: runner.close,
  };
}

/** A failure that trying again cannot fix: the training is failed and refunded. */
class PermanentFailure extends Error {}
