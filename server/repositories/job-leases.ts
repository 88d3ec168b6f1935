import { and, asc, eq, gt, inArray, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Db, Executor } from '../db/index.ts';
import { generationJobs, loraTrainings, mailOutbox, scheduledJobs, shootPhotos } from '../db/schema.ts';
import type { Logger } from '../logger.ts';

/** Tables whose rows are jobs carrying a lease (the jobLease() columns of the schema). */
export type LeasedTable = typeof generationJobs | typeof loraTrainings | typeof scheduledJobs | typeof shootPhotos | typeof mailOutbox;
/**
 * paid_call: rows of generation_jobs (generations, prompt extractions); training: lora_trainings;
 * scheduled: scheduled_jobs (periodic work such as the retention sweep, one row per job, keyed by name);
 * shoot_photo: shoot_photos (one photo of a photo shoot, server/jobs/shoot-runner.ts);
 * mail: mail_outbox (one message each).
 */
export type JobKind = 'paid_call' | 'training' | 'scheduled' | 'shoot_photo' | 'mail';

/** Each kind's table and the column that names a row in it. */
const TABLES = {
  paid_call: { table: generationJobs, key: generationJobs.id },
  training: { table: loraTrainings, key: loraTrainings.id },
  scheduled: { table: scheduledJobs, key: scheduledJobs.name },
  shoot_photo: { table: shootPhotos, key: shootPhotos.id },
  mail: { table: mailOutbox, key: mailOutbox.id },
} satisfies Record<JobKind, { table: LeasedTable; key: PgColumn }>;

/** Kinds whose rows are also scheduled (next_run_at): runners claim them when due. */
type DueKind = 'training' | 'scheduled' | 'shoot_photo' | 'mail';
type RowOf<K extends DueKind> = (typeof TABLES)[K]['table']['$inferSelect'];

/** The column values that give a row to an instance for one term (JobLeases.claim()). */
export type LeaseClaim = { leaseOwner: string; leaseExpiresAt: SQL<Date> };

/** Condition: nobody works on the row (its lease was never taken, was given back, or ran out). */
export const leaseIsFree = (table: LeasedTable): SQL => or(isNull(table.leaseExpiresAt), lte(table.leaseExpiresAt, sql`now()`))!;

/**
 * Frees every lease at the start of a process that owns its database alone (PGlite): whoever held them was
 * this process's previous run.
 */
export async function freeAllLeases(db: Executor): Promise<void> {
  for (const { table } of Object.values(TABLES)) {
    await db
      .update(table)
      .set({ leaseExpiresAt: null })
      .where(sql`${table.leaseExpiresAt} is not null`);
  }
}

/**
 * Claims up to `limit` rows of a scheduled kind that match `where`, are due (next_run_at has come) and whose
 * lease is free, giving them to the caller with `lease` (and `set`, other columns the claim changes). Rows another
 * runner is claiming at this moment are skipped, so two runners never take the same row. Oldest due first,
 * unless `orderBy` says otherwise.
 */
export async function claimDue<K extends DueKind>(
  db: Executor,
  kind: K,
  opts: { where: SQL; lease: LeaseClaim; limit: number; orderBy?: SQL[]; set?: Record<string, unknown> },
): Promise<RowOf<K>[]> {
  // One shape for the query builder: both tables have next_run_at and the lease columns.
  const { table, key } = TABLES[kind] as unknown as { table: typeof loraTrainings; key: PgColumn };
  const claimable = and(opts.where, lte(table.nextRunAt, sql`now()`), leaseIsFree(table));
  return db.transaction(async (tx) => {
    const order = opts.orderBy ?? [asc(table.nextRunAt)];
    const due = await tx
      .select({ key })
      .from(table)
      .where(claimable)
      .orderBy(...order)
      .limit(opts.limit)
      .for('update', { skipLocked: true });
    if (due.length === 0) return [];
    const keys = due.map((d) => d.key as string);
    return (await tx
      .update(table)
      .set({ ...opts.set, ...opts.lease })
      .where(and(inArray(key, keys), opts.where))
      .returning()) as unknown as RowOf<K>[];
  });
}

/**
 * The one lease mechanism of durable jobs (docs/decisions/009-job-leases.md). A row is given to this
 * instance for `leaseMs` by the statement that creates or claims it; while the instance works on it the
 * lease is renewed every third of its term; when the work ends, or the instance shuts down, it is given
 * back. A row whose lease ran out belongs to nobody: any instance may take it over (trainings) or refund
 * it (paid calls).
 */
export interface JobLeases {
  /** The instance id written as lease_owner. */
  readonly owner: string;
  readonly leaseMs: number;
  /** Column values that give a row to this instance for one term (for the insert or update that takes it). */
  claim(): LeaseClaim;
  /** Starts renewing a row this instance has taken. */
  hold(kind: JobKind, id: string): void;
  /** Stops renewing a row (it ended; its lease no longer matters). */
  drop(kind: JobKind, id: string): void;
  /** Gives a row back now, so any instance may take it at once. */
  release(kind: JobKind, id: string): Promise<void>;
  /** True while this instance still holds the row's lease (it was not lost to a lapse and taken over). */
  stillHolds(kind: JobKind, id: string): Promise<boolean>;
  /** Rows this instance holds now, by kind. */
  held(kind: JobKind): number;
  start(): void;
  /** Stops renewing and gives every held row back (shutdown): other instances take them at once. */
  releaseAll(): Promise<void>;
}

export function createJobLeases(deps: { db: Db; owner: string; leaseMs: number; logger: Logger }): JobLeases {
  const { db, owner, leaseMs, logger } = deps;
  const held: Record<JobKind, Set<string>> = {
    paid_call: new Set(),
    training: new Set(),
    scheduled: new Set(),
    shoot_photo: new Set(),
    mail: new Set(),
  };
  let timer: NodeJS.Timeout | undefined;
  const until = () => sql<Date>`now() + make_interval(secs => ${leaseMs / 1000})`;

  async function giveBack(executor: Executor, kind: JobKind, ids: string[]) {
    if (ids.length === 0) return;
    const { table, key } = TABLES[kind];
    await executor
      .update(table)
      .set({ leaseExpiresAt: sql`now()` })
      .where(and(inArray(key, ids), eq(table.leaseOwner, owner)));
  }

  async function renew() {
    for (const kind of Object.keys(held) as JobKind[]) {
      const ids = [...held[kind]];
      if (ids.length === 0) continue;
      const { table, key } = TABLES[kind];
      try {
        await db
          .update(table)
          .set({ leaseExpiresAt: until() })
          .where(and(inArray(key, ids), eq(table.leaseOwner, owner)));
      } catch (err) {
        // A lease that runs out meanwhile is taken over by another instance; each job's end is applied once.
        logger.warn({ err, kind, count: ids.length }, 'could not renew job leases');
      }
    }
  }

  return {
    owner,
    leaseMs,
    claim: () => ({ leaseOwner: owner, leaseExpiresAt: until() }),
    hold(kind, id) {
      held[kind].add(id);
    },
    drop(kind, id) {
      held[kind].delete(id);
    },
    async release(kind, id) {
      held[kind].delete(id);
      await giveBack(db, kind, [id]);
    },
    async stillHolds(kind, id) {
      const { table, key } = TABLES[kind];
      const [row] = await db
        .select({ key })
        .from(table)
        .where(and(eq(key, id), eq(table.leaseOwner, owner), gt(table.leaseExpiresAt, sql`now()`)));
      return Boolean(row);
    },
    held: (kind) => held[kind].size,
    start() {
      timer = setInterval(() => void renew(), Math.max(250, leaseMs / 3));
      timer.unref();
    },
    async releaseAll() {
      clearInterval(timer);
      for (const kind of Object.keys(held) as JobKind[]) {
        const ids = [...held[kind]];
        held[kind].clear();
        await giveBack(db, kind, ids).catch((err: unknown) =>
          logger.error({ err, kind, count: ids.length }, 'could not give job leases back; they run out by themselves'),
        );
      }
    },
  };
}
