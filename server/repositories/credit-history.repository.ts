import { sql, type SQL } from 'drizzle-orm';
import { SPEND_ENTRIES, type LedgerEntry, type SpendEntry } from '@common/credits.ts';
import type { Executor } from '../db/index.ts';
import { creditLedger, generationJobs, loraTrainings, photoShoots, shootPhotos } from '../db/schema.ts';
import { createdAtText, pastPageEnd, type PageEnd } from './keyset.ts';

/** One ledger line as the history reads it, with what it links to (resolved for the page's lines only). */
export interface HistoryRow {
  id: string;
  at: string;
  entry: LedgerEntry;
  reason: string;
  delta: number;
  balanceAfter: number;
  linkType: 'image' | 'shoot' | 'character' | null;
  linkId: string | null;
}

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;
const l = creditLedger;
const UUID_TAIL = `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`;
const keyIs = (prefixes: string) => sql.raw(`'^(refund:)?(${prefixes}):${UUID_TAIL}'`);

/**
 * A line's link, from its idempotency key (the same keys the ledger's writers use: `generation:<job>`,
 * `shoot:<shoot>`, `refund:shoot-photo:<photo>`, `training:<character>` …, a refund naming the debit it gives back):
 * the image its paid call made, the shoot, or the character, while that still exists.
 */
function linkColumns(key: SQL) {
  const id = sql`right(${key}, 36)::uuid`;
  const j = generationJobs;
  const t = loraTrainings;
  const s = photoShoots;
  const p = shootPhotos;
  return sql`
    case
      when ${key} ~ ${keyIs('generation')} then (select ${j.generationId}::text from ${j} where ${j.id} = ${id})
      when ${key} ~ ${keyIs('shoot|shoot-cancel')} then (select ${s.id}::text from ${s} where ${s.id} = ${id})
      when ${key} ~ ${keyIs('shoot-photo')} then (select ${p.shootId}::text from ${p} where ${p.id} = ${id})
      when ${key} ~ ${keyIs('training')} then (select ${t.id}::text from ${t} where ${t.id} = ${id})
    end as "linkId",
    case
      when ${key} ~ ${keyIs('generation')} then 'image'
      when ${key} ~ ${keyIs('shoot|shoot-cancel|shoot-photo')} then 'shoot'
      when ${key} ~ ${keyIs('training')} then 'character'
    end as "linkType"`;
}

/** Reads of the credit ledger for the credits page (server/services/credits-history.service.ts). */
export const creditHistoryRepository = {
  /** Up to `limit` lines of the user, newest first, of one kind or all, after `end` (keyset on created_at, id). */
  async page(db: Executor, userId: string, opts: { entry?: LedgerEntry; end?: PageEnd; limit: number }): Promise<HistoryRow[]> {
    const where = [sql`${l.userId} = ${userId}::uuid`];
    if (opts.entry) where.push(sql`${l.entry} = ${opts.entry}`);
    if (opts.end) where.push(pastPageEnd(l.createdAt, l.id, '<', opts.end));
    const result = await db.execute(sql`
      with page as (
        select ${l.id} as "id", ${createdAtText(l.createdAt)} as "at", ${l.entry} as "entry", ${l.reason} as "reason",
          ${l.delta} as "delta", ${l.balanceAfter} as "balanceAfter", ${l.idempotencyKey} as "key",
          ${l.createdAt} as "createdAt"
        from ${l}
        where ${sql.join(where, sql` and `)}
        order by ${l.createdAt} desc, ${l.id} desc
        limit ${opts.limit})
      select "id", "at", "entry", "reason", "delta", "balanceAfter", ${linkColumns(sql`"key"`)}
      from page order by "createdAt" desc, "id" desc`);
    return rowsOf<HistoryRow>(result).map((r) => ({ ...r, delta: Number(r.delta), balanceAfter: Number(r.balanceAfter) }));
  },

  /** Credits spent per kind since `from` (debits of the spending kinds), and the refunds given back since then. */
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

  async spendByKind(db: Executor, userId: string, from: Date): Promise<{ byKind: Map<SpendEntry, number>; refunded: number }> {
    const kinds = sql.join(
      [...SPEND_ENTRIES, 'refund'].map((k) => sql`${k}`),
      sql`, `,
    );
    const result = await db.execute(sql`
      select ${l.entry} as "entry", sum(${l.delta})::bigint as "sum"
      from ${l}
      where ${l.userId} = ${userId}::uuid and ${l.createdAt} >= ${from.toISOString()}::timestamptz and ${l.entry} in (${kinds})
      group by ${l.entry}`);
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
   * without spending is there with 0.
   */
  async spendPerDay(db: Executor, userId: string, days: number): Promise<{ day: string; credits: number }[]> {
    const kinds = sql.join(
      [...SPEND_ENTRIES, 'refund'].map((k) => sql`${k}`),
      sql`, `,
    );
    const result = await db.execute(sql`
      with bounds as (select (date_trunc('day', now() at time zone 'UTC') - make_interval(days => ${days - 1}::int)) as first_day),
      spent as (
        select date_trunc('day', ${l.createdAt} at time zone 'UTC') as day, -sum(${l.delta})::bigint as credits
        from ${l}, bounds
        where ${l.userId} = ${userId}::uuid and ${l.createdAt} >= (bounds.first_day at time zone 'UTC') and ${l.entry} in (${kinds})
        group by 1)
      select to_char(d.day, 'YYYY-MM-DD') as "day", coalesce(spent.credits, 0)::bigint as "credits"
      from bounds, generate_series(bounds.first_day, bounds.first_day + make_interval(days => ${days - 1}::int), interval '1 day') as d(day)
      left join spent on spent.day = d.day
      order by d.day`);
    return rowsOf<{ day: string; credits: string }>(result).map((r) => ({ day: r.day, credits: Number(r.credits) }));
  },
};
