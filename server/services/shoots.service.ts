import { randomInt, randomUUID } from 'node:crypto';
import { SEED_LIMIT } from '@common/generation.ts';
import {
  describePrompt,
  fillPrompt,
  shootCost,
  toShootPhotoView,
  type PackView,
  type ShootPhotoView,
  type ShootSummary,
  type ShootView,
  type StartShootRequest,
} from '@common/photo-shoots.ts';
import { CREDIT_COSTS } from '@common/product.ts';
import type { Db, Executor } from '../db/index.ts';
import { AppError, conflict, forbidden, notFound } from '../domain/errors.ts';
import { isUuid } from '@common/ids.ts';
import type { Logger } from '../logger.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { usersRepository } from '../repositories/users.repository.ts';
import { shootViewsRepository } from '../repositories/shoot-views.repository.ts';
import { shootsRepository as repo, type PackWithPrompts, type ShootPhotoRow, type ShootRow } from '../repositories/shoots.repository.ts';
import type { CreditsService } from './credits.service.ts';
import { spaceOf, teamShootPack } from './team-access.ts';
import { debitWork, refundWork } from './team-credits.service.ts';
import { characterDeleted } from './characters.service.ts';

const PHOTO_COST = CREDIT_COSTS.generation;
/** A second start of the same pack for the same character this soon is the same click (returns that shoot). */
const DOUBLE_CLICK_MS = 10_000;
const LIST_LIMIT = 50;

export type ShootEnd = 'COMPLETED' | 'FAILED' | 'CANCELLED';

/**
 * Called inside the transaction that ends a shoot (completed, failed or cancelled), once per shoot, after its
 * row has its end status: the place for work that must happen exactly when a shoot ends ('shoot ready' mail).
 */
export type ShootEndedHook = (tx: Executor, shoot: ShootRow) => Promise<void>;

export interface ShootsDeps {
  db: Db;
  credits: CreditsService;
  events: EventBus;
  logger: Logger;
  /** Asks the shoot runner to look for queued photos now. */
  wake(): void;
  onShootEnded?: ShootEndedHook;
}

export type ShootsService = ReturnType<typeof createShootsService>;

/** Ledger key of a shoot's debit (N × 10 credits in one row). */
export const shootDebitKey = (shootId: string) => `shoot:${shootId}`;
/** Ledger key (before `refund:`) of one photo's refund: applied at most once per photo. */
export const photoRefundKey = (photoId: string) => `shoot-photo:${photoId}`;
/** Ledger key (before `refund:`) of a cancellation's refund of every photo not started. */
export const cancelRefundKey = (shootId: string) => `shoot-cancel:${shootId}`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toPackView(pack: PackWithPrompts): PackView {
  return {
    id: pack.id,
    name: pack.name,
    description: pack.description,
    category: pack.category,
    aspect_ratio: pack.aspectRatio,
    width: pack.width,
    height: pack.height,
    cover_url: pack.coverUrl,
    sample_urls: pack.sampleUrls,
    photo_count: pack.prompts.length,
    cost: shootCost(pack.prompts.length),
    prompts: pack.prompts.map(describePrompt),
  };
}

/** A photo just queued, as the shoot page shows it (the answer to a start, written without reading it back). */
const queuedPhotoView = (p: Pick<ShootPhotoRow, 'id' | 'position' | 'prompt' | 'width' | 'height'>): ShootPhotoView =>
  toShootPhotoView({
    id: p.id,
    position: p.position,
    status: 'QUEUED',
    prompt: p.prompt,
    width: p.width,
    height: p.height,
    image_url: null,
    generation_id: null,
    deleted: false,
    error: null,
    started_at: null,
    finished_at: null,
    ahead: null,
    likeness: null,
    likeness_verdict: null,
  });

function toSummary(s: ShootRow, counts: { ready: number; failed: number }): ShootSummary {
  return {
    id: s.id,
    pack_id: s.packId,
    pack_name: s.packName,
    lora_id: s.loraId,
    character_name: s.characterName,
    status: s.status,
    photo_count: s.photoCount,
    cost: s.cost,
    created_at: s.createdAt.toISOString(),
    finished_at: iso(s.finishedAt),
    retaken: s.retaken,
    ready: Number(counts.ready),
    failed: Number(counts.failed),
  };
}

/**
 * Photo shoots: start (debit N × 10 with the shoot and its N queued photo jobs, one transaction),
 * read, cancel (photos not started are refunded at once), and the photo outcomes the runner applies. Every
 * photo ends once (a conditional update), so each refund happens at most once; a shoot ends once, in
 * endShoot, the one place its end is recorded.
 */
export function createShootsService(deps: ShootsDeps) {
  const { db, credits, events, logger } = deps;

  const publish = (tx: Executor, shoot: Pick<ShootRow, 'id' | 'userId' | 'status'>) =>
    events.publish(tx, shoot.userId, { type: 'shoot', id: shoot.id, status: shoot.status });

  /** The one place a shoot ends: its status, its event, and the hook (mail), in the caller's transaction. */
  async function endShoot(tx: Executor, shootId: string, status: ShootEnd): Promise<ShootRow | undefined> {
    const ended = await repo.endShoot(tx, shootId, status);
    if (!ended) return undefined;
    await publish(tx, ended);
    await deps.onShootEnded?.(tx, ended);
    logger.info({ shootId, status }, 'photo shoot ended');
    return ended;
  }

  /** Ends the shoot when none of its photos is left to run: COMPLETED if any landed, else FAILED. */
  async function endIfDone(tx: Executor, shootId: string): Promise<void> {
    // Finishers of the shoot's last photos take turns on its row: each then counts the others' committed
    // photos, so two photos ending at once on two instances cannot both think the other is still running.
    await repo.lockShoot(tx, shootId);
    const counts = await repo.photoCounts(tx, shootId);
    if (counts.QUEUED + counts.RUNNING > 0) return;
    await endShoot(tx, shootId, counts.SUCCEEDED > 0 ? 'COMPLETED' : 'FAILED');
  }

  async function ownedShoot(userId: string, id: string): Promise<ShootRow> {
    const shoot = isUuid(id) ? await repo.findShoot(db, id) : undefined;
    // Someone else's shoot is as unknown as a missing one.
    if (!shoot || shoot.userId !== userId) throw notFound('There is no such photo shoot.');
    return shoot;
  }

  async function usableCharacter(userId: string, loraId: string) {
    const character = await repo.findCharacter(db, loraId);
    if (!character || character.userId !== userId) {
      throw forbidden('That character is not one of yours. Choose one of your trained characters.', 'lora_not_allowed');
    }
    if (character.deletedAt) throw characterDeleted();
    if (character.status === 'FAILED') {
      throw conflict(
        `The training of ${character.characterName} failed, so it cannot be photographed. Choose another character.`,
        'character_failed',
      );
    }
    if (character.status !== 'COMPLETED' || !character.loraFileUrl) {
      throw conflict(
        `${character.characterName} is still training. Start the shoot when the training has completed.`,
        'character_not_ready',
      );
    }
    return { ...character, loraFileUrl: character.loraFileUrl };
  }

  /** The team's look as a pack (hidden from the catalogue, so found by id only). */
  async function teamPack(userId: string, teamId: string): Promise<PackWithPrompts> {
    const pack = await repo.findPack(db, await teamShootPack(db, userId, teamId));
    if (!pack || pack.prompts.length === 0)
      throw new AppError(422, 'pack_empty', 'The team’s look has no photos yet. Ask your team lead to choose it again.');
    return pack;
  }

  async function availablePack(packId: string): Promise<PackWithPrompts> {
    const pack = await repo.findPack(db, packId);
    if (!pack || pack.hidden) throw notFound('That photo shoot is not available any more. Choose another one.');
    if (pack.prompts.length === 0) throw new AppError(422, 'pack_empty', `The ${pack.name} shoot has no photos yet. Choose another one.`);
    return pack;
  }

  /** GET /api/shoots/<id>: the shoot and its photos; queued photos say how many photos start before them. */
  async function get(userId: string, id: string): Promise<ShootView> {
    const shoot = await ownedShoot(userId, id);
    const [photos, recent] = [await shootViewsRepository.photos(db, id), await repo.recentPhotoMs(db)];
    const { ready: _r, failed: _f, ...summary } = toSummary(shoot, { ready: 0, failed: 0 });
    return { ...summary, photos: photos.map(toShootPhotoView), recent_photo_ms: recent };
  }

  return {
    get,
    endShoot,
    endIfDone,

    async listPacks(): Promise<PackView[]> {
      return (await repo.listPacks(db, { includeHidden: false })).map(toPackView);
    },

    async getPack(id: string): Promise<PackView> {
      const pack = await repo.findPack(db, id);
      if (!pack || pack.hidden) throw notFound('That photo shoot is not available any more. Choose another one.');
      return toPackView(pack);
    },

    /**
     * POST /api/shoots: one transaction debits N × 10, writes the shoot and its N queued photos; nothing is
     * charged when the pack or character is refused. A repeat of the same request (double click) answers the
     * first shoot.
     */
    async start(userId: string, request: StartShootRequest & { request_id?: string }): Promise<{ shoot: ShootView; created: boolean }> {
      // A team shoot (issue 49) is taken in the team's look with a team character of that team, paid by the team.
      const payer = { userId, teamId: request.team_id ?? null };
      const pack = payer.teamId ? await teamPack(userId, payer.teamId) : await availablePack(request.pack_id);
      const character = await usableCharacter(userId, request.lora_id);
      if ((character.teamId ?? null) !== payer.teamId && payer.teamId)
        throw forbidden('Choose the character you trained for this team.', 'lora_not_allowed');
      const shootId = randomUUID();
      const cost = shootCost(pack.prompts.length);
      const started = await db.transaction(async (tx) => {
        // The user's row is the lock every paid action takes; two clicks queue here and the second sees the first.
        await usersRepository.lockRow(tx, userId);
        const same = await repo.findRepeatedStart(tx, {
          userId,
          requestId: request.request_id,
          packId: pack.id,
          loraId: character.id,
          withinSeconds: DOUBLE_CLICK_MS / 1000,
        });
        if (same) return { shoot: same, created: false, photos: undefined };
        await debitWork(
          tx,
          { credits, events },
          payer,
          cost,
          `Photo shoot: ${pack.name} (${pack.prompts.length} photos)`,
          shootDebitKey(shootId),
        );
        const photos = pack.prompts.map((template, position) => ({
          id: randomUUID(),
          shootId,
          userId,
          position,
          prompt: fillPrompt(template, character),
          width: pack.width,
          height: pack.height,
          seed: randomInt(SEED_LIMIT),
        }));
        const shoot = await repo.insertShoot(
          tx,
          {
            id: shootId,
            requestId: request.request_id,
            userId,
            packId: pack.id,
            loraId: character.id,
            packName: pack.name,
            characterName: character.characterName,
            photoCount: pack.prompts.length,
            cost,
            teamId: payer.teamId,
          },
          photos,
          // A new shoot is RUNNING (the column's default); its event goes out from the same statement.
          events.notification(userId, { type: 'shoot', id: shootId, status: 'RUNNING' }),
        );
        return { shoot, created: true, photos };
      });
      if (!started.created) return { shoot: await get(userId, started.shoot.id), created: false };
      deps.wake();
      // The new shoot as written (no further reads: starting is one transaction and this answer).
      const { ready: _r, failed: _f, ...summary } = toSummary(started.shoot, { ready: 0, failed: 0 });
      return {
        shoot: { ...summary, photos: started.photos!.map(queuedPhotoView) },
        created: true,
      };
    },

    /** `team`: the space (issue 49; a team the caller is in, else 404), none for the personal one. */
    async list(userId: string, opts: { running?: boolean; team?: string }): Promise<ShootSummary[]> {
      const teamId = await spaceOf(db, userId, opts.team);
      return (await repo.listShoots(db, userId, { running: opts.running, limit: LIST_LIMIT, teamId })).map((r) => toSummary(r.shoot, r));
    },

    /** POST /api/shoots/<id>/cancel: photos not started are cancelled and refunded at once; running ones land. */
    async cancel(userId: string, id: string): Promise<ShootView> {
      await ownedShoot(userId, id);
      await db.transaction(async (tx) => {
        const shoot = await repo.lockShoot(tx, id);
        if (!shoot) throw notFound('There is no such photo shoot.');
        if (shoot.status === 'CANCELLED') throw conflict('This shoot was already cancelled.', 'shoot_cancelled');
        if (shoot.status !== 'RUNNING') throw conflict('This shoot has already finished; there is nothing to cancel.', 'shoot_finished');
        const cancelled = await repo.cancelUnstarted(tx, id);
        if (cancelled.length) {
          await refundWork(
            tx,
            { credits, events },
            { userId, teamId: shoot.teamId },
            cancelled.length * PHOTO_COST,
            `Refund: photo shoot ${shoot.packName} cancelled (${cancelled.length} photos not taken)`,
            cancelRefundKey(id),
          );
        }
        await endShoot(tx, id, 'CANCELLED');
      });
      return get(userId, id);
    },

    /** A photo landed (inside the transaction that saves its generation); false when it had already ended. */
    async photoSucceeded(tx: Executor, photo: ShootPhotoRow, imageUrl: string): Promise<boolean> {
      const done = await repo.finishPhoto(tx, photo.id, { status: 'SUCCEEDED', generationId: photo.id, imageUrl });
      if (!done) return false;
      await publish(tx, { id: photo.shootId, userId: photo.userId, status: 'RUNNING' });
      await endIfDone(tx, photo.shootId);
      return true;
    },

    /** A photo failed: ended FAILED and refunded 10 credits, once, in one transaction; false if it had ended. */
    async photoFailed(photo: ShootPhotoRow, error: string): Promise<boolean> {
      return db.transaction(async (tx) => {
        // The shoot's row first, as a cancel takes it: a cancel holds it and then waits for the person's row (its
        // refund), so a failure that held the person's row (its refund) before waiting for the shoot's deadlocked.
        const shoot = await repo.lockShoot(tx, photo.shootId);
        const done = await repo.finishPhoto(tx, photo.id, { status: 'FAILED', error: error.slice(0, 500) });
        if (!done) return false;
        const payer = { userId: photo.userId, teamId: shoot?.teamId ?? null };
        await refundWork(tx, { credits, events }, payer, PHOTO_COST, 'Refund: photo shoot photo failed', photoRefundKey(photo.id));
        await publish(tx, { id: photo.shootId, userId: photo.userId, status: 'RUNNING' });
        await endIfDone(tx, photo.shootId);
        return true;
      });
    },
  };
}
