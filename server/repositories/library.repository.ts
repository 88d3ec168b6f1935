import { and, count, desc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import { generationsList } from '@common/library.ts';
import { LIMITS } from '@common/product.ts';
import type { Executor } from '../db/index.ts';
import { generations, loraTrainings } from '../db/schema.ts';
import { characterColumns, withCharacter, type GenerationRow, type GenerationWithCharacter } from './generations.repository.ts';
import { listOrder, listWhere } from './list-query.ts';

/**
 * The caller's listed generations: ACTIVE (spec §4), optionally only favourites (common/library.ts LISTS, which
 * the hosted adapter reads too). Matches the partial indexes generations_user_active_created_idx /
 * generations_user_favorite_created_idx exactly.
 */
function listed(userId: string, favorites: boolean, weakLikeness = false): SQL {
  return and(eq(generations.userId, userId), listWhere(generationsList(favorites, weakLikeness), generations))!;
}

/** Drizzle queries of My Generations and Favorites. */
export const libraryRepository = {
  /** One page in the list's order (newest first, then id), with the character each used (spec §3: joined lora_trainings). */
  async listPage(db: Executor, userId: string, favorites: boolean, page: number, weakLikeness = false): Promise<GenerationWithCharacter[]> {
    const rows = await db
      .select({ generation: getTableColumns(generations), character: characterColumns })
      .from(generations)
      .leftJoin(loraTrainings, eq(loraTrainings.id, generations.loraId))
      .where(listed(userId, favorites, weakLikeness))
      .orderBy(...listOrder(generationsList(favorites, weakLikeness), generations))
      .limit(LIMITS.pageSize)
      .offset((page - 1) * LIMITS.pageSize);
    return rows.map(withCharacter);
  },

  async count(db: Executor, userId: string, favorites: boolean, weakLikeness = false): Promise<number> {
    const [row] = await db.select({ n: count() }).from(generations).where(listed(userId, favorites, weakLikeness));
    return row.n;
  },

  async findListed(db: Executor, userId: string, id: string): Promise<GenerationWithCharacter | undefined> {
    const [row] = await db
      .select({ generation: getTableColumns(generations), character: characterColumns })
      .from(generations)
      .leftJoin(loraTrainings, eq(loraTrainings.id, generations.loraId))
      .where(and(eq(generations.id, id), listed(userId, false)))
      .limit(1);
    return row && withCharacter(row);
  },

  /** Sets is_favorite on an ACTIVE generation of the user; false when there is none. */
  async setFavorite(db: Executor, userId: string, id: string, isFavorite: boolean): Promise<boolean> {
    const rows = await db
      .update(generations)
      .set({ isFavorite })
      .where(and(eq(generations.id, id), listed(userId, false)))
      .returning({ id: generations.id });
    return rows.length === 1;
  },

  /** Which of these ids are listed generations of the user (the rest are not theirs, deleted or unknown). */
  async listedAmong(db: Executor, userId: string, ids: string[]): Promise<Pick<GenerationRow, 'id' | 'imageUrl' | 'outputFormat' | 'createdAt'>[]> {
    if (ids.length === 0) return [];
    return db
      .select({ id: generations.id, imageUrl: generations.imageUrl, outputFormat: generations.outputFormat, createdAt: generations.createdAt })
      .from(generations)
      .where(and(inArray(generations.id, ids), listed(userId, false)))
      .orderBy(desc(generations.createdAt), desc(generations.id))
      .for('update');
  },

  /** Soft-deletes or favourites listed generations of the user; answers the ids it changed. */
  async updateMany(db: Executor, userId: string, ids: string[], change: { status: 'DELETED' } | { isFavorite: true }): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .update(generations)
      .set(change)
      .where(and(inArray(generations.id, ids), listed(userId, false)))
      .returning({ id: generations.id });
    return rows.map((r) => r.id);
  },

  /** Soft delete (spec §4: ACTIVE → DELETED); false when there was no ACTIVE generation of the user. */
  async softDelete(db: Executor, userId: string, id: string): Promise<GenerationRow | undefined> {
    const [row] = await db
      .update(generations)
      .set({ status: 'DELETED', deletedAt: sql`now()` })
      .where(and(eq(generations.id, id), listed(userId, false)))
      .returning();
    return row;
  },
};
