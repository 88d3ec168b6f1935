import { and, eq, gt, isNull, lte } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { uploads } from '../db/schema.ts';

export type UploadRow = typeof uploads.$inferSelect;
export type NewUploadRow = typeof uploads.$inferInsert;

/** Drizzle queries of uploaded originals. */
export const uploadsRepository = {
  async insert(db: Executor, row: NewUploadRow): Promise<UploadRow> {
    const [saved] = await db.insert(uploads).values(row).returning();
    return saved;
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

  listExpired(db: Executor, now: Date, limit: number): Promise<UploadRow[]> {
    return db
      .select()
      .from(uploads)
      .where(and(isNull(uploads.deletedAt), lte(uploads.expiresAt, now)))
      .limit(limit);
  },

  async markDeleted(db: Executor, id: string): Promise<void> {
    await db.update(uploads).set({ deletedAt: new Date() }).where(eq(uploads.id, id));
  },
};
