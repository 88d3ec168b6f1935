import type { Db } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import type { JobLeases } from '../repositories/job-leases.ts';
import { scheduledJobsRepository as repo } from '../repositories/scheduled-jobs.repository.ts';
import { createLeasedRunner } from './leased-runner.ts';

/**
 * A periodic job that runs on one instance at a time: its scheduled_jobs row is due at next_run_at and leased
 * like every durable job (leased-runner.ts): renewed while it runs, given back when it ends or the
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

  // The row is created once per process (an insert that does nothing when another instance made it first).
  let rowReady: Promise<unknown> | undefined;
  const ensureRow = () => {
    rowReady ??= repo.ensure(db, name).catch((err: unknown) => {
      rowReady = undefined;
      throw err;
    });
    return rowReady;
  };

  const runner = createLeasedRunner({
    kind: 'scheduled',
    logger: deps.logger,
    context: { job: name },
    leases,
    concurrency: 1,
    pollMs: deps.pollMs,
    claim: async () => {
      await ensureRow();
      return repo.claim(db, name, leases.claim());
    },
    keyOf: (row) => row.name,
    async work() {
      try {
        await deps.run(() => leases.stillHolds('scheduled', name));
      } finally {
        // Only while the lease is still ours: an instance that took the job over has scheduled it itself.
        await repo.scheduleNext(db, name, leases.owner, deps.everyMs);
      }
    },
    afterWork: 'release',
    failed: 'scheduled job failed; it will be tried again',
  });

  return {
    start: runner.start,
    runNow: runner.runNow,
    async release() {
      await ensureRow();
      await repo.makeDue(db, name);
    },
    close: runner.close,
  };
}
