import { and, count, desc, eq, gt, isNotNull, isNull, lt, lte, ne, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { loraTrainings, type DeletedCharacterFiles } from '../db/schema.ts';
import type { TrainingProgress } from '@common/training.ts';
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

/** A training (character) in a space (issue 49): team `teamId`'s work, or personal work when null. */
export const trainingInSpace = (teamId: string | null): SQL => (teamId ? eq(loraTrainings.teamId, teamId) : isNull(loraTrainings.teamId));

/**
 * A generation in a space: its character's space (a team shoot's photos are made with the member's team
 * character, which the shoot requires). A generation without a character is personal. Written against
 * "generations" by name: Drizzle leaves columns unqualified in a one-table select.
 */
export const generationInSpace = (teamId: string | null): SQL =>
  teamId
    ? sql`exists (select 1 from ${loraTrainings} lt where lt.id = "generations"."lora_id" and lt.team_id = ${teamId})`
    : sql`not exists (select 1 from ${loraTrainings} lt where lt.id = "generations"."lora_id" and lt.team_id is not null)`;

/** Drizzle queries of lora_trainings; a row that is IN_PROGRESS is also its own durable job. */
export const trainingsRepository = {
  async insert(db: Executor, row: NewTrainingRow): Promise<TrainingRow> {
    const [saved] = await db.insert(loraTrainings).values(row).returning();
    return saved;
  },

  /** The same archive submitted under the same name within `seconds` and still training (a double click). */
  async recentSameSubmission(
    db: Executor,
    s: { userId: string; uploadUrl: string; characterName: string; seconds: number },
  ): Promise<TrainingRow | undefined> {
    const [row] = await db
      .select()
      .from(loraTrainings)
      .where(
        and(
          eq(loraTrainings.userId, s.userId),
          eq(loraTrainings.uploadUrl, s.uploadUrl),
          eq(loraTrainings.characterName, s.characterName),
          eq(loraTrainings.status, 'IN_PROGRESS'),
          isNull(loraTrainings.deletedAt),
          gt(loraTrainings.createdAt, sql`now() - make_interval(secs => ${s.seconds})`),
        ),
      )
      .limit(1);
    return row;
  },

  /** `teamId`: one space's trainings (null: personal); undefined: all of them (the data export). */
  listForUser(db: Executor, userId: string, teamId?: string | null): Promise<TrainingRow[]> {
    return db
      .select()
      .from(loraTrainings)
      .where(
        and(eq(loraTrainings.userId, userId), isNull(loraTrainings.deletedAt), teamId === undefined ? undefined : trainingInSpace(teamId)),
      )
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

  /**
   * Whether another training of the user still names this archive (one archive may train twice): one not
   * deleted, or one deleted whose Undo may still bring it back (its files not yet purged).
   */
  async archiveInUse(db: Executor, userId: string, uploadUrl: string, exceptId: string): Promise<boolean> {
    const [row] = await db
      .select({ id: loraTrainings.id })
      .from(loraTrainings)
      .where(
        and(
          eq(loraTrainings.userId, userId),
          ne(loraTrainings.id, exceptId),
          or(
            and(eq(loraTrainings.uploadUrl, uploadUrl), isNull(loraTrainings.deletedAt)),
            and(sql`${loraTrainings.deletedFiles}->>'uploadUrl' = ${uploadUrl}`, isNull(loraTrainings.filesRemovedAt)),
          ),
        ),
      )
      .limit(1);
    return row !== undefined;
  },

  /**
   * Marks a training deleted and moves where its files are off the row into deleted_files (Undo puts them back,
   * the purge removes them); the name stays for the generations made with it. Undefined when it was already
   * deleted.
   */
  async markDeleted(db: Executor, found: TrainingRow, cancelled: boolean): Promise<TrainingRow | undefined> {
    const files: DeletedCharacterFiles = { loraFileUrl: found.loraFileUrl, result: found.result, uploadUrl: found.uploadUrl, cancelled };
    const [row] = await db
      .update(loraTrainings)
      .set({ deletedAt: sql`now()`, deletedFiles: files, loraFileUrl: null, result: null, uploadUrl: null, updatedAt: sql`now()` })
      .where(and(eq(loraTrainings.id, found.id), isNull(loraTrainings.deletedAt)))
      .returning();
    return row;
  },

  /**
   * Undo of a delete: the files go back on the row, when it is the user's, deleted less than `undoSeconds`
   * ago, not a cancelled training, and its files not purged. Undefined otherwise.
   */
  async restore(db: Executor, userId: string, id: string, undoSeconds: number): Promise<TrainingRow | undefined> {
    const files = sql`${loraTrainings.deletedFiles}`;
    const [row] = await db
      .update(loraTrainings)
      .set({
        deletedAt: null,
        deletedFiles: null,
        loraFileUrl: sql`${files}->>'loraFileUrl'`,
        result: sql`${files}->'result'`,
        uploadUrl: sql`${files}->>'uploadUrl'`,
        updatedAt: sql`now()`,
      })
      .where(
        and(
          eq(loraTrainings.id, id),
          eq(loraTrainings.userId, userId),
          gt(loraTrainings.deletedAt, sql`now() - make_interval(secs => ${undoSeconds})`),
          isNull(loraTrainings.filesRemovedAt),
          isNotNull(loraTrainings.deletedFiles),
          sql`(${files}->>'cancelled')::boolean is not true`,
        ),
      )
      .returning();
    return row;
  },

  /** Deleted trainings whose Undo window has lapsed and whose files are still there (the purge's work). */
  async lapsedDeletes(db: Executor, undoSeconds: number, limit: number, lock = false): Promise<TrainingRow[]> {
    const query = db
      .select()
      .from(loraTrainings)
      .where(
        and(
          isNotNull(loraTrainings.deletedAt),
          isNull(loraTrainings.filesRemovedAt),
          lt(loraTrainings.deletedAt, sql`now() - make_interval(secs => ${undoSeconds})`),
        ),
      )
      .orderBy(loraTrainings.deletedAt)
      .limit(limit);
    return lock ? query.for('update', { skipLocked: true }) : query;
  },

  /**
   * After the purge removed a deleted training's files: Undo is refused from now on, and its reference face
   * (kept through the Undo window, so a restored character keeps it) goes with them.
   */
  async markFilesRemoved(db: Executor, id: string): Promise<void> {
    await db
      .update(loraTrainings)
      .set({ filesRemovedAt: sql`now()`, deletedFiles: null, referenceFace: null })
      .where(eq(loraTrainings.id, id));
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
    await db
      .update(loraTrainings)
      .set({ providerRequestId, updatedAt: sql`now()` })
      .where(eq(loraTrainings.id, id));
  },

  /** Stores where a running training is; undefined when it is no longer IN_PROGRESS (then nothing is written). */
  async setProgress(db: Executor, id: string, progress: TrainingProgress): Promise<TrainingRow | undefined> {
    const [row] = await db
      .update(loraTrainings)
      .set({ progress, updatedAt: sql`now()` })
      .where(and(eq(loraTrainings.id, id), eq(loraTrainings.status, 'IN_PROGRESS')))
      .returning();
    return row;
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
          ? { status: 'COMPLETED', loraFileUrl: end.loraFileUrl, result: end.result, progress: null, updatedAt: sql`now()` }
          : { status: 'FAILED', error: end.error, progress: null, updatedAt: sql`now()` },
      )
      .where(and(eq(loraTrainings.id, id), eq(loraTrainings.status, 'IN_PROGRESS')))
      .returning();
    return row;
  },
};
