import { and, asc, eq, getTableColumns, isNull, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { creditLedger, generations, loraTrainings, uploads } from '../db/schema.ts';
import type { GenerationRow } from './generations.repository.ts';
import { createdAtText, pastPageEnd, type PageEnd } from './keyset.ts';

export type LedgerRow = typeof creditLedger.$inferSelect;
export type UploadRow = typeof uploads.$inferSelect;

/** Keyset paging, oldest first: the rows after where the previous page ended. */
const after = (table: typeof generations | typeof creditLedger, from: PageEnd | null): SQL | undefined =>
  from ? pastPageEnd(table.createdAt, table.id, '>', from) : undefined;

/** The queries of a person's data export, page by page so a large account never sits in memory whole. */
export const accountDataRepository = {
  /** The person's ACTIVE generations (their gallery), oldest first, with the character's name. */
  generationsPage(db: Executor, userId: string, from: PageEnd | null, limit: number) {
    return db
      .select({
        generation: getTableColumns(generations),
        characterName: loraTrainings.characterName,
        at: createdAtText(generations.createdAt),
      })
      .from(generations)
      .leftJoin(loraTrainings, eq(loraTrainings.id, generations.loraId))
      .where(and(eq(generations.userId, userId), eq(generations.status, 'ACTIVE'), after(generations, from)))
      .orderBy(asc(generations.createdAt), asc(generations.id))
      .limit(limit) as Promise<{ generation: GenerationRow; characterName: string | null; at: string }[]>;
  },

  ledgerPage(db: Executor, userId: string, from: PageEnd | null, limit: number): Promise<(LedgerRow & { at: string })[]> {
    return db
      .select({ ...getTableColumns(creditLedger), at: createdAtText(creditLedger.createdAt) })
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
