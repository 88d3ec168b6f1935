import { and, asc, eq, gt, inArray, isNotNull, isNull, lte, notExists, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { loraTrainings, uploads } from '../db/schema.ts';

export type UploadRow = typeof uploads.$inferSelect;
export type NewUploadRow = typeof uploads.$inferInsert;

/** Drizzle queries of uploaded originals. */
export const uploadsRepository = {
  async insert(db: Executor, row: NewUploadRow): Promise<UploadRow> {
    const [saved] = await db.insert(uploads).values(row).returning();
    return saved;
  },

  /** Forgets the user's upload rows stored under `key` (live or not); how many there were. */
  async deleteByKey(db: Executor, userId: string, key: string): Promise<number> {
    return (
      await db
        .delete(uploads)
        .where(and(eq(uploads.userId, userId), eq(uploads.storageKey, key)))
        .returning({ id: uploads.id })
    ).length;
  },

  /** A live (not deleted, not expired) upload of this user stored under `key`. */
  async findLiveByKey(db: Executor, userId: string, key: string): Promise<UploadRow | undefined> {
    const [row] = await db
      .select()
      .from(uploads)
      .where(and(eq(uploads.userId, userId), eq(uploads.storageKey, key), isNull(uploads.deletedAt), gt(uploads.expiresAt, new Date())))
      .limit(1);
    return row;
  },

  /** Bytes of the user's originals still kept (not deleted, not expired): what counts against the quota. */
  async liveBytes(db: Executor, userId: string): Promise<number> {
    const [row] = await db
      .select({ bytes: sql<string>`coalesce(sum(${uploads.sizeBytes}), 0)` })
      .from(uploads)
      .where(and(eq(uploads.userId, userId), isNull(uploads.deletedAt), gt(uploads.expiresAt, new Date())));
    return Number(row.bytes);
  },

  /**
   * Uploads past their retention (or set aside by the older soft delete), except an archive a running
   * training still reads.
   */
  expired(db: Executor, limit: number): Promise<Pick<UploadRow, 'id' | 'storageKey'>[]> {
    const trainingRunsFromIt = db
      .select({ one: sql`1` })
      .from(loraTrainings)
      .where(and(eq(loraTrainings.uploadUrl, uploads.url), eq(loraTrainings.status, 'IN_PROGRESS')));
    return db
      .select({ id: uploads.id, storageKey: uploads.storageKey })
      .from(uploads)
      .where(and(or(lte(uploads.expiresAt, sql`now()`), isNotNull(uploads.deletedAt)), notExists(trainingRunsFromIt)))
      .orderBy(asc(uploads.expiresAt))
      .limit(limit);
  },

  async deleteMany(db: Executor, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return (await db.delete(uploads).where(inArray(uploads.id, ids)).returning({ id: uploads.id })).length;
  },

  /** Which of these media URLs have their upload row. */
  async existingUrls(db: Executor, urls: string[]): Promise<string[]> {
    if (urls.length === 0) return [];
    return (await db.select({ url: uploads.url }).from(uploads).where(inArray(uploads.url, urls))).map((r) => r.url);
  },
};
