/**
 * `node --import tsx bench/profile-generate.ts`: where a generation's server time goes, on Postgres
 * (TEST_DATABASE_URL, or BENCH_DATABASE_URL) with a zero-latency provider, as in `npm run bench generate`.
 * Prints every SQL statement one POST /api/image/generate-image sends, then runs 4 users back to back under a
 * CPU profile and prints the figures; the profile is written to $PROFILE_OUT (default
 * /tmp/generate.cpuprofile) for Chrome DevTools or `node bench/profile-summary.mjs <file>`.
 * Record: docs/decisions/014-generate-path.md.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import pg from 'pg';
import type { TestClient } from '../tests/helpers/server.ts';
import { loadNow, percentile } from './stats.ts';
import { GENERATE_BODY, startZeroLatencyServer } from './zero-latency-server.ts';

const USERS = 4;
const REQUESTS = Number(process.env.REQUESTS ?? 400);
const ts = await startZeroLatencyServer();
try {
  const clients: TestClient[] = [];
  for (let i = 0; i < USERS; i++) clients.push((await ts.signUp({ credits: 100_000 })).client);
  const generate = async (client: TestClient) => {
    const started = performance.now();
    const res = await client.post('/api/image/generate-image', GENERATE_BODY);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`generate-image answered ${res.status}`);
    return performance.now() - started;
  };
  for (let i = 0; i < 40; i++) await generate(clients[i % USERS]);

  // Every statement of one request, in order (pg's Client.query is what drizzle and better-auth both call).
  const statements: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text?: string };
    statements.push(
      String(typeof q === 'string' ? q : q?.text)
        .replace(/\s+/g, ' ')
        .slice(0, 140),
    );
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  await generate(clients[0]);
  pg.Client.prototype.query = query;
  console.log(`${statements.length} SQL statements for one generate-image:`);
  statements.forEach((s, i) => console.log(`  ${String(i + 1).padStart(2)}. ${s}`));

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const times: number[] = [];
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      for (let i = 0; i < REQUESTS / USERS; i++) times.push(await generate(client));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const single: number[] = [];
  for (let i = 0; i < 100; i++) single.push(await generate(clients[0]));
  const { profile } = await session.post('Profiler.stop');
  const out = process.env.PROFILE_OUT ?? '/tmp/generate.cpuprofile';
  writeFileSync(out, JSON.stringify(profile));
  console.log(
    `${USERS} users back to back: ${Math.round(times.length / seconds)} req/s, p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms; 1 user p50 ${percentile(single, 50).toFixed(1)} ms (${loadNow()})`,
  );
  console.log(`CPU profile: ${out}`);
} finally {
  await ts.stop();
}
process.exit(0);
