import type { GenerationView } from '@common/generation.ts';
import { pageCountOf, restoreRefused, SELECTION_GONE, type LibraryPage, type LibraryQuery, type SelectionResult } from '@common/library.ts';
import { LIMITS } from '@common/product.ts';
import type { Db } from '../db/index.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { isUuid } from '@common/ids.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { libraryRepository as repo } from '../repositories/library.repository.ts';
import { keyFromMediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import { toGenerationView } from './generations.service.ts';
import { storedFile, zipStream, type ZipEntry } from './zip-stream.ts';
import type { Logger } from '../logger.ts';
import { spaceOf } from './team-access.ts';

/** A selection that is not wholly the caller's listed images; the same answer whichever id it was. */
const selectionGone = () => new AppError(404, 'selection_gone', SELECTION_GONE);

/** The one answer for "not yours", "deleted" and "never existed", so ids of other users cannot be probed. */
const noSuchGeneration = () => notFound('No such generation.');

/** Undo came too late: the window has passed or the files are gone (410: it will not come back). */
const notRestorable = (count: number) => new AppError(410, 'restore_refused', restoreRefused(count));

export type LibraryService = ReturnType<typeof createLibraryService>;

/**
 * My Generations and Favorites (product §2, §4, §6): every call takes the caller's users id first and touches
 * only that user's ACTIVE rows.
 */
export function createLibraryService(deps: { db: Db; events: EventBus; storage: StorageProvider; logger: Logger }) {
  const { db, events, storage } = deps;

  /**
   * Undo of a delete (the toast's Undo), all or nothing: every id must be a generation of the caller (else
   * `gone`, the same answer as for one that never existed), and each deleted one still restorable (within
   * GENERATION_UNDO_SECONDS of its delete, its files not yet removed), else nothing changes. One already
   * ACTIVE again (a repeated Undo, whose first answer was lost) counts as done. Answers how many came back; the
   * change reaches the person's other tabs as the delete did (our event stream; in hosted mode Supabase Realtime
   * sees the row change).
   */
  async function restoreAll(userId: string, ids: string[], gone: () => AppError): Promise<number> {
    const restored = await db.transaction(async (tx) => {
      const found = await repo.ownAmongForRestore(tx, userId, ids);
      if (found.length !== ids.length) return { refused: gone() };
      const deleted = found.filter((g) => g.status !== 'ACTIVE');
      if (deleted.some((g) => !g.restorable)) return { refused: notRestorable(ids.length) };
      const done = await repo.restore(
        tx,
        userId,
        deleted.map((g) => g.id),
      );
      for (const id of done) await events.publish(tx, userId, { type: 'generation', action: 'restored', id });
      return { done };
    });
    if ('refused' in restored) throw restored.refused;
    return restored.done.length;
  }

  return {
    /** `team`: the space (issue 49; a team the caller is in, else 404), none for the personal one. */
    async list(userId: string, { page, favorites, likeness }: LibraryQuery, team?: string): Promise<LibraryPage> {
      // 'Weak likeness' filters My Generations only (favourites are kept on purpose).
      const weak = likeness && !favorites;
      const teamId = await spaceOf(db, userId, team);
      const [rows, total] = await Promise.all([
        repo.listPage(db, userId, favorites, page, weak, teamId),
        repo.count(db, userId, favorites, weak, teamId),
      ]);
      return { items: rows.map(toGenerationView), page, pageSize: LIMITS.pageSize, total, pageCount: pageCountOf(total) };
    },

    /** One ACTIVE generation of the caller (the source an upscale or edit links to). */
    async get(userId: string, id: string): Promise<GenerationView> {
      const row = isUuid(id) ? await repo.findListed(db, userId, id) : undefined;
      if (!row) throw noSuchGeneration();
      return toGenerationView(row);
    },

    async setFavorite(userId: string, id: string, isFavorite: boolean): Promise<GenerationView> {
      if (!isUuid(id)) throw noSuchGeneration();
      const updated = await db.transaction(async (tx) => {
        if (!(await repo.setFavorite(tx, userId, id, isFavorite))) return undefined;
        await events.publish(tx, userId, { type: 'generation', action: 'updated', id });
        return repo.findListed(tx, userId, id);
      });
      if (!updated) throw noSuchGeneration();
      return toGenerationView(updated);
    },

    /**
     * 'Delete' or 'Add to favorites' for the selected images, all or nothing: when any of them is not a listed
     * generation of the caller (another person's, deleted meanwhile, made up), nothing changes.
     */
    async applyToSelection(userId: string, action: 'delete' | 'favorite' | 'restore', ids: string[]): Promise<SelectionResult> {
      if (action === 'restore') return { changed: await restoreAll(userId, ids, selectionGone) };
      const changed = await db.transaction(async (tx) => {
        const found = await repo.listedAmong(tx, userId, ids);
        if (found.length !== ids.length) return null;
        const done = await repo.updateMany(tx, userId, ids, action);
        for (const id of done)
          await events.publish(tx, userId, { type: 'generation', action: action === 'delete' ? 'deleted' : 'updated', id });
        return done.length;
      });
      if (changed === null) throw selectionGone();
      return { changed };
    },

    /** 'Download' of the selected images: their original files in a streamed ZIP, newest first. */
    async downloadSelection(userId: string, ids: string[]): Promise<ReadableStream<Uint8Array>> {
      const found = await db.transaction((tx) => repo.listedAmong(tx, userId, ids));
      if (found.length !== ids.length) throw selectionGone();
      const entries: ZipEntry[] = found.flatMap((g) => {
        const key = keyFromMediaUrl(g.imageUrl);
        if (!key) return [];
        const extension = /\.([a-z0-9]{1,5})$/i.exec(key)?.[1] ?? g.outputFormat;
        return [
          {
            name: `${g.createdAt.toISOString().slice(0, 10)}_${g.id}.${extension}`,
            modified: g.createdAt,
            content: storedFile(storage, g.imageUrl),
          },
        ];
      });
      return zipStream(entries, (err) => deps.logger.error({ err, userId }, 'a download of selected images was cut short'));
    },

    /** Undo of one image's delete: the generation as it is listed again. */
    async restore(userId: string, id: string): Promise<GenerationView> {
      if (!isUuid(id)) throw noSuchGeneration();
      await restoreAll(userId, [id], noSuchGeneration);
      const row = await repo.findListed(db, userId, id);
      if (!row) throw noSuchGeneration();
      return toGenerationView(row);
    },

    /**
     * Soft delete: the row stays (and so does its image, for any explore item published from it). Undo can
     * bring it back for GENERATION_UNDO_SECONDS; then the purge removes its files.
     */
    async remove(userId: string, id: string): Promise<void> {
      if (!isUuid(id)) throw noSuchGeneration();
      const deleted = await db.transaction(async (tx) => {
        const row = await repo.softDelete(tx, userId, id);
        if (row) await events.publish(tx, userId, { type: 'generation', action: 'deleted', id });
        return row;
      });
      if (!deleted) throw noSuchGeneration();
    },
  };
}
