import { afterCommit, type Db, type Executor } from '../db/index.ts';
import type { LedgerKind } from '../db/schema.ts';
import { accountDeleted, insufficientCredits, notFound } from '../domain/errors.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { creditsRepository, type PaidJobDebit, type PaidJobSource, type PaidJobStart } from '../repositories/credits.repository.ts';
import type { GenerationWithCharacter } from '../repositories/generations.repository.ts';

export type { LedgerKind };

export interface CreditChange {
  userId: string;
  /** Positive to add, negative to take. */
  delta: number;
  kind: LedgerKind;
  reason: string;
  /** Unique per real-world action: applying the same key twice changes nothing the second time. */
  idempotencyKey: string;
}

export interface CreditResult {
  /** False when the idempotency key had already been applied. */
  applied: boolean;
  balance: number;
}

export type CreditsService = ReturnType<typeof createCreditsService>;

/**
 * The only code that changes a balance. Each change locks the user's row, writes one ledger row and the new
 * balance to users and user_public_meta, and notifies the user's browsers, all in the caller's transaction.
 */
export function createCreditsService(deps: {
  db: Db;
  events: EventBus;
  /** Absent in one-shot processes (operator commands), which expose no metrics. */
  metrics?: Metrics;
  /** Called in the transaction of every debit with the balance it left (the low-balance mail, issue 50). */
  afterDebit?: (tx: Executor, userId: string, balance: number, cost: number) => Promise<void>;
}) {
  async function applyIn(tx: Executor, change: CreditChange): Promise<CreditResult> {
    if (!Number.isInteger(change.delta) || change.delta === 0) throw new Error('delta must be a non-zero integer');
    const row = await creditsRepository.lockBalance(tx, change.userId);
    if (!row) throw notFound('User not found');
    // Erasure marks the row under this same lock, so no paid action starts once it has begun.
    if (row.erasedAt && change.kind === 'debit') throw accountDeleted();

    const balance = row.credits + change.delta;
    if (balance < 0) {
      if (await creditsRepository.ledgerKeySeen(tx, change.idempotencyKey)) return { applied: false, balance: row.credits };
      throw insufficientCredits(-change.delta, row.credits);
    }

    // The change itself in one statement (one round trip): the ledger row, and only if it was written (its
    // idempotency key is new) the balance, the balance hosted mode reads and the credits event.
    const { applied } = await creditsRepository.applyChange(
      tx,
      { ...change, balanceAfter: balance },
      deps.events.notification(change.userId, { type: 'credits', credits: balance }),
    );
    if (!applied) return { applied: false, balance: row.credits };
    if (change.kind === 'debit') await deps.afterDebit?.(tx, change.userId, balance, -change.delta);
    afterCommit(() => deps.metrics?.creditsChanged(change.kind, change.delta));
    return { applied: true, balance };
  }

  const apply = (change: CreditChange): Promise<CreditResult> => deps.db.transaction((tx) => applyIn(tx, change));
  const applyWith = (change: CreditChange, tx?: Executor) => (tx ? applyIn(tx, change) : apply(change));

  return {
    /** Applies a change inside an existing transaction (for actions that pay in the same step). */
    applyIn,
    apply,

    debit(userId: string, amount: number, reason: string, idempotencyKey: string, tx?: Executor) {
      return applyWith({ userId, delta: -amount, kind: 'debit', reason, idempotencyKey }, tx);
    },

    grant(userId: string, amount: number, reason: string, idempotencyKey: string, tx?: Executor) {
      return applyWith({ userId, delta: amount, kind: 'grant', reason, idempotencyKey }, tx);
    },

    /**
     * A paid job's debit and its PENDING job leased to `lease.owner`, in one statement (one round trip, in the
     * caller's transaction or its own). Refused with nothing written: 'busy' when `oneAtATime` and another job
     * of its kind of the user runs on a live instance; 'no_source' or 'too_large' for an upscale's or edit's
     * `source`; the account's refusals throw as applyIn's do. The source comes back with its character.
     */
    async startPaidJob(
      executor: Executor,
      job: PaidJobDebit,
      opts: { oneAtATime: boolean; lease: { owner: string; seconds: number }; source?: PaidJobSource },
    ): Promise<{ outcome: Exclude<PaidJobStart, 'no_user' | 'erased' | 'insufficient'>; source: GenerationWithCharacter | null }> {
      const { outcome, credits, source } = await creditsRepository.startPaidJob(executor, {
        ...job,
        leaseOwner: opts.lease.owner,
        leaseSeconds: opts.lease.seconds,
        oneAtATime: opts.oneAtATime,
        channel: deps.events.channel,
        source: opts.source ?? null,
      });
      if (outcome === 'no_user') throw notFound('User not found');
      if (outcome === 'erased') throw accountDeleted();
      if (outcome === 'insufficient') throw insufficientCredits(job.cost, credits ?? 0);
      if (outcome === 'started') {
        if (credits !== null) await deps.afterDebit?.(executor, job.userId, credits, job.cost);
        afterCommit(() => deps.metrics?.creditsChanged('debit', -job.cost));
      }
      return { outcome, source };
    },

    /** Gives back a debit; keyed on the debit's own key so it can happen at most once. */
    refund(userId: string, amount: number, reason: string, debitKey: string, tx?: Executor) {
      return applyWith({ userId, delta: amount, kind: 'refund', reason, idempotencyKey: `refund:${debitKey}` }, tx);
    },

    async balance(userId: string): Promise<number> {
      const credits = await creditsRepository.balance(deps.db, userId);
      if (credits === undefined) throw notFound('User not found');
      return credits;
    },

    /** Sum of the user's ledger; equals the balance by construction (checked in tests and by operators). */
    ledgerSum(userId: string): Promise<number> {
      return creditsRepository.ledgerSum(deps.db, userId);
    },
  };
}
