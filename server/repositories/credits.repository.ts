import { desc, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { creditLedger, generations, userPublicMeta, users, type LedgerKind } from '../db/schema.ts';
import { characterColumns, withCharacter, type GenerationWithCharacter } from './generations.repository.ts';
import { preparedStatement } from './prepared.ts';
import { rowOf } from './raw-rows.ts';

/** A paid job's debit as likeness_start_paid_job takes it. */
export interface PaidJobDebit {
  userId: string;
  cost: number;
  reason: string;
  debitKey: string;
  jobId: string;
  kind: 'generation' | 'caption';
  input: unknown;
  provider: string;
}

/** An upscale's or edit's source, and the longest side it may have (null: any). */
export interface PaidJobSource {
  id: string;
  maxSide: number | null;
}

/** How likeness_start_paid_job answered: started, or refused with nothing written. */
export type PaidJobStart = 'started' | 'no_user' | 'erased' | 'no_source' | 'too_large' | 'busy' | 'insufficient';

const c = (column: { name: string }) => sql.identifier(column.name);

/**
 * On every paid call's path, so prepared once (its text built once, parsed once per connection).
 *
 * Its transaction commits without waiting for its WAL to reach the disk (`set_config(…, true)`: until the
 * transaction's end; docs/decisions/014-generate-path.md, the seventh pass). The WAL is one ordered log: the
 * commit of the job's end (SUCCEEDED with its result, or FAILED with its refund), which still waits for the disk,
 * makes every earlier commit durable with it, and every caller writes that end before the result leaves the
 * server. So a result a user has seen always has its debit on disk; what a crash of the database can lose is a
 * start whose call had not ended, and then the debit, the job and the credits event together: the user is not
 * charged for a call whose result never came. Inside a caller's transaction, that transaction's commit does not
 * wait either. The function answers one row whatever the outcome, so the setting is always made.
 */
const startPaidJobStatement = preparedStatement('likeness_start_paid_job', () => {
  const p = sql.placeholder;
  return sql`
    select "outcome", "credits", "source", set_config('synchronous_commit', 'off', true) as "commit_unflushed"
    from likeness_start_paid_job(
      ${p('userId')}::uuid, ${p('cost')}::integer, ${p('reason')}::text, ${p('debitKey')}::text, ${p('jobId')}::uuid,
      ${p('kind')}::text, ${p('input')}::jsonb, ${p('provider')}::text, ${p('leaseOwner')}::text,
      ${p('leaseSeconds')}::double precision, ${p('oneAtATime')}::boolean, ${p('channel')}::text,
      ${p('sourceId')}::uuid, ${p('sourceMaxSide')}::integer)`;
});

/** Statements of balance changes (server/services/credits.service.ts decides them). */
export const creditsRepository = {
  /** The user's balance and erasure mark, locking the row for the rest of the transaction (every change takes it). */
  async lockBalance(tx: Executor, userId: string): Promise<{ credits: number; erasedAt: Date | null } | undefined> {
    const [row] = await tx
      .select({ credits: users.credits, erasedAt: users.erasedAt })
      .from(users)
      .where(eq(users.id, userId))
      .for('update');
    return row;
  },

  /** Whether a ledger row with this idempotency key exists (the change was applied before). */
  async ledgerKeySeen(tx: Executor, idempotencyKey: string): Promise<boolean> {
    const [seen] = await tx.select({ id: creditLedger.id }).from(creditLedger).where(eq(creditLedger.idempotencyKey, idempotencyKey));
    return Boolean(seen);
  },

  /** The user's balance, or undefined when there is no such user. */
  async balance(db: Executor, userId: string): Promise<number | undefined> {
    const [row] = await db.select({ credits: users.credits }).from(users).where(eq(users.id, userId));
    return row?.credits;
  },

  /** The user's latest `limit` ledger rows, newest first. */
  async latestLedger(db: Executor, userId: string, limit: number) {
    return db.select().from(creditLedger).where(eq(creditLedger.userId, userId)).orderBy(desc(creditLedger.createdAt)).limit(limit);
  },

  /** Sum of the user's ledger. */
  async ledgerSum(db: Executor, userId: string): Promise<number> {
    const [row] = await db
      .select({ sum: sql<string>`coalesce(sum(${creditLedger.delta}), 0)` })
      .from(creditLedger)
      .where(eq(creditLedger.userId, userId));
    return Number(row.sum);
  },

  /**
   * One balance change in one statement (docs/decisions/014-generate-path.md): the ledger row, and only when it
   * was written (its idempotency key is new) the new balance in users and user_public_meta and `notification`
   * (the credits event's NOTIFY). The caller holds the users row's lock and has computed `balanceAfter` from it.
   * `applied` is false, and nothing written, when the key had been applied before.
   */
  async applyChange(
    tx: Executor,
    change: { userId: string; delta: number; kind: LedgerKind; reason: string; idempotencyKey: string; balanceAfter: number },
    notification: SQL,
  ): Promise<{ applied: boolean }> {
    const l = creditLedger;
    const u = users;
    const m = userPublicMeta;
    const userId = sql`${change.userId}::uuid`;
    const balance = sql`${change.balanceAfter}::integer`;
    // created_at is the moment the change was applied (the user's row is locked), not the transaction's start,
    // so the user's ledger read by created_at is the order the balance went through.
    const result = await tx.execute<{ applied: number; told: number }>(sql`
      with ledger as (
        insert into ${l} (${c(l.userId)}, ${c(l.delta)}, ${c(l.kind)}, ${c(l.reason)}, ${c(l.idempotencyKey)}, ${c(l.balanceAfter)}, ${c(l.createdAt)})
        values (${userId}, ${change.delta}::integer, ${change.kind}::text, ${change.reason}::text, ${change.idempotencyKey}::text, ${balance}, clock_timestamp())
        on conflict (${c(l.idempotencyKey)}) do nothing
        returning 1),
      balance as (
        update ${u} set ${c(u.credits)} = ${balance}, ${c(u.updatedAt)} = now()
        where ${c(u.id)} = ${userId} and exists (select from ledger)),
      meta as (
        insert into ${m} (${c(m.userId)}, ${c(m.credits)}) select ${userId}, ${balance} from ledger
        on conflict (${c(m.userId)}) do update set ${c(m.credits)} = excluded.${c(m.credits)}),
      told as (select ${notification} from ledger)
      select (select count(*) from ledger)::int as applied, (select count(*) from told)::int as told`);
    const [row] = (result as unknown as { rows: { applied: number }[] }).rows;
    return { applied: Number(row?.applied) === 1 };
  },

  /**
   * A paid job's debit and its PENDING job in one statement: likeness_start_paid_job (migration 0017) locks the
   * user's row, refuses an unknown user, an erased account, a source that is not an ACTIVE generation of the
   * user or is too large, a busy user (`oneAtATime`) and a balance too low with nothing written, else writes what
   * applyChange writes for a debit and the job leased to `leaseOwner`. An upscale's or edit's source comes back
   * with its character. Its transaction commits without waiting for the disk (startPaidJobStatement): the job's
   * end, which does wait, makes it durable, so the caller ends the job before its result leaves the server.
   */
  async startPaidJob(
    tx: Executor,
    start: PaidJobDebit & {
      leaseOwner: string;
      leaseSeconds: number;
      oneAtATime: boolean;
      channel: string;
      source: PaidJobSource | null;
    },
  ): Promise<{ outcome: PaidJobStart; credits: number | null; source: GenerationWithCharacter | null }> {
    type Raw = {
      outcome: PaidJobStart;
      credits: number | null;
      source: { generation: Record<string, unknown>; character: Record<string, unknown> | null } | null;
    };
    const [row] = await startPaidJobStatement<Raw>(tx, {
      userId: start.userId,
      cost: start.cost,
      reason: start.reason,
      debitKey: start.debitKey,
      jobId: start.jobId,
      kind: start.kind,
      input: JSON.stringify(start.input),
      provider: start.provider,
      leaseOwner: start.leaseOwner,
      leaseSeconds: start.leaseSeconds,
      oneAtATime: start.oneAtATime,
      channel: start.channel,
      sourceId: start.source?.id ?? null,
      sourceMaxSide: start.source?.maxSide ?? null,
    });
    const source =
      row.source &&
      withCharacter({
        generation: rowOf(getTableColumns(generations), row.source.generation),
        character: row.source.character && rowOf(characterColumns, row.source.character),
      });
    return { outcome: row.outcome, credits: row.credits === null ? null : Number(row.credits), source };
  },
};
