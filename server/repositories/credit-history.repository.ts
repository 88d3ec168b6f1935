import { sql } from 'drizzle-orm';
import { SPEND_ENTRIES, type HistoryRecord, type LedgerEntry, type SpendEntry } from '@common/credits.ts';
import type { Executor } from '../db/index.ts';
import { creditHistory, creditLedger, creditLedgerDays } from '../db/schema.ts';
import { createdAtText, pastPageEnd, type PageEnd } from './keyset.ts';

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;
const l = creditLedger;
const h = creditHistory;
const d = creditLedgerDays;

/** The kinds the spend sums read: the spending ones, and refunds, which are subtracted from them. */
const spendAndRefunds = () =>
  sql.join(
    [...SPEND_ENTRIES, 'refund'].map((k) => sql`${k}`),
    sql`, `,
  );

/** Reads of the credit ledger for the credits page (server/services/credits-history.service.ts). */
export const creditHistoryRepository = {
  /**
   * Up to `limit` lines of the user from the credit_history view (the one definition of a line and its link, which
   * the hosted SPA reads too), newest first, of one kind or all, after `end` (keyset on created_at, id).
   */
  async page(db: Executor, userId: string, opts: { entry?: LedgerEntry; end?: PageEnd; limit: number }): Promise<HistoryRecord[]> {
    const where = [sql`${h.userId} = ${userId}::uuid`];
    if (opts.entry) where.push(sql`${h.entry} = ${opts.entry}`);
    if (opts.end) where.push(pastPageEnd(h.createdAt, h.id, '<', opts.end));
    const result = await db.execute(sql`
      select ${h.id} as "id", ${createdAtText(h.createdAt)} as "created_at", ${h.entry} as "entry", ${h.reason} as "reason",
        ${h.delta} as "delta", ${h.balanceAfter} as "balance_after", ${h.linkType} as "link_type", ${h.linkId} as "link_id"
      from ${h}
      where ${sql.join(where, sql` and `)}
      order by ${h.createdAt} desc, ${h.id} desc
      limit ${opts.limit}`);
    return rowsOf<HistoryRecord>(result);
  },

  /** The user's newest spending line (a paid action's debit): what it was and what it cost. */
  async lastSpend(db: Executor, userId: string): Promise<{ entry: SpendEntry; cost: number } | undefined> {
    const kinds = sql.join(
      SPEND_ENTRIES.map((k) => sql`${k}`),
      sql`, `,
    );
    const result = await db.execute(sql`
      select ${l.entry} as "entry", -${l.delta} as "cost"
      from ${l}
      where ${l.userId} = ${userId}::uuid and ${l.entry} in (${kinds}) and ${l.delta} < 0
      order by ${l.createdAt} desc, ${l.id} desc
      limit 1`);
    const [row] = rowsOf<{ entry: SpendEntry; cost: number | string }>(result);
    return row && { entry: row.entry, cost: Number(row.cost) };
  },

  /**
   * Credits spent per kind since `from` (debits of the spending kinds), and the refunds given back since then: the
   * whole UTC days after `from`'s day from credit_ledger_days, and the part of `from`'s own day from the ledger (a
   * period starts at any moment; at most one day of lines, on credit_ledger_user_history_idx).
   */
  async spendByKind(db: Executor, userId: string, from: Date): Promise<{ byKind: Map<SpendEntry, number>; refunded: number }> {
    const start = sql`${from.toISOString()}::timestamptz`;
    const startDay = sql`(${start} at time zone 'UTC')::date`;
    const result = await db.execute(sql`
      select "entry", sum("delta")::bigint as "sum"
      from (
        select ${d.entry} as "entry", ${d.delta} as "delta"
        from ${d}
        where ${d.userId} = ${userId}::uuid and ${d.day} > ${startDay} and ${d.entry} in (${spendAndRefunds()})
        union all
        select ${l.entry}, ${l.delta}
        from ${l}
        where ${l.userId} = ${userId}::uuid and ${l.createdAt} >= ${start}
          and ${l.createdAt} < ((${startDay} + 1)::timestamp at time zone 'UTC') and ${l.entry} in (${spendAndRefunds()})
      ) as spent
      group by "entry"`);
    const byKind = new Map<SpendEntry, number>();
    let refunded = 0;
    for (const row of rowsOf<{ entry: LedgerEntry; sum: string }>(result)) {
      if (row.entry === 'refund') refunded = Number(row.sum);
      else byKind.set(row.entry as SpendEntry, -Number(row.sum));
    }
    return { byKind, refunded };
  },

  /**
   * Credits spent per UTC day over the last `days` days (today included), refunds subtracted, oldest first; a day
   * without spending is there with 0. From credit_ledger_days: at most `days` × 7 rows, whatever the history.
   */
  async spendPerDay(db: Executor, userId: string, days: number): Promise<{ day: string; credits: number }[]> {
    const result = await db.execute(sql`
      with bounds as (select (now() at time zone 'UTC')::date - ${days - 1}::int as first_day),
      spent as (
        select ${d.day} as day, -sum(${d.delta})::bigint as credits
        from ${d}, bounds
        where ${d.userId} = ${userId}::uuid and ${d.day} >= bounds.first_day and ${d.entry} in (${spendAndRefunds()})
        group by 1)
      select to_char(series.day, 'YYYY-MM-DD') as "day", coalesce(spent.credits, 0)::bigint as "credits"
      from bounds, generate_series(bounds.first_day::timestamp, (bounds.first_day + ${days - 1}::int)::timestamp, interval '1 day') as series(day)
      left join spent on spent.day = series.day::date
      order by series.day`);
    return rowsOf<{ day: string; credits: string }>(result).map((r) => ({ day: r.day, credits: Number(r.credits) }));
  },
};
