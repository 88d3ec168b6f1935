import type { GenerationView } from '@common/generation.ts';
import { pageCountOf, type LibraryPage, type LibraryQuery } from '@common/library.ts';
import { LIMITS } from '@common/product.ts';
import type { Db } from '../db/index.ts';
import { notFound } from '../http/errors.ts';
import { isUuid } from '../http/validate.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { libraryRepository as repo } from '../repositories/library.repository.ts';
import { toGenerationView } from './generations.service.ts';


/** The one answer for "not yours", "deleted" and "never existed", so ids of other users cannot be probed. */
const noSuchGeneration = () => notFound('No such generation.');

export type LibraryService = ReturnType<typeof createLibraryService>;

/**
 * My Generations and Favorites (spec §2, §4, §6): every call takes the caller's users id first and touches
 * only that user's ACTIVE rows.
 */
export function createLibraryService(deps: { db: Db; events: EventBus }) {
  const { db, events } = deps;

  return {
    async list(userId: string, { page, favorites }: LibraryQuery): Promise<LibraryPage> {
      const [rows, total] = await Promise.all([repo.listPage(db, userId, favorites, page), repo.count(db, userId, favorites)]);
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

    /** Soft delete: the row stays (and so does its image, for any explore item published from it). */
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
