import { and, count, eq, getTableColumns, type SQL } from 'drizzle-orm';
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
function listed(userId: string, favorites: boolean): SQL {
  return and(eq(generations.userId, userId), listWhere(generationsList(favorites), generations))!;
}

/** Drizzle queries of My Generations and Favorites. */
export const libraryRepository = {
  /** One page in the list's order (newest first, then id), with the character each used (spec §3: joined lora_trainings). */
  async listPage(db: Executor, userId: string, favorites: boolean, page: number): Promise<GenerationWithCharacter[]> {
    const rows = await db
      .select({ generation: getTableColumns(generations), character: characterColumns })
      .from(generations)
      .leftJoin(loraTrainings, eq(loraTrainings.id, generations.loraId))
      .where(listed(userId, favorites))
      .orderBy(...listOrder(generationsList(favorites), generations))
      .limit(LIMITS.pageSize)
      .offset((page - 1) * LIMITS.pageSize);
    return rows.map(withCharacter);
  },

  async count(db: Executor, userId: string, favorites: boolean): Promise<number> {
    const [row] = await db.select({ n: count() }).from(generations).where(listed(userId, favorites));
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

  /** Soft delete (spec §4: ACTIVE → DELETED); false when there was no ACTIVE generation of the user. */
  async softDelete(db: Executor, userId: string, id: string): Promise<GenerationRow | undefined> {
    const [row] = await db
      .update(generations)
      .set({ status: 'DELETED' })
      .where(and(eq(generations.id, id), listed(userId, false)))
      .returning();
    return row;
  },
};
