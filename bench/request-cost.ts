/**
 * `node --import tsx bench/request-cost.ts`: what one POST /api/image/generate-image costs in work rather than
 * in time, so that two versions can be compared on a loaded machine: SQL statements the process sends per
 * request (background work included), CPU time of this process and of the Postgres backends serving it per
 * request, and the statements of one request listed. Postgres (TEST_DATABASE_URL or BENCH_DATABASE_URL), a
 * zero-latency provider, as in `npm run bench generate`. Record: docs/decisions/014-generate-path.md.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { TestClient } from '../tests/helpers/server.ts';
import { GENERATE_BODY, startZeroLatencyServer } from './zero-latency-server.ts';

const REQUESTS = Number(process.env.REQUESTS ?? 300);
const ts = await startZeroLatencyServer();

/** CPU seconds (user + system) of a process, from /proc (clock ticks of 1/100 s). */
const cpuOf = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
};

try {
  const { client } = await ts.signUp({ credits: 1_000_000 });
  const generate = async (c: TestClient) => {
    const res = await c.post('/api/image/generate-image', GENERATE_BODY);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`generate-image answered ${res.status}`);
  };
  for (let i = 0; i < 30; i++) await generate(client);

  const statements: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text?: string };
    statements.push(String(typeof q === 'string' ? q : q?.text).replace(/\s+/g, ' '));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  await generate(client);
  const one = statements.splice(0);
  console.log(`${one.length} SQL statements for one generate-image:`);
  one.forEach((s, i) => console.log(`  ${String(i + 1).padStart(2)}. ${s.slice(0, Number(process.env.WIDTH ?? 160))}`));

  // The Postgres backends of this server's database (the pool and the listener).
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  const dbName = new URL((ts.rt.config as { DATABASE_URL?: string }).DATABASE_URL ?? '').pathname.slice(1);
  const backends = async () =>
    (
      await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [dbName])
    ).rows.map((r) => r.pid);
  const before = new Map((await backends()).map((pid) => [pid, cpuOf(pid)]));
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) await generate(client);
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  let pgCpu = 0;
  for (const pid of await backends()) pgCpu += cpuOf(pid) - (before.get(pid) ?? 0);
  pg.Client.prototype.query = query;
  await admin.end();
  const perRequest = (x: number) => (x / REQUESTS).toFixed(2);
  console.log(`${REQUESTS} requests back to back by one user:`);
  console.log(`  statements sent per request (background included): ${perRequest(statements.length)}`);
  console.log(
    `  this process's CPU per request: ${perRequest((used.user + used.system) / 1000)} ms (user ${perRequest(used.user / 1000)}, system ${perRequest(used.system / 1000)})`,
  );
  console.log(`  Postgres backends' CPU per request: ${perRequest(pgCpu * 1000)} ms`);
  console.log(`  wall per request: ${perRequest(wall)} ms (meaningless on a loaded machine)`);
} finally {
  await ts.stop();
}
process.exit(0);
