import { and, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { exploreGallery, generations } from '../db/schema.ts';

/** Deleted, and their files not removed yet. */
const waiting = and(eq(generations.status, 'DELETED'), isNull(generations.filesRemovedAt));
/** Deleted longer ago than the Undo window. */
const lapsed = (undoSeconds: number) => lt(generations.deletedAt, sql`now() - make_interval(secs => ${undoSeconds})`);

/** Queries of the purge of deleted generations' files (server/jobs/deleted-generations.ts). */
export const deletedGenerationsRepository = {
  /** Stamps deleted_at on deletes that did not (hosted mode's PostgREST sets only the status). */
  async stampUnstamped(db: Executor): Promise<void> {
    await db
      .update(generations)
      .set({ deletedAt: sql`now()` })
      .where(and(waiting, isNull(generations.deletedAt)));
  },

  /** Up to `limit` deleted generations whose Undo has lapsed and whose files are still there. */
  async lapsedIds(db: Executor, undoSeconds: number, limit: number): Promise<string[]> {
    const rows = await db
      .select({ id: generations.id })
      .from(generations)
      .where(and(waiting, lapsed(undoSeconds)))
      .limit(limit);
    return rows.map((r) => r.id);
  },

  /** Of `ids`, the rows still waiting and lapsed, locked (as an Undo locks what it restores). */
  async lockLapsed(tx: Executor, ids: string[], undoSeconds: number): Promise<{ id: string; imageUrl: string }[]> {
    return tx
      .select({ id: generations.id, imageUrl: generations.imageUrl })
      .from(generations)
      .where(and(inArray(generations.id, ids), waiting, lapsed(undoSeconds)))
      .for('update');
  },

  /** Of `imageUrls`, those an explore item still names. */
  async shownInExplore(tx: Executor, imageUrls: string[]): Promise<Set<string>> {
    const rows = await tx
      .select({ imageUrl: exploreGallery.imageUrl })
      .from(exploreGallery)
      .where(inArray(exploreGallery.imageUrl, imageUrls));
    return new Set(rows.map((r) => r.imageUrl));
  },

  async markFilesRemoved(tx: Executor, ids: string[]): Promise<void> {
    await tx
      .update(generations)
      .set({ filesRemovedAt: sql`now()` })
      .where(inArray(generations.id, ids));
  },
};
