import { sql } from 'drizzle-orm';
import type { HistoryPage } from '../common/credits.ts';
import type { Db } from '../server/db/index.ts';
import { startTestServer, type TestDatabaseKind } from '../tests/helpers/server.ts';
import { latencyRow, onBothDatabases, printTable, timeGets } from './stats.ts';

/** Target on Postgres (issue 50): the credits page's history and its chart over 100,000 ledger lines of one account, p99 ≤ 15 ms. */
const TARGET_P99_MS = 15;
const LINES = 100_000;
/** The lines span this many days back from now (a heavy user: ~270 lines a day, ~24,000 in the 90-day chart). */
const SPAN_DAYS = 365;
const REQUESTS = 300;
const WARMUP = 30;
const OTHER_USERS = 1_000;
const OTHERS_EACH = 100;

/** One account's 100,000 ledger lines of every kind (their keys as the writers make them), and other accounts' lines. */
async function fill(db: Db, userId: string) {
  const keyOf = (g: string) =>
    sql.raw(
      `(array['generation:', 'refund:generation:', 'shoot:', 'training:', 'caption:', 'payment:sandbox:tx:', 'topup:sandbox:tx:', 'promo:'])[1 + (${g}) % 8] || gen_random_uuid()`,
    );
  await db.execute(sql`
    insert into credit_ledger (user_id, delta, kind, reason, idempotency_key, balance_after, created_at)
    select ${userId}::uuid, case when g % 8 in (1, 5, 6, 7) then 10 else -10 end, case when g % 8 in (1, 5, 6, 7) then 'grant' else 'debit' end,
           case g % 24 when 0 then 'Image upscale 2×' when 8 then 'Image edit' else 'Image generation' end, ${keyOf('g')}, 1000 + g,
           now() - make_interval(secs => g * ${(SPAN_DAYS * 86400) / LINES}::double precision)
    from generate_series(1, ${LINES}) as g`);
  await db.execute(sql`insert into users (clerk_id) select 'bench-other-' || u from generate_series(1, ${OTHER_USERS}) as u`);
  await db.execute(sql`
    insert into credit_ledger (user_id, delta, kind, reason, idempotency_key, balance_after, created_at)
    select users.id, -10, 'debit', 'Image generation', 'generation:' || gen_random_uuid(), 100, now() - make_interval(secs => g * 3000)
    from users cross join generate_series(1, ${OTHERS_EACH}) as g where users.clerk_id like 'bench-other-%'`);
  await db.execute(sql`vacuum analyze credit_ledger`);
}

export async function measure(database: TestDatabaseKind) {
  const ts = await startTestServer({ database });
  try {
    const { client, userId } = await ts.signUp();
    const started = performance.now();
    await fill(ts.rt.db, userId);
    console.log(
      `credits: ${database}: ${LINES.toLocaleString('en-US')} ledger lines of one account (+ ${(OTHER_USERS * OTHERS_EACH).toLocaleString('en-US')} of others) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    await client.get('/api/me').catch(() => undefined);
    // Cursors of pages 2, 10 and 100 (a person paging far back), found by paging once.
    const cursors: string[] = [];
    let cursor = '';
    for (let page = 1; page <= 100; page++) {
      const body = (await (
        await client.get(`/api/credits/history${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`)
      ).json()) as HistoryPage;
      cursor = body.next_cursor ?? '';
      if (page === 1 || page === 9 || page === 99) cursors.push(cursor);
    }
    const cases: Record<string, string[]> = {
      'history (pages 1, 2, 10, 100)': ['', ...cursors.map((c) => `?cursor=${encodeURIComponent(c)}`)].map(
        (q) => `/api/credits/history${q}`,
      ),
      'history by kind (upscale, refund, top-up)': ['upscale', 'refund', 'topup'].map((k) => `/api/credits/history?kind=${k}`),
      'chart + period spend, 30 days': ['/api/credits/spend?days=30'],
      'chart + period spend, 90 days': ['/api/credits/spend?days=90'],
    };
    const rows = [];
    for (const [name, paths] of Object.entries(cases)) {
      const times = await timeGets(client, paths, { requests: REQUESTS, warmup: WARMUP });
      rows.push(latencyRow(database, name, times, TARGET_P99_MS));
    }
    return rows;
  } finally {
    await ts.stop();
  }
}

export async function run(): Promise<void> {
  const rows = await onBothDatabases('credits', measure);
  console.log(
    'credits: GET history page (50 lines + links) and spend (by kind this period + per day), over loopback HTTP, one request at a time',
  );
  printTable(rows);
}
