import { CREDIT_COSTS } from '@common/product.ts';
import type { TrainingView } from '@common/training.ts';
import type { Db, Executor } from '../db/index.ts';
import { AppError, forbidden, notFound } from '../domain/errors.ts';
import { isUuid } from '../domain/validate.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../ops/metrics.ts';
import { keyFromMediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { generationsRepository, type CharacterRow } from '../repositories/generations.repository.ts';
import { trainingsRepository as repo, type TrainingRow } from '../repositories/trainings.repository.ts';
import type { CreditsService } from './credits.service.ts';
import { finishTrainingIn, toTrainingView } from './trainings.service.ts';
import type { UploadsService } from './uploads.service.ts';

/** How a caller names a character: by its id (the API, photo shoots) or by its LoRA file (create-image, spec §7). */
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
 * 'Rename' and 'Delete' in Previous Trainings (issue 24). Every call takes the caller's users id first and
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
   * Every file a training may have left: its LoRA (ours under a fixed key per trainer, whatever the row still
   * says), our copy of a fal LoRA, and the photo archive unless another live training of the person uses it.
   */
  async function removeFiles(userId: string, row: TrainingRow): Promise<number> {
    const keys = new Set([`loras/${userId}/${row.id}.json`, `loras/${userId}/${row.id}.safetensors`]);
    const stored = (row.result as { stored_copy?: unknown } | null)?.stored_copy;
    for (const url of [row.loraFileUrl, typeof stored === 'string' ? stored : null]) {
      const key = url ? keyFromMediaUrl(url) : null;
      if (key?.startsWith(`loras/${userId}/`)) keys.add(key);
    }
    let removed = 0;
    for (const key of keys) {
      if (await storage.exists(key)) removed++;
      await storage.delete(key);
    }
    const archive = row.uploadUrl ? keyFromMediaUrl(row.uploadUrl) : null;
    if (archive?.startsWith(`uploads/${userId}/`) && !(await repo.archiveInUse(db, userId, row.uploadUrl!))) {
      if (await storage.exists(archive)) removed++;
      await deps.uploads.discardKey(userId, archive);
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
     * (so nothing can use it) in the same transaction, then its files go. Deleting it again (a double click, or
     * a retry after a storage failure) removes whatever file is still there and succeeds.
     */
    async delete(userId: string, id: string): Promise<{ files: number }> {
      if (!isUuid(id)) throw noSuchCharacter();
      const row = await db.transaction(async (tx) => {
        const found = await repo.findOwned(tx, userId, id, true);
        if (!found || found.deletedAt) return found;
        if (found.status === 'IN_PROGRESS') await finishTrainingIn(tx, deps, id, { status: 'FAILED', error: CANCELLED_BY_DELETE }, { cancelledByOwner: true });
        const marked = await repo.markDeleted(tx, id);
        if (marked) await events.publish(tx, userId, { type: 'training', action: 'deleted', id, status: marked.status });
        return found;
      });
      if (!row) throw noSuchCharacter();
      const files = await removeFiles(userId, row);
      logger.info({ userId, trainingId: id, files, cancelled: row.status === 'IN_PROGRESS' && !row.deletedAt }, 'deleted a character');
      return { files };
    },
  };
}
