import { and, asc, desc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { loraTrainings } from '../db/schema.ts';

export type TrainingRow = typeof loraTrainings.$inferSelect;
export type NewTrainingRow = typeof loraTrainings.$inferInsert;

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
      .where(eq(loraTrainings.userId, userId))
      .orderBy(desc(loraTrainings.createdAt), desc(loraTrainings.id));
  },

  async findByProviderRequestId(db: Executor, providerRequestId: string): Promise<TrainingRow | undefined> {
    const [row] = await db.select().from(loraTrainings).where(eq(loraTrainings.providerRequestId, providerRequestId));
    return row;
  },

  /**
   * Claims up to `limit` IN_PROGRESS rows whose time has come by moving their next_run_at `leaseMs` ahead:
   * no other runner takes them until then, and if this one dies they come back by themselves.
   */
  async claimDue(db: Executor, leaseMs: number, limit: number): Promise<TrainingRow[]> {
    return db.transaction(async (tx) => {
      const due = await tx
        .select({ id: loraTrainings.id })
        .from(loraTrainings)
        .where(and(eq(loraTrainings.status, 'IN_PROGRESS'), lte(loraTrainings.nextRunAt, sql`now()`)))
        .orderBy(asc(loraTrainings.nextRunAt))
        .limit(limit)
        .for('update', { skipLocked: true });
      if (due.length === 0) return [];
      return tx
        .update(loraTrainings)
        .set({ nextRunAt: sql`now() + make_interval(secs => ${leaseMs / 1000})` })
        .where(
          and(
            inArray(
              loraTrainings.id,
              due.map((d) => d.id),
            ),
            eq(loraTrainings.status, 'IN_PROGRESS'),
          ),
        )
        .returning();
    });
  },

  async scheduleNextRun(db: Executor, id: string, at: Date): Promise<void> {
    await db
      .update(loraTrainings)
      .set({ nextRunAt: at })
      .where(and(eq(loraTrainings.id, id), eq(loraTrainings.status, 'IN_PROGRESS')));
  },

  /** Every IN_PROGRESS row becomes due now (start-up of a single-process database: no one else holds them). */
  async releaseAll(db: Executor): Promise<void> {
    await db.update(loraTrainings).set({ nextRunAt: sql`now()` }).where(eq(loraTrainings.status, 'IN_PROGRESS'));
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
