import { and, count, desc, eq, isNotNull, isNull, lte, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { loraTrainings } from '../db/schema.ts';
import { claimDue, leaseIsFree, type LeaseClaim } from './job-leases.ts';

export type TrainingRow = typeof loraTrainings.$inferSelect;
export type NewTrainingRow = typeof loraTrainings.$inferInsert;

/**
 * The usable-character condition as SQL: the user's own training, COMPLETED, with a LoRA file, not deleted.
 * Call it through server/services/characters.service.ts (findUsableCharacter / requireUsableCharacter), the
 * one place that says what may be generated with.
 */
export function usableCharacterOf(userId: string): SQL {
  return and(
    eq(loraTrainings.userId, userId),
    eq(loraTrainings.status, 'COMPLETED'),
    isNotNull(loraTrainings.loraFileUrl),
    isNull(loraTrainings.deletedAt),
  )!;
}

/** Drizzle queries of lora_trainings; a row that is IN_PROGRESS is also its own durable job. */
export const trainingsRepository = {
  async insert(db: Executor, row: NewTrainingRow): Promise<TrainingRow> {
    const [saved] = await db.insert(loraTrainings).values(row).returning();
    return saved;
  },

  listForUser(db: Executor, userId: string): Promise<TrainingRow[]> {
    return db
      .select()
      .from(loraTrainings)
      .where(and(eq(loraTrainings.userId, userId), isNull(loraTrainings.deletedAt)))
      .orderBy(desc(loraTrainings.createdAt), desc(loraTrainings.id));
  },

  /** A training of this user, deleted or not, locked for the rest of the transaction when `lock`. */
  async findOwned(db: Executor, userId: string, id: string, lock = false): Promise<TrainingRow | undefined> {
    const query = db
      .select()
      .from(loraTrainings)
      .where(and(eq(loraTrainings.id, id), eq(loraTrainings.userId, userId)))
      .limit(1);
    const [row] = lock ? await query.for('update') : await query;
    return row;
  },

  /** Renames a training of the user that is not deleted; undefined when there is none. */
  async rename(db: Executor, userId: string, id: string, characterName: string): Promise<TrainingRow | undefined> {
    const [row] = await db
      .update(loraTrainings)
      .set({ characterName, updatedAt: sql`now()` })
      .where(and(eq(loraTrainings.id, id), eq(loraTrainings.userId, userId), isNull(loraTrainings.deletedAt)))
      .returning();
    return row;
  },

  /** Whether a training of the user that is not deleted still names this archive (one archive may train twice). */
  async archiveInUse(db: Executor, userId: string, uploadUrl: string): Promise<boolean> {
    const [row] = await db
      .select({ id: loraTrainings.id })
      .from(loraTrainings)
      .where(and(eq(loraTrainings.userId, userId), eq(loraTrainings.uploadUrl, uploadUrl), isNull(loraTrainings.deletedAt)))
      .limit(1);
    return row !== undefined;
  },

  /**
   * Marks a training deleted and forgets where its files were (they are removed next); the name stays for
   * the generations made with it. Undefined when it was already deleted.
   */
  async markDeleted(db: Executor, id: string): Promise<TrainingRow | undefined> {
    const [row] = await db
      .update(loraTrainings)
      .set({ deletedAt: sql`now()`, loraFileUrl: null, result: null, uploadUrl: null, referenceFace: null, updatedAt: sql`now()` })
      .where(and(eq(loraTrainings.id, id), isNull(loraTrainings.deletedAt)))
      .returning();
    return row;
  },

  async findByProviderRequestId(db: Executor, providerRequestId: string): Promise<TrainingRow | undefined> {
    const [row] = await db.select().from(loraTrainings).where(eq(loraTrainings.providerRequestId, providerRequestId));
    return row;
  },

  /**
   * Claims up to `limit` IN_PROGRESS rows whose step is due and whose lease is free, giving them to the caller
   * with `lease` (JobLeases.claim()): no other runner takes them while the lease lasts.
   */
  claimDue(db: Executor, lease: LeaseClaim, limit: number): Promise<TrainingRow[]> {
    return claimDue(db, 'training', { where: eq(loraTrainings.status, 'IN_PROGRESS'), lease, limit });
  },

  /** IN_PROGRESS rows whose step is due and that no runner holds (the runners' backlog). */
  async countWaiting(db: Executor): Promise<number> {
    const [row] = await db
      .select({ n: count() })
      .from(loraTrainings)
      .where(and(eq(loraTrainings.status, 'IN_PROGRESS'), lte(loraTrainings.nextRunAt, sql`now()`), leaseIsFree(loraTrainings)));
    return row.n;
  },

  async scheduleNextRun(db: Executor, id: string, at: Date): Promise<void> {
    await db
      .update(loraTrainings)
      .set({ nextRunAt: at })
      .where(and(eq(loraTrainings.id, id), eq(loraTrainings.status, 'IN_PROGRESS')));
  },

  async setProviderRequestId(db: Executor, id: string, providerRequestId: string): Promise<void> {
    await db.update(loraTrainings).set({ providerRequestId, updatedAt: sql`now()` }).where(eq(loraTrainings.id, id));
  },

  /** Ends an IN_PROGRESS row; undefined when it had already ended (a replayed webhook, a second runner). */
  async finish(
    db: Executor,
    id: string,
    end: { status: 'COMPLETED'; loraFileUrl: string; result: unknown } | { status: 'FAILED'; error: string },
  ): Promise<TrainingRow | undefined> {
    const [row] = await db
      .update(loraTrainings)
      .set(
        end.status === 'COMPLETED'
          ? { status: 'COMPLETED', loraFileUrl: end.loraFileUrl, result: end.result, updatedAt: sql`now()` }
          : { status: 'FAILED', error: end.error, updatedAt: sql`now()` },
      )
      .where(and(eq(loraTrainings.id, id), eq(loraTrainings.status, 'IN_PROGRESS')))
      .returning();
    return row;
  },
};
