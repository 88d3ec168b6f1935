import { and, asc, eq, getTableColumns, gt, isNull, or, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { creditLedger, generations, loraTrainings, uploads } from '../db/schema.ts';
import type { GenerationRow } from './generations.repository.ts';

export type LedgerRow = typeof creditLedger.$inferSelect;
export type UploadRow = typeof uploads.$inferSelect;

/** Where the previous page ended (keyset paging: oldest first, ties broken by id). */
export interface After {
  createdAt: Date;
  id: string;
}

const after = (table: typeof generations | typeof creditLedger, from: After | null): SQL | undefined =>
  from ? or(gt(table.createdAt, from.createdAt), and(eq(table.createdAt, from.createdAt), gt(table.id, from.id))) : undefined;

/** The queries of a person's data export, page by page so a large account never sits in memory whole. */
export const accountDataRepository = {
  /** The person's ACTIVE generations (their gallery), oldest first, with the character's name. */
  generationsPage(db: Executor, userId: string, from: After | null, limit: number) {
    return db
      .select({ generation: getTableColumns(generations), characterName: loraTrainings.characterName })
      .from(generations)
      .leftJoin(loraTrainings, eq(loraTrainings.id, generations.loraId))
      .where(and(eq(generations.userId, userId), eq(generations.status, 'ACTIVE'), after(generations, from)))
      .orderBy(asc(generations.createdAt), asc(generations.id))
      .limit(limit) as Promise<{ generation: GenerationRow; characterName: string | null }[]>;
  },

  ledgerPage(db: Executor, userId: string, from: After | null, limit: number): Promise<LedgerRow[]> {
    return db
      .select()
      .from(creditLedger)
      .where(and(eq(creditLedger.userId, userId), after(creditLedger, from)))
      .orderBy(asc(creditLedger.createdAt), asc(creditLedger.id))
      .limit(limit);
  },

  /** Originals the person uploaded that are still kept (training archives, prompt-extraction photos). */
  keptUploads(db: Executor, userId: string): Promise<UploadRow[]> {
    return db
      .select()
      .from(uploads)
      .where(and(eq(uploads.userId, userId), isNull(uploads.deletedAt)))
      .orderBy(asc(uploads.createdAt), asc(uploads.id));
  },
};
