import { and, asc, eq, getTableColumns, gt, inArray, isNotNull, isNull, lte, notExists, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { loraTrainings, uploads } from '../db/schema.ts';
import { rowOf } from './raw-rows.ts';

export type UploadRow = typeof uploads.$inferSelect;
export type NewUploadRow = typeof uploads.$inferInsert;

/** Drizzle queries of uploaded originals. */
export const uploadsRepository = {
  /**
   * Records an upload only if the user's live originals and it together stay within `quotaBytes`, counted in the
   * statement that admits it; undefined when they would not. Run it in a transaction that has locked the user's
   * row (usersRepository.lockRow): parallel uploads then count one after another, each seeing the others' rows.
   */
  async insertWithinQuota(tx: Executor, row: NewUploadRow & { expiresAt: Date }, quotaBytes: number): Promise<UploadRow | undefined> {
    const live = tx
      .select({ bytes: sql`coalesce(sum(${uploads.sizeBytes}), 0)` })
      .from(uploads)
      .where(and(eq(uploads.userId, row.userId), isNull(uploads.deletedAt), gt(uploads.expiresAt, sql`now()`)));
    const admitted = await tx.execute<Record<string, unknown>>(sql`
      insert into ${uploads} (user_id, storage_key, url, content_type, size_bytes, kind, expires_at)
      select ${row.userId}, ${row.storageKey}, ${row.url}, ${row.contentType}, ${row.sizeBytes}, ${row.kind ?? 'image'},
        ${row.expiresAt.toISOString()}::timestamptz
      where (${live}) + ${row.sizeBytes} <= ${quotaBytes}
      returning *`);
    const [saved] = (admitted as unknown as { rows: Record<string, unknown>[] }).rows;
    return saved && rowOf<UploadRow>(getTableColumns(uploads), saved);
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
