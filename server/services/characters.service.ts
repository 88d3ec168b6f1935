import { CREDIT_COSTS } from '@common/product.ts';
import {
  CHARACTER_CANCELLED_NOT_RESTORABLE,
  CHARACTER_RESTORE_REFUSED,
  CHARACTER_UNDO_SECONDS,
  type TrainingView,
} from '@common/training.ts';
import type { Db, Executor } from '../db/index.ts';
import type { DeletedCharacterFiles } from '../db/schema.ts';
import { AppError, forbidden, notFound } from '../domain/errors.ts';
import { isUuid } from '@common/ids.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../ops/metrics.ts';
import { keyFromMediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { generationsRepository, type CharacterRow } from '../repositories/generations.repository.ts';
import { trainingsRepository as repo } from '../repositories/trainings.repository.ts';
import type { CreditsService } from './credits.service.ts';
import { finishTrainingIn, toTrainingView } from './trainings.service.ts';
import type { UploadsService } from './uploads.service.ts';

/** How a caller names a character: by its id (the API, photo shoots) or by its LoRA file (create-image, product §7). */
export type CharacterRef = { id: string } | { loraFileUrl: string };

/**
 * THE usable-character rule: a character may be generated with (create-image, photo shoots, the API) only
 * when it is the caller's own training, COMPLETED, with a LoRA file, and not deleted. Undefined otherwise.
 */
export function findUsableCharacter(db: Executor, userId: string, ref: CharacterRef): Promise<CharacterRow | undefined> {
  if ('id' in ref && !isUuid(ref.id)) return Promise.resolve(undefined);
  return generationsRepository.findUsableCharacter(db, userId, ref);
}

/** The usable character `ref` names, or a 4xx the person can act on (a deleted one of theirs says so). */
export async function requireUsableCharacter(db: Executor, userId: string, ref: CharacterRef): Promise<CharacterRow> {
  const usable = await findUsableCharacter(db, userId, ref);
  if (usable) return usable;
  // Only the owner learns that a character was deleted; anyone else's id gets the same answer as a made-up one.
  const own = 'id' in ref && isUuid(ref.id) ? await repo.findOwned(db, userId, ref.id) : undefined;
  if (own?.deletedAt) throw characterDeleted();
  throw forbidden('That character is not one of your completed trainings. Choose another character.', 'lora_not_allowed');
}

export const characterDeleted = () => new AppError(410, 'character_deleted', 'This character has been deleted. Choose another character.');
/** The one answer for "not yours" and "never existed", so other people's ids cannot be probed. */
const noSuchCharacter = () => notFound('No such character.');

/** The error a training deleted while it ran ends with (its debit is refunded with it). */
export const CANCELLED_BY_DELETE = `Cancelled: the character was deleted. Your ${CREDIT_COSTS.training} credits have been refunded.`;

export type CharactersService = ReturnType<typeof createCharactersService>;

/**
 * 'Rename' and 'Delete' in Previous Trainings. Every call takes the caller's users id first and
 * touches only that user's trainings.
 */
export function createCharactersService(deps: {
  db: Db;
  credits: CreditsService;
  events: EventBus;
  metrics: Metrics;
  storage: StorageProvider;
  uploads: UploadsService;
  logger: Logger;
}) {
  const { db, events, storage, logger } = deps;

  /**
   * Every file a deleted training may have left: its LoRA (ours under a fixed key per trainer, whatever the
   * row said), our copy of a fal LoRA, and the photo archive unless another training of the person uses it.
   * `tx` holds the training's row lock (the purge's), so an Undo cannot bring it back meanwhile.
   */
  async function removeFiles(tx: Executor, userId: string, id: string, files: DeletedCharacterFiles | null): Promise<number> {
    const keys = new Set([`loras/${userId}/${id}.json`, `loras/${userId}/${id}.safetensors`]);
    const stored = (files?.result as { stored_copy?: unknown } | null | undefined)?.stored_copy;
    for (const url of [files?.loraFileUrl, typeof stored === 'string' ? stored : null]) {
      const key = url ? keyFromMediaUrl(url) : null;
      if (key?.startsWith(`loras/${userId}/`)) keys.add(key);
    }
    let removed = 0;
    for (const key of keys) {
      if (await storage.exists(key)) removed++;
      await storage.delete(key);
    }
    const uploadUrl = files?.uploadUrl;
    const archive = uploadUrl ? keyFromMediaUrl(uploadUrl) : null;
    if (archive?.startsWith(`uploads/${userId}/`) && !(await repo.archiveInUse(tx, userId, uploadUrl!, id))) {
      if (await storage.exists(archive)) removed++;
      await deps.uploads.discardKey(userId, archive, tx);
    }
    return removed;
  }

  return {
    async rename(userId: string, id: string, characterName: string): Promise<TrainingView> {
      if (!isUuid(id)) throw noSuchCharacter();
      const row = await db.transaction(async (tx) => {
        const renamed = await repo.rename(tx, userId, id, characterName);
        if (renamed) await events.publish(tx, userId, { type: 'training', action: 'updated', id, status: renamed.status });
        return renamed;
      });
      if (!row) throw noSuchCharacter();
      return toTrainingView(row);
    },

    /**
     * Deletes a character: a training still running is cancelled and refunded first, the row is marked deleted
     * (so nothing can use it) in the same transaction. Its files stay for CHARACTER_UNDO_SECONDS, so Undo can
     * bring it back (product §4); then purgeLapsed removes them. Deleting it again (a double click) succeeds.
     */
    async delete(userId: string, id: string): Promise<{ cancelled: boolean }> {
      if (!isUuid(id)) throw noSuchCharacter();
      const outcome = await db.transaction(async (tx) => {
        const found = await repo.findOwned(tx, userId, id, true);
        if (!found || found.deletedAt) return found && { cancelled: false };
        const cancelled = found.status === 'IN_PROGRESS';
        if (cancelled) await finishTrainingIn(tx, deps, id, { status: 'FAILED', error: CANCELLED_BY_DELETE }, { cancelledByOwner: true });
        const marked = await repo.markDeleted(tx, found, cancelled);
        if (marked) await events.publish(tx, userId, { type: 'training', action: 'deleted', id, status: marked.status });
        return { cancelled };
      });
      if (!outcome) throw noSuchCharacter();
      logger.info({ userId, trainingId: id, cancelled: outcome.cancelled }, 'deleted a character');
      return outcome;
    },

    /**
     * Undo of a delete (the toast's Undo): the character as it was, back in Previous Trainings and the pickers.
     * Only the owner's (404 otherwise, as for one that never existed), only within CHARACTER_UNDO_SECONDS and
     * while its files are there (410), never a training the delete cancelled and refunded (410). One not
     * deleted (a repeated Undo whose first answer was lost) is answered as it is. The row lock is the one the
     * purge takes, so an Undo and a purge never both win.
     */
    async restore(userId: string, id: string): Promise<TrainingView> {
      if (!isUuid(id)) throw noSuchCharacter();
      const outcome = await db.transaction(async (tx) => {
        const found = await repo.findOwned(tx, userId, id, true);
        if (!found) return { refused: noSuchCharacter() };
        if (!found.deletedAt) return { row: found };
        if (found.deletedFiles?.cancelled) return { refused: new AppError(410, 'restore_refused', CHARACTER_CANCELLED_NOT_RESTORABLE) };
        const row = await repo.restore(tx, userId, id, CHARACTER_UNDO_SECONDS);
        if (!row) return { refused: new AppError(410, 'restore_refused', CHARACTER_RESTORE_REFUSED) };
        await events.publish(tx, userId, { type: 'training', action: 'restored', id, status: row.status });
        return { row };
      });
      if ('refused' in outcome) throw outcome.refused;
      logger.info({ userId, trainingId: id }, 'restored a deleted character');
      return toTrainingView(outcome.row);
    },

    /**
     * The purge (server/jobs/deleted-characters.ts): removes the files of characters deleted more than
     * `undoSeconds` ago, each under its row lock, then marks them removed. Rows an Undo holds are skipped (the
     * Undo either brings them back or leaves them for the next pass). Answers how many characters it purged.
     */
    async purgeLapsed(undoSeconds: number, batch: number): Promise<{ characters: number; files: number; more: boolean }> {
      return db.transaction(async (tx) => {
        const rows = await repo.lapsedDeletes(tx, undoSeconds, batch, true);
        let files = 0;
        for (const row of rows) {
          files += await removeFiles(tx, row.userId, row.id, row.deletedFiles);
          await repo.markFilesRemoved(tx, row.id);
        }
        return { characters: rows.length, files, more: rows.length === batch };
      });
    },
  };
}
