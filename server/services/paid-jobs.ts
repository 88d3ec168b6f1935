import type { Db, Executor } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../ops/metrics.ts';
import { generationsRepository as repo } from '../repositories/generations.repository.ts';
import type { CreditsService } from './credits.service.ts';
import type { PaidJobSource } from '../repositories/credits.repository.ts';
import type { JobLeases } from '../repositories/job-leases.ts';

/**
 * Paid provider calls (an image generation, a prompt extraction) are rows of generation_jobs: the debit and
 * the PENDING job, leased to the instance making the call, are written in one transaction; the call's end
 * moves the job to SUCCEEDED, or to FAILED with its refund in one transaction; a job nobody holds any more
 * (its instance died, or gave it back while shutting down) is refunded by whichever instance sweeps first.
 * So every debit ends with its result or a refund, exactly once (docs/decisions/009-job-leases.md).
 */
export type PaidJobKind = 'generation' | 'caption';

export interface PaidJob {
  id: string;
  userId: string;
  kind: PaidJobKind;
  /** Credits the debit takes and a refund gives back. */
  cost: number;
}

/** Ledger key of a job's debit; its refund is keyed `refund:<this>` by the credits service. */
export const paidJobDebitKey = (job: Pick<PaidJob, 'kind' | 'id'>) => `${job.kind}:${job.id}`;

/**
 * Debits the job and records it PENDING, leased to this instance, in one statement (credits.startPaidJob).
 * With `oneAtATime` (generations), 'busy' and nothing written while another job of its kind of the user runs
 * on a live instance; with a `source` (an upscale's or edit's), 'no_source' or 'too_large' and nothing
 * written when it is not the user's ACTIVE generation or is too large.
 */
export function startPaidJob(
  executor: Executor,
  deps: { credits: CreditsService; leases: JobLeases },
  job: PaidJob & { reason: string; input: unknown; provider: string },
  opts: { oneAtATime: boolean; source?: PaidJobSource },
) {
  const { id, userId, kind, cost, reason, input, provider } = job;
  return deps.credits.startPaidJob(
    executor,
    { userId, cost, reason, debitKey: paidJobDebitKey(job), jobId: id, kind, input, provider },
    { ...opts, lease: { owner: deps.leases.owner, seconds: deps.leases.leaseMs / 1000 } },
  );
}

/** Ends a PENDING job FAILED and refunds its debit, in one transaction; false when it had already ended. */
export async function failPaidJob(
  deps: { db: Db; credits: CreditsService },
  job: PaidJob,
  reason: string,
  refundReason: string,
): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    if (!(await repo.finishJob(tx, job.id, { status: 'FAILED', error: reason.slice(0, 1000) }))) return false;
    await deps.credits.refund(job.userId, job.cost, refundReason, paidJobDebitKey(job), tx);
    return true;
  });
}

const INTERRUPTED: Record<PaidJobKind, string> = {
  generation: 'Refund: image generation interrupted',
  caption: 'Refund: prompt extraction interrupted',
};

/**
 * Refunds the PENDING jobs nobody works on any more: their instance died (its lease ran out), gave them back
 * while shutting down, or (PGlite) was this process's previous run. Every instance runs it every few
 * seconds; each job is ended and refunded at most once, whoever gets there first.
 */
export async function refundAbandonedJobs(deps: { db: Db; credits: CreditsService; logger: Logger; metrics: Metrics }): Promise<number> {
  let refunded = 0;
  for (const job of await repo.listAbandonedJobs(deps.db)) {
    if (await failPaidJob(deps, job, 'Interrupted: the server stopped during the call', INTERRUPTED[job.kind])) {
      // failPaidJob's transaction has committed: the refund is real.
      if (job.kind === 'generation') deps.metrics.generationEnded('refunded');
      refunded++;
    }
  }
  if (refunded) deps.logger.warn({ refunded }, 'refunded interrupted paid calls');
  return refunded;
}
