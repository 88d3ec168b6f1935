import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { scheduledJobs } from '../db/schema.ts';
import { claimDue, type LeaseClaim } from './job-leases.ts';

export type ScheduledJobRow = typeof scheduledJobs.$inferSelect;

/** Queries of scheduled_jobs: one leased row per periodic job, keyed by its name (server/jobs/scheduled-job.ts). */
export const scheduledJobsRepository = {
  /** Creates the job's row unless another instance made it first. */
  async ensure(db: Executor, name: string): Promise<void> {
    await db.insert(scheduledJobs).values({ name }).onConflictDoNothing();
  },

  /** The job's row, leased to the caller, when it is due and nobody holds it. */
  claim(db: Executor, name: string, lease: LeaseClaim): Promise<ScheduledJobRow[]> {
    return claimDue(db, 'scheduled', { where: eq(scheduledJobs.name, name), lease, limit: 1 });
  },

  /** The next run `everyMs` from now, only while `owner` still holds the lease (a taker-over schedules its own). */
  async scheduleNext(db: Executor, name: string, owner: string, everyMs: number): Promise<void> {
    await db
      .update(scheduledJobs)
      .set({ nextRunAt: sql`now() + make_interval(secs => ${everyMs / 1000})` })
      .where(and(eq(scheduledJobs.name, name), eq(scheduledJobs.leaseOwner, owner)));
  },

  /** Makes the job due now. */
  async makeDue(db: Executor, name: string): Promise<void> {
    await db
      .update(scheduledJobs)
      .set({ nextRunAt: sql`now()` })
      .where(eq(scheduledJobs.name, name));
  },
};
