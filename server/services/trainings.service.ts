import { randomUUID } from 'node:crypto';
import { CREDIT_COSTS } from '@common/product.ts';
import type { TrainerReport, TrainingProgress, TrainingSubmitResponse, TrainingView, TrainingStatus } from '@common/training.ts';
import { trainingProgressAfter, trainingSubmissionSchema } from '@common/training.ts';
import type { z } from 'zod';
import { afterCommit, type Db, type Executor } from '../db/index.ts';
import { badRequest, forbidden, insufficientCredits, notFound, unauthorized, unavailable } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../ops/metrics.ts';
import { trainingStateFromWebhook } from '../providers/inference/fal-trainer.ts';
import type { TrainingState } from '../providers/inference/index.ts';
import { FalJwksUnavailableError, parseFalWebhook, verifyFalWebhook } from '../providers/inference/fal-webhook.ts';
import { keyFromMediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { trainingsRepository as repo, type TrainingRow } from '../repositories/trainings.repository.ts';
import { usersRepository } from '../repositories/users.repository.ts';
import type { CreditsService } from './credits.service.ts';
import type { PhotoCheckService } from './photo-check.service.ts';
import { checkTrainingArchive } from './training-archive.ts';
import type { UploadsService } from './uploads.service.ts';
import { enqueueCharacterReady, enqueueTrainingFailed } from './mail.service.ts';
import { teamCreditsRepository } from '../repositories/team-credits.repository.ts';
import { requireMembership, spaceOf } from './team-access.ts';
import { debitWork, insufficientTeamCredits, refundWork } from './team-credits.service.ts';

export const TRAINING_COST = CREDIT_COSTS.training;

/** The ledger key of a training's debit; its refund is keyed `refund:<this>`, so it happens at most once. */
export const trainingDebitKey = (trainingId: string) => `training:${trainingId}`;

export type TrainingEnd = { status: 'COMPLETED'; loraFileUrl: string; result: unknown } | { status: 'FAILED'; error: string };

export interface TrainingsDeps {
  db: Db;
  credits: CreditsService;
  events: EventBus;
  storage: StorageProvider;
  uploads: UploadsService;
  photoChecks: PhotoCheckService;
  logger: Logger;
  /** Which trainer new trainings run on. */
  provider: 'builtin' | 'fal';
  /** Tells the job runner that a training is waiting (it also finds it by polling). */
  wake(): void;
  /** How the fal webhook's signature is checked; absent when fal is not configured. */
  falWebhook?: { jwksUrl: string; fetch?: typeof fetch };
  /** Ends a fal training from a verified webhook result (the runner owns completion: it copies the LoRA). */
  onFalResult?(row: TrainingRow, end: TrainingEnd | null): Promise<void>;
}

export type TrainingsService = ReturnType<typeof createTrainingsService>;

export function toTrainingView(row: TrainingRow): TrainingView {
  return {
    id: row.id,
    character_name: row.characterName,
    trigger_word: row.triggerWord,
    gender: row.gender,
    hair_color: row.hairColor,
    status: row.status as TrainingStatus,
    created_at: row.createdAt.toISOString(),
    lora_file_url: row.loraFileUrl,
    request_id: row.requestId,
    result: row.result ?? null,
    error: row.error,
    progress: row.status === 'IN_PROGRESS' ? (row.progress ?? null) : null,
  };
}

/**
 * Ends a training exactly once: the row leaves IN_PROGRESS, a failure refunds the debit (keyed on the
 * training, so never twice), and the owner's browsers hear of it — all in one transaction.
 */
export async function finishTraining(
  deps: { db: Db; credits: CreditsService; events: EventBus; metrics: Metrics },
  trainingId: string,
  end: TrainingEnd,
): Promise<TrainingRow | undefined> {
  return deps.db.transaction((tx) => finishTrainingIn(tx, deps, trainingId, end));
}

/**
 * finishTraining inside the caller's transaction. Deleting a character still training cancels it so, with
 * `cancelledByOwner`: the refund as for any failure, but no 'training failed' mail for what the person did.
 */
export async function finishTrainingIn(
  tx: Executor,
  deps: { credits: CreditsService; events: EventBus; metrics: Metrics },
  trainingId: string,
  end: TrainingEnd,
  { cancelledByOwner = false } = {},
): Promise<TrainingRow | undefined> {
  const row = await repo.finish(tx, trainingId, end);
  if (!row) return undefined;
  if (end.status === 'FAILED') {
    // Back to whoever paid: the team for team work (issue 49), else the person.
    await refundWork(
      tx,
      deps,
      { userId: row.userId, teamId: row.teamId },
      TRAINING_COST,
      'character training failed',
      trainingDebitKey(row.id),
    );
    if (!cancelledByOwner) await enqueueTrainingFailed(tx, row.userId, row);
  } else {
    await enqueueCharacterReady(tx, row.userId, row);
  }
  await publishTraining(deps.events, tx, row);
  const seconds = (Date.now() - row.createdAt.getTime()) / 1000;
  afterCommit(() => deps.metrics.trainingEnded(end.status === 'FAILED' ? 'failed' : 'completed', seconds));
  return row;
}

/**
 * Stores what the trainer says about a running training (issue 54 item 6) and tells the owner's browsers, as a
 * status change is told (SSE locally; hosted pages hear the row's update through Realtime). Answers the stored
 * progress, or null when the training had ended meanwhile.
 */
export async function recordTrainingProgress(
  deps: { db: Db; events: EventBus },
  row: Pick<TrainingRow, 'id' | 'progress'>,
  report: TrainerReport,
  now = new Date(),
): Promise<TrainingProgress | null> {
  const progress = trainingProgressAfter(row.progress ?? null, report, now);
  return deps.db.transaction(async (tx) => {
    const saved = await repo.setProgress(tx, row.id, progress);
    if (!saved) return null;
    await publishTraining(deps.events, tx, saved, 'updated');
    return progress;
  });
}

function publishTraining(events: EventBus, tx: Executor, row: TrainingRow, action?: 'updated') {
  return events.publish(tx, row.userId, {
    type: 'training',
    action: action ?? (row.status === 'IN_PROGRESS' ? 'created' : 'updated'),
    id: row.id,
    status: row.status,
  });
}

/** The same archive and name submitted again within this many seconds is the same training (a double click). */
const DOUBLE_SUBMIT_SECONDS = 10;

export function createTrainingsService(deps: TrainingsDeps) {
  return {
    /**
     * Checks the caller's archive and re-checks its photos (the page's verdicts are never trusted: no NSFW
     * photo, enough photos of one person), then in one transaction debits the training, inserts the
     * IN_PROGRESS row (which is its durable job) and announces it; the runner takes it from there.
     */
    async submit(userId: string, input: z.output<typeof trainingSubmissionSchema>): Promise<TrainingSubmitResponse> {
      const key = keyFromMediaUrl(input.images_data_url);
      const upload = key ? await deps.uploads.findOwned(userId, key) : undefined;
      if (!upload || upload.kind !== 'training-archive') {
        throw forbidden('images_data_url must be a training archive you uploaded (training_images.zip).', 'archive_not_yours');
      }
      const sameSubmission = { userId, uploadUrl: upload.url, characterName: input.character_name, seconds: DOUBLE_SUBMIT_SECONDS };
      // Unpacking the archive and checking up to 50 photos is work for someone who can pay for the training: a
      // balance too low is refused first (the debit under the lock below is what decides), except for a second
      // click on a training just paid for, which is answered below with the first.
      // Team work (issue 49) is the team's to pay: only a member may train for it, from its balance.
      const payer = { userId, teamId: input.team_id ?? null };
      if (payer.teamId) await requireMembership(deps.db, userId, payer.teamId, 'member');
      const credits = payer.teamId
        ? ((await teamCreditsRepository.balance(deps.db, payer.teamId)) ?? 0)
        : await deps.credits.balance(userId);
      if (credits < TRAINING_COST) {
        const same = await repo.recentSameSubmission(deps.db, sameSubmission);
        if (!same) throw payer.teamId ? insufficientTeamCredits(TRAINING_COST, credits) : insufficientCredits(TRAINING_COST, credits);
      }
      const zip = await deps.storage.read(upload.storageKey);
      if (!zip)
        throw badRequest('The uploaded training archive is no longer available. Please upload the photos again.', 'archive_missing');
      const photoChecks = await deps.photoChecks.assertTrainable(await checkTrainingArchive(zip));

      const id = randomUUID();
      let requestId: string = randomUUID();
      const repeated = await deps.db.transaction(async (tx) => {
        // The user's row is the lock every paid action takes: a second click waits here and finds the first.
        await usersRepository.lockRow(tx, userId);
        const same = await repo.recentSameSubmission(tx, sameSubmission);
        if (same?.requestId) {
          requestId = same.requestId;
          return true;
        }
        await debitWork(tx, deps, payer, TRAINING_COST, `character training: ${input.character_name}`, trainingDebitKey(id));
        const row = await repo.insert(tx, {
          id,
          userId,
          teamId: payer.teamId,
          requestId,
          characterName: input.character_name,
          triggerWord: input.trigger_word ?? null,
          gender: input.gender,
          hairColor: input.hair_color,
          status: 'IN_PROGRESS',
          uploadUrl: upload.url,
          provider: deps.provider,
          photoChecks,
        });
        await publishTraining(deps.events, tx, row);
        return false;
      });
      if (repeated) {
        deps.logger.info({ userId, requestId }, 'training submitted again within seconds; answered with the first');
        return { request_id: requestId };
      }
      deps.logger.info({ trainingId: id, userId, provider: deps.provider }, 'training submitted');
      deps.wake();
      return { request_id: requestId };
    },

    /** `team`: the space (issue 49; a team the caller is in, else 404), none for the personal one. */
    async list(userId: string, team?: string): Promise<TrainingView[]> {
      return (await repo.listForUser(deps.db, userId, await spaceOf(deps.db, userId, team))).map(toTrainingView);
    },

    /**
     * POST /api/webhooks/fal. Verified before anything is read; a bad signature changes nothing (401). A
     * replay finds the row already ended and changes nothing either.
     */
    async receiveFalWebhook(headers: Headers, rawBody: Buffer): Promise<{ handled: boolean }> {
      // Like the payment webhooks, the endpoint of a provider this server does not use does not exist.
      if (!deps.falWebhook || !deps.onFalResult) throw notFound('No such API endpoint.');
      let verdict;
      try {
        verdict = await verifyFalWebhook(headers, rawBody, deps.falWebhook);
      } catch (err) {
        if (err instanceof FalJwksUnavailableError)
          throw unavailable('The webhook could not be verified yet; deliver it again later.', 'jwks_unavailable');
        throw err;
      }
      if (!verdict.ok) {
        deps.logger.warn({ reason: verdict.reason }, 'rejected a fal webhook');
        throw unauthorized('Invalid webhook signature.');
      }
      const hook = parseFalWebhook(rawBody);
      if (!hook || hook.request_id !== verdict.requestId) throw badRequest('Not a fal webhook.', 'invalid_webhook');
      const row = await repo.findByProviderRequestId(deps.db, hook.request_id);
      // Unknown (another app on the account) or already ended (a replay): nothing to do.
      if (!row || row.status !== 'IN_PROGRESS') return { handled: false };
      await deps.onFalResult(row, trainingEndOf(trainingStateFromWebhook(hook)));
      return { handled: true };
    },
  };
}

/** A trainer's state as an end of training; null while it still runs or when there is no usable state. */
export function trainingEndOf(state: TrainingState | null): TrainingEnd | null {
  return state && (state.status === 'COMPLETED' || state.status === 'FAILED') ? state : null;
}
