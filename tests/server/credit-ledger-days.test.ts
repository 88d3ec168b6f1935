import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEND_ENTRIES, type LedgerEntry, type SpendSummary } from '@common/credits.ts';
import type { Executor } from '../../server/db/index.ts';
import { creditLedger, subscriptions } from '../../server/db/schema.ts';
import { createScratchDatabase, startTestServer, testDatabases, type TestDatabaseKind, type TestServer } from '../helpers/server.ts';

/**
 * Issue 50's performance item: the spend chart and the period's spend read credit_ledger_days, per-day sums that
 * triggers on credit_ledger keep (migration 0027). These show that the sums are the ledger's, exactly: answers
 * equal to sums worked out here from the lines themselves, a period starting mid-day, parallel writers of one
 * day, updates and deletes of lines, and lines written before the migration.
 */

const DAY_MS = 86_400_000;
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;
/** Credits spent: the lines' deltas summed and negated (0, not -0, for none). */
const deltaOf = (lines: Line[]) => lines.reduce((sum, l) => sum + l.delta, 0);
const spentBy = (lines: Line[]) => -deltaOf(lines) || 0;

/** Lines of every kind, as their writers key them: [key, reason, delta, entry]. */
const KINDS: [(id: string) => string, string, number, LedgerEntry][] = [
  [(id) => `generation:${id}`, 'Image generation', -10, 'generation'],
  [(id) => `generation:${id}`, 'Image upscale 2×', -5, 'upscale'],
  [(id) => `generation:${id}`, 'Image edit', -10, 'edit'],
  [(id) => `refund:generation:${id}`, 'Refund: generation failed', 10, 'refund'],
  [(id) => `shoot:${id}`, 'Photo shoot: Paris (4 photos)', -40, 'shoot'],
  [(id) => `refund:shoot-photo:${id}`, 'Refund: photo shoot photo failed', 10, 'refund'],
  [(id) => `training:${id}`, 'character training: Mara', -500, 'training'],
  [(id) => `caption:${id}`, 'Detailed caption', -2, 'prompt'],
  [(id) => `topup:sandbox:order:${id}`, 'Top-up: 500 credits', 500, 'topup'],
  [(id) => `promo:LAUNCH:${id}`, 'Promo code LAUNCH', 50, 'promo'],
  [(id) => `payment:sandbox:${id}`, 'Basic plan credits', 1500, 'plan'],
];

interface Line {
  at: Date;
  delta: number;
  entry: LedgerEntry;
}

/** Where the days table and the ledger disagree (nothing, when the triggers kept it right). */
async function disagreements(db: Executor, userId: string) {
  return rowsOf<{ day: string; entry: string; ledger: string | null; days: string | null }>(
    await db.execute(sql`
      with ledger as (
        select (created_at at time zone 'UTC')::date as day, entry, sum(delta)::bigint as delta
        from credit_ledger where user_id = ${userId}::uuid group by 1, 2),
      days as (select day, entry, delta from credit_ledger_days where user_id = ${userId}::uuid)
      select to_char(coalesce(ledger.day, days.day), 'YYYY-MM-DD') as day, coalesce(ledger.entry, days.entry) as entry,
             ledger.delta::text as ledger, days.delta::text as days
      from ledger full join days on days.day = ledger.day and days.entry = ledger.entry
      where coalesce(ledger.delta, 0) <> coalesce(days.delta, 0)`),
  );
}

describe.each(testDatabases())('credit_ledger_days (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database });
  });
  afterAll(() => ts?.stop());

  it('gives the chart and the period’s spend the ledger’s own sums, with a period that starts mid-day', async () => {
    const { client, userId } = await ts.signUp();
    const now = Date.now();
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    // A paid period that began five days ago at 13:00 UTC: its first day counts only from then.
    const periodStart = new Date(today - 5 * DAY_MS + 13 * 3_600_000);
    await ts.rt.db.insert(subscriptions).values({
      id: `sub_${randomUUID()}`,
      provider: 'sandbox',
      userId,
      customerId: `cust_${randomUUID()}`,
      plan: 'BASIC',
      status: 'active',
      currentPeriodStart: periodStart,
      currentPeriodEnd: new Date(periodStart.getTime() + 30 * DAY_MS),
    });

    // 400 lines over ~100 days (every 6 h 7 min, of each kind in turn), and two at the edge of the period.
    const lines: Line[] = [];
    const rows = [];
    for (let i = 0; i < 400; i++) {
      const [key, reason, delta, entry] = KINDS[i % KINDS.length];
      const at = new Date(now - 60_000 - i * 22_020_000);
      lines.push({ at, delta, entry });
      rows.push({
        userId,
        delta,
        kind: delta < 0 ? 'debit' : 'grant',
        reason,
        idempotencyKey: key(randomUUID()),
        balanceAfter: 0,
        createdAt: at,
      });
    }
    for (const at of [periodStart, new Date(periodStart.getTime() - 1)]) {
      lines.push({ at, delta: -7, entry: 'edit' });
      rows.push({
        userId,
        delta: -7,
        kind: 'debit',
        reason: 'Image edit',
        idempotencyKey: `generation:${randomUUID()}`,
        balanceAfter: 0,
        createdAt: at,
      });
    }
    // One statement of many lines over many days, then a few one by one.
    await ts.rt.db.insert(creditLedger).values(rows.slice(0, 300) as (typeof creditLedger.$inferInsert)[]);
    for (const row of rows.slice(300)) await ts.rt.db.insert(creditLedger).values(row as typeof creditLedger.$inferInsert);
    expect(await disagreements(ts.rt.db, userId)).toEqual([]);

    const spendKinds = new Set<LedgerEntry>([...SPEND_ENTRIES, 'refund']);
    for (const days of [30, 90] as const) {
      const first = today - (days - 1) * DAY_MS;
      const expected = Array.from({ length: days }, (_, d) => {
        const start = first + d * DAY_MS;
        const inDay = lines.filter((l) => spendKinds.has(l.entry) && l.at.getTime() >= start && l.at.getTime() < start + DAY_MS);
        return { day: new Date(start).toISOString().slice(0, 10), credits: spentBy(inDay) };
      });
      const spend = (await (await client.get(`/api/credits/spend?days=${days}`)).json()) as SpendSummary;
      expect(spend.per_day).toEqual(expected);
      expect(spend.per_day.some((d) => d.credits !== 0)).toBe(true);

      const inPeriod = lines.filter((l) => l.at >= periodStart);
      expect(spend.period_start).toBe(periodStart.toISOString());
      expect(spend.by_kind).toEqual(SPEND_ENTRIES.map((kind) => ({ kind, credits: spentBy(inPeriod.filter((l) => l.entry === kind)) })));
      expect(spend.refunded).toBe(deltaOf(inPeriod.filter((l) => l.entry === 'refund')));
    }
  }, 60_000);

  it('stays exact under parallel writers of one day and kind, and when lines are changed or deleted', async () => {
    const { userId } = await ts.signUp();
    // 30 transactions that each insert a debit of the same day and kind and stay open a while, so on Postgres they
    // meet on the same credit_ledger_days row (PGlite runs them one at a time).
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        ts.rt.db.transaction(async (tx) => {
          await tx.insert(creditLedger).values({
            userId,
            delta: -(i + 1),
            kind: 'debit',
            reason: 'Image generation',
            idempotencyKey: `generation:${randomUUID()}`,
            balanceAfter: 0,
          });
          await tx.execute(sql`select pg_sleep(0.02)`);
        }),
      ),
    );
    const sumOf = async (entry: LedgerEntry) =>
      Number(
        rowsOf<{ delta: string }>(
          await ts.rt.db.execute(
            sql`select coalesce(sum(delta), 0)::text as delta from credit_ledger_days where user_id = ${userId}::uuid and entry = ${entry}`,
          ),
        )[0].delta,
      );
    expect(await sumOf('generation')).toBe(-465);
    expect(await disagreements(ts.rt.db, userId)).toEqual([]);

    // A line whose reason changes changes kind (an upscale's reason), one moved to another day, and a deletion.
    await ts.rt.db.execute(sql`
      update credit_ledger set reason = 'Image upscale 2×'
      where id in (select id from credit_ledger where user_id = ${userId}::uuid and delta in (-1, -2, -3))`);
    expect(await sumOf('upscale')).toBe(-6);
    await ts.rt.db.execute(
      sql`update credit_ledger set created_at = created_at - interval '3 days' where user_id = ${userId}::uuid and delta = -4`,
    );
    await ts.rt.db.execute(sql`delete from credit_ledger where user_id = ${userId}::uuid and delta = -30`);
    expect(await sumOf('generation')).toBe(-465 + 6 + 30);
    expect(await disagreements(ts.rt.db, userId)).toEqual([]);
  }, 60_000);

  it('counts the lines written before the migration', async () => {
    await withDatabaseBefore27(database, async (db) => {
      const { rows: users } = await db.query<{ id: string }>(
        `insert into users (clerk_id) select 'before-' || g || '-' || gen_random_uuid() from generate_series(1, 3) g returning id`,
      );
      await db.query(
        `insert into credit_ledger (user_id, delta, kind, reason, idempotency_key, balance_after, created_at)
         select u.id, case when g % 3 = 0 then 10 else -10 end, case when g % 3 = 0 then 'refund' else 'debit' end, 'Image generation',
                case when g % 3 = 0 then 'refund:' else '' end || 'generation:' || gen_random_uuid(), 0, now() - make_interval(hours => g * 7)
         from unnest($1::uuid[]) as u(id), generate_series(1, 200) g`,
        [users.map((u) => u.id)],
      );
    }).then(async ({ db, close }) => {
      try {
        const { rows } = await db.query<{ days: string; lines: string; total: string }>(
          `select (select count(*) from credit_ledger_days)::text as days,
                  (select count(*) from credit_ledger)::text as lines,
                  (select sum(delta) from credit_ledger_days)::text as total`,
        );
        expect(Number(rows[0].lines)).toBe(600);
        expect(Number(rows[0].days)).toBeGreaterThan(100);
        const { rows: wrong } = await db.query(`
          with ledger as (select user_id, (created_at at time zone 'UTC')::date as day, entry, sum(delta)::bigint as delta from credit_ledger group by 1, 2, 3)
          select * from ledger full join credit_ledger_days d using (user_id, day, entry)
          where coalesce(ledger.delta, 0) <> coalesce(d.delta, 0)`);
        expect(wrong).toEqual([]);
      } finally {
        await close();
      }
    });
  }, 120_000);
});

const MIGRATIONS = fileURLToPath(new URL('../../server/db/migrations', import.meta.url));

interface RawDb {
  query<T>(text: string, values?: unknown[]): Promise<{ rows: T[] }>;
}

/**
 * A database migrated up to 0026, where `fill` writes, then migrated to the end (0027 and after), as a server
 * start would on a database with a history.
 */
async function withDatabaseBefore27(database: TestDatabaseKind, fill: (db: RawDb) => Promise<void>) {
  const before = mkdtempSync(join(tmpdir(), 'likeness-before-0027-'));
  const journal = JSON.parse(readFileSync(join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as {
    entries: { idx: number; tag: string }[];
  };
  const entries = journal.entries.filter((e) => e.idx < 27);
  mkdirSync(join(before, 'meta'));
  writeFileSync(join(before, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
  for (const e of entries) copyFileSync(join(MIGRATIONS, `${e.tag}.sql`), join(before, `${e.tag}.sql`));
  try {
    if (database === 'pglite') {
      const client = await PGlite.create();
      const db = drizzlePglite(client);
      await migratePglite(db, { migrationsFolder: before });
      const raw: RawDb = { query: async (text, values) => ({ rows: (await client.query(text, values)).rows as never }) };
      await fill(raw);
      await migratePglite(db, { migrationsFolder: MIGRATIONS });
      return { db: raw, close: () => client.close() };
    }
    const scratch = await createScratchDatabase();
    const pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
    await migratePg(drizzlePg(pool), { migrationsFolder: before });
    await fill(pool as RawDb);
    await migratePg(drizzlePg(pool), { migrationsFolder: MIGRATIONS });
    return {
      db: pool as RawDb,
      close: async () => {
        await pool.end();
        await scratch.drop();
      },
    };
  } finally {
    rmSync(before, { recursive: true, force: true });
  }
}
