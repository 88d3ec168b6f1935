import { and, count, desc, eq, getTableColumns, gt, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import { GENERATION_UNDO_SECONDS, generationsList } from '@common/library.ts';
import { LIMITS } from '@common/product.ts';
import type { Executor } from '../db/index.ts';
import { generations, loraTrainings } from '../db/schema.ts';
import { characterColumns, withCharacter, type GenerationRow, type GenerationWithCharacter } from './generations.repository.ts';
import { listOrder, listWhere } from './list-query.ts';
import { generationInSpace } from './trainings.repository.ts';

/**
 * The caller's listed generations: ACTIVE (product §4), optionally only favourites (common/library.ts LISTS, which
 * the hosted adapter reads too). Matches the partial indexes generations_user_active_created_idx /
 * generations_user_favorite_created_idx exactly.
 */
/** `teamId`: the list of one space (issue 49; null: personal); undefined: any (one generation by its id). */
function listed(userId: string, favorites: boolean, weakLikeness = false, teamId?: string | null): SQL {
  return and(
    eq(generations.userId, userId),
    listWhere(generationsList(favorites, weakLikeness), generations),
    teamId === undefined ? undefined : generationInSpace(teamId),
  )!;
}

/** A deleted generation that Undo may still bring back (see ownAmongForRestore). */
const restorable = and(
  eq(generations.status, 'DELETED'),
  isNull(generations.filesRemovedAt),
  or(isNull(generations.deletedAt), gt(generations.deletedAt, sql`now() - make_interval(secs => ${GENERATION_UNDO_SECONDS})`)),
)!;

/** Drizzle queries of My Generations and Favorites. */
export const libraryRepository = {
  /** One page in the list's order (newest first, then id), with the character each used (product §3: joined lora_trainings). */
  async listPage(
    db: Executor,
    userId: string,
    favorites: boolean,
    page: number,
    weakLikeness: boolean,
    teamId: string | null,
  ): Promise<GenerationWithCharacter[]> {
    const rows = await db
      .select({ generation: getTableColumns(generations), character: characterColumns })
      .from(generations)
      .leftJoin(loraTrainings, eq(loraTrainings.id, generations.loraId))
      .where(listed(userId, favorites, weakLikeness, teamId))
      .orderBy(...listOrder(generationsList(favorites, weakLikeness), generations))
      .limit(LIMITS.pageSize)
      .offset((page - 1) * LIMITS.pageSize);
    return rows.map(withCharacter);
  },

  async count(db: Executor, userId: string, favorites: boolean, weakLikeness: boolean, teamId: string | null): Promise<number> {
    const [row] = await db
      .select({ n: count() })
      .from(generations)
      .where(listed(userId, favorites, weakLikeness, teamId));
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
  async listedAmong(
    db: Executor,
    userId: string,
    ids: string[],
  ): Promise<Pick<GenerationRow, 'id' | 'imageUrl' | 'outputFormat' | 'createdAt'>[]> {
    if (ids.length === 0) return [];
    return db
      .select({
        id: generations.id,
        imageUrl: generations.imageUrl,
        outputFormat: generations.outputFormat,
        createdAt: generations.createdAt,
      })
      .from(generations)
      .where(and(inArray(generations.id, ids), listed(userId, false)))
      .orderBy(desc(generations.createdAt), desc(generations.id))
      .for('update');
  },

  /**
   * Soft-deletes (stamping deleted_at, which starts the Undo window) or favourites listed generations of the
   * user; answers the ids it changed.
   */
  async updateMany(db: Executor, userId: string, ids: string[], change: 'delete' | 'favorite'): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .update(generations)
      .set(change === 'delete' ? { status: 'DELETED', deletedAt: sql`now()` } : { isFavorite: true })
      .where(and(inArray(generations.id, ids), listed(userId, false)))
      .returning({ id: generations.id });
    return rows.map((r) => r.id);
  },

  /** Soft delete (product §4: ACTIVE → DELETED); false when there was no ACTIVE generation of the user. */
  async softDelete(db: Executor, userId: string, id: string): Promise<GenerationRow | undefined> {
    const [row] = await db
      .update(generations)
      .set({ status: 'DELETED', deletedAt: sql`now()` })
      .where(and(eq(generations.id, id), listed(userId, false)))
      .returning();
    return row;
  },

  /**
   * The user's generations among these ids, whatever their status, locked until the transaction ends (a purge
   * of deleted files takes the same row locks), with whether each could still be restored: DELETED, its files
   * still there, and deleted less than GENERATION_UNDO_SECONDS ago. A hosted delete (PostgREST sets only the
   * status) has no deleted_at until the purge's next pass stamps it, a few seconds at most: it is recent.
   */
  async ownAmongForRestore(db: Executor, userId: string, ids: string[]): Promise<{ id: string; status: string; restorable: boolean }[]> {
    if (ids.length === 0) return [];
    return db
      .select({ id: generations.id, status: generations.status, restorable: sql<boolean>`${restorable}` })
      .from(generations)
      .where(and(inArray(generations.id, ids), eq(generations.userId, userId)))
      .for('update');
  },

  /** Undo of a delete: DELETED → ACTIVE for those of the ids still restorable; answers the ids it changed. */
  async restore(db: Executor, userId: string, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .update(generations)
      .set({ status: 'ACTIVE', deletedAt: null })
      .where(and(inArray(generations.id, ids), eq(generations.userId, userId), restorable))
      .returning({ id: generations.id });
    return rows.map((r) => r.id);
  },
};
