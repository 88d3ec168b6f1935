import { sql } from 'drizzle-orm';
import { EXPLORE_VOCABULARY } from '../common/library.ts';
import type { Db } from '../server/db/index.ts';
import { startTestServer, type TestDatabaseKind } from '../tests/helpers/server.ts';
import { latencyRow, onBothDatabases, printTable, timeGets } from './stats.ts';

/** Targets on Postgres over 100,000 rows: p99 ≤ 20 ms for every listing, ≤ 15 ms for Explore with 2–4 filters. */
const TARGET_P99_MS = 20;
const TARGET_FILTERED_P99_MS = 15;
const ROWS = 100_000;
const REQUESTS = 300;
const WARMUP = 30;
const OTHER_USERS = 1_000;
const OTHERS_EACH = 100;

/** An SQL expression picking one vocabulary word by `index` (an expression of the row number g). */
const pick = (values: readonly string[], index: string) =>
  sql.raw(`(array[${values.map((v) => `'${v}'`).join(',')}])[1 + (${index}) % ${values.length}]`);

/** Bulk rows: a user's 100,000 generations (a tenth favourites, 2% deleted), other users' rows, 100,000 explore items. */
export async function fill(db: Db, userId: string) {
  await db.execute(sql`
    insert into generations (user_id, prompt, width, height, image_url, seed, num_inference_steps, guidance_scale, is_favorite, status, created_at)
    select ${userId}, 'bench prompt ' || g, 1024, 1024, '/media/generations/' || ${userId} || '/' || g || '.jpeg', g::text, 28, 3.5,
           g % 10 = 0, case when g % 50 = 0 then 'DELETED' else 'ACTIVE' end, now() - (g || ' seconds')::interval
    from generate_series(1, ${ROWS}) as g`);
  // The table is shared: 1,000 other users with 100 generations each, as a live product has.
  await db.execute(sql`insert into users (clerk_id) select 'bench-other-' || u from generate_series(1, ${OTHER_USERS}) as u`);
  await db.execute(sql`
    insert into generations (user_id, prompt, width, height, image_url, created_at)
    select users.id, 'other prompt', 1024, 1024, '/media/generations/other/' || g || '.jpeg', now() - (g || ' seconds')::interval
    from users cross join generate_series(1, ${OTHERS_EACH}) as g where users.clerk_id like 'bench-other-%'`);
  const { gender, hair_color, ethnicity, style } = EXPLORE_VOCABULARY;
  await db.execute(sql`
    insert into explore_gallery (image_url, prompt, width, height, style, gender, ethnicity, hair_color, is_featured, created_at)
    select '/media/explore/' || g || '.jpeg', 'explore prompt ' || g, 768, 960, ${pick(style, 'g / 3')}, ${pick(gender, 'g')},
           ${pick(ethnicity, 'g / 21')}, ${pick(hair_color, 'g / 147 + g')}, g % 500 = 0, now() - (g || ' seconds')::interval
    from generate_series(1, ${ROWS}) as g`);
  // What autovacuum does to a live table soon after a bulk load: statistics, and the visibility map that lets
  // counts read only the index.
  await db.execute(sql`vacuum analyze generations`);
  await db.execute(sql`vacuum analyze explore_gallery`);
}

/** Request paths of each case: a mix of pages (first, middle, deep) and filters, as people browse. */
export function cases(): Record<string, string[]> {
  const pages = [1, 1, 1, 2, 3, 5, 10, 25];
  const { gender, hair_color, ethnicity, style } = EXPLORE_VOCABULARY;
  return {
    'My Generations (page 1-10, 25)': pages.map((p) => `/api/library/generations?page=${p}`),
    'Favorites (page 1-10, 25)': pages.map((p) => `/api/library/generations?page=${p}&favorites=true`),
    'Explore, no filter': pages.map((p) => `/api/explore?page=${p}`),
    'Explore, 1 filter': pages.flatMap((p, i) => [
      `/api/explore?page=${p}&gender=${gender[i % 3]}`,
      `/api/explore?page=${p}&style=${style[i % 7]}`,
    ]),
    'Explore, 2-4 filters': pages.flatMap((p, i) => [
      `/api/explore?page=${Math.min(p, 3)}&gender=${gender[i % 3]}&hair_color=${hair_color[i % 7]}`,
      `/api/explore?page=1&gender=${gender[i % 3]}&style=${style[i % 7]}&ethnicity=${ethnicity[i % 7]}`,
      `/api/explore?page=1&gender=${gender[i % 3]}&style=${style[i % 7]}&ethnicity=${ethnicity[(i + 2) % 7]}&hair_color=${hair_color[i % 7]}`,
    ]),
  };
}

async function measure(database: TestDatabaseKind) {
  const ts = await startTestServer({ database });
  try {
    const { client, userId } = await ts.signUp();
    const started = performance.now();
    await fill(ts.rt.db, userId);
    console.log(
      `gallery: ${database}: ${ROWS.toLocaleString('en-US')} generations of one user (+ ${(OTHER_USERS * OTHERS_EACH).toLocaleString('en-US')} of others) + ${ROWS.toLocaleString('en-US')} explore rows in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    // The load outlasts the server's keep-alive timeout; the first request may meet a closed socket.
    await client.get('/api/me').catch(() => undefined);
    const rows = [];
    for (const [name, paths] of Object.entries(cases())) {
      const times = await timeGets(client, paths, { requests: REQUESTS, warmup: WARMUP });
      rows.push(latencyRow(database, name, times, name === 'Explore, 2-4 filters' ? TARGET_FILTERED_P99_MS : TARGET_P99_MS));
    }
    return rows;
  } finally {
    await ts.stop();
  }
}

export async function run(): Promise<void> {
  const rows = await onBothDatabases('gallery', measure);
  console.log('gallery: GET list + exact count, 40 a page, over loopback HTTP (session check included), one request at a time');
  printTable(rows);
}
