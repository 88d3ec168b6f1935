import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { teamCreditLedger, teams, type LedgerKind } from '../db/schema.ts';

const c = (column: { name: string }) => sql.identifier(column.name);

/** Statements of a team's balance changes (server/services/team-credits.service.ts decides them). */
export const teamCreditsRepository = {
  /** The team's balance, its row locked for the rest of the transaction (every team balance change takes it). */
  async lockBalance(tx: Executor, teamId: string): Promise<number | undefined> {
    const [row] = await tx.select({ credits: teams.credits }).from(teams).where(eq(teams.id, teamId)).for('update');
    return row?.credits;
  },

  async keySeen(tx: Executor, idempotencyKey: string): Promise<boolean> {
    const [row] = await tx
      .select({ id: teamCreditLedger.id })
      .from(teamCreditLedger)
      .where(eq(teamCreditLedger.idempotencyKey, idempotencyKey));
    return Boolean(row);
  },

  /**
   * The ledger row and, only when it was written (its key is new), the team's new balance and `notifications`
   * (NOTIFYs of the team event), in one statement. The caller holds the team row's lock.
   */
  async applyChange(
    tx: Executor,
    change: {
      teamId: string;
      userId: string | null;
      delta: number;
      kind: LedgerKind;
      reason: string;
      idempotencyKey: string;
      balanceAfter: number;
    },
    notifications: SQL[],
  ): Promise<boolean> {
    const l = teamCreditLedger;
    const teamId = sql`${change.teamId}::uuid`;
    const balance = sql`${change.balanceAfter}::integer`;
    const told = notifications.length ? sql.join(notifications, sql`, `) : sql`null`;
    const result = await tx.execute<{ applied: number }>(sql`
      with ledger as (
        insert into ${l} (${c(l.teamId)}, ${c(l.userId)}, ${c(l.delta)}, ${c(l.kind)}, ${c(l.reason)}, ${c(l.idempotencyKey)}, ${c(l.balanceAfter)}, ${c(l.createdAt)})
        values (${teamId}, ${change.userId}::uuid, ${change.delta}::integer, ${change.kind}::text, ${change.reason}::text, ${change.idempotencyKey}::text, ${balance}, clock_timestamp())
        on conflict (${c(l.idempotencyKey)}) do nothing
        returning 1),
      balance as (
        update ${teams} set ${c(teams.credits)} = ${balance}, ${c(teams.updatedAt)} = now()
        where ${c(teams.id)} = ${teamId} and exists (select from ledger)),
      told as (select ${told} from ledger)
      select (select count(*) from ledger)::int as applied, (select count(*) from told)::int as told`);
    const [row] = (result as unknown as { rows: { applied: number }[] }).rows;
    return Number(row?.applied) === 1;
  },

  async balance(db: Executor, teamId: string): Promise<number | undefined> {
    const [row] = await db.select({ credits: teams.credits }).from(teams).where(eq(teams.id, teamId));
    return row?.credits;
  },

  async ledgerSum(db: Executor, teamId: string): Promise<number> {
    const [row] = await db
      .select({ sum: sql<string>`coalesce(sum(${teamCreditLedger.delta}), 0)` })
      .from(teamCreditLedger)
      .where(eq(teamCreditLedger.teamId, teamId));
    return Number(row.sum);
  },

  ledger(db: Executor, teamId: string, limit: number) {
    return db
      .select()
      .from(teamCreditLedger)
      .where(and(eq(teamCreditLedger.teamId, teamId)))
      .orderBy(desc(teamCreditLedger.createdAt))
      .limit(limit);
  },
};
