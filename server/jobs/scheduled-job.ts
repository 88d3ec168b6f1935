import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { scheduledJobs } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import { claimDue, type JobLeases } from '../repositories/job-leases.ts';

/**
 * A periodic job that runs on one instance at a time: its scheduled_jobs row is due at next_run_at and leased
 * like every durable job (server/jobs/leases.ts): renewed while it runs, given back when it ends or the
 * instance stops. Every instance looks for the row each `pollMs`; the one that claims it runs the job and
 * schedules the next run `everyMs` later. A job whose instance dies is taken over when its lease runs out.
 */
export interface ScheduledJobDeps {
  db: Db;
  logger: Logger;
  leases: JobLeases;
  name: string;
  everyMs: number;
  pollMs: number;
  /**
   * The work. `stillHeld()` answers false once the lease was lost (it lapsed and another instance took the
   * job): the job should then stop before its next step.
   */
  run(stillHeld: () => Promise<boolean>): Promise<void>;
}

export interface ScheduledJob {
  start(): void;
  /** Runs the job now if it is due and no instance holds it (tests). */
  runNow(): Promise<void>;
  /** Makes the job due now (start-up of a single-process database, tests). */
  release(): Promise<void>;
  close(): Promise<void>;
}

export function createScheduledJob(deps: ScheduledJobDeps): ScheduledJob {
  const { db, leases, name } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let closed = false;
  const thisJob = eq(scheduledJobs.name, name);

  // The row is created once per process (an insert that does nothing when another instance made it first).
  let rowReady: Promise<unknown> | undefined;
  const ensureRow = () => {
    rowReady ??= db
      .insert(scheduledJobs)
      .values({ name })
      .onConflictDoNothing()
      .catch((err: unknown) => {
        rowReady = undefined;
        throw err;
      });
    return rowReady;
  };

  async function pass(): Promise<void> {
    const [claimed] = await claimDue(db, 'scheduled', { where: thisJob, lease: leases.claim(), limit: 1 });
    if (!claimed) return;
    leases.hold('scheduled', name);
    try {
      await deps.run(() => leases.stillHolds('scheduled', name));
    } finally {
      // Only while the lease is still ours: an instance that took the job over has scheduled it itself.
      await db
        .update(scheduledJobs)
        .set({ nextRunAt: sql`now() + make_interval(secs => ${deps.everyMs / 1000})` })
        .where(and(thisJob, eq(scheduledJobs.leaseOwner, leases.owner)));
      await leases.release('scheduled', name);
    }
  }

  function tick(): Promise<void> {
    if (closed) return Promise.resolve();
    running ??= ensureRow()
      .then(pass)
      .catch((err: unknown) => deps.logger.error({ err, job: name }, 'scheduled job failed; it will be tried again'))
      .finally(() => (running = undefined));
    return running;
  }

  return {
    start() {
      timer = setInterval(() => void tick(), deps.pollMs);
      timer.unref();
      void tick();
    },
    async runNow() {
      await running;
      await tick();
    },
    async release() {
      await ensureRow();
      await db
        .update(scheduledJobs)
        .set({ nextRunAt: sql`now()` })
        .where(thisJob);
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
    },
  };
}
