import { fork } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { GenerateInput } from '../server/providers/inference/index.ts';
import type { TestClient, TestDatabaseKind } from '../tests/helpers/server.ts';

/** Percentile of a list of numbers (nearest-rank). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const ms = (n: number) => `${n.toFixed(1)} ms`;

/**
 * The machine's 1-minute load average and core count as measured now, printed beside each figure: on a shared
 * or busy machine a figure means little without it (a load above the core count means work was waiting).
 */
export function loadNow(): string {
  return `load ${loadavg()[0].toFixed(1)}/${availableParallelism()} cores`;
}

/** Prints rows as an aligned table. */
export function printTable(rows: Array<Record<string, string | number>>): void {
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]);
  const width = (c: string) => Math.max(c.length, ...rows.map((r) => String(r[c]).length));
  const line = (cells: string[]) => cells.map((v, i) => v.padEnd(width(cols[i]))).join('  ');
  console.log(line(cols));
  console.log(line(cols.map((c) => '-'.repeat(width(c)))));
  for (const r of rows) console.log(line(cols.map((c) => String(r[c]))));
}

const DEFAULT_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';

/** Set in the child process that measures one database for onBothDatabases. */
const CHILD_DATABASE = process.env.BENCH_CHILD_DATABASE as TestDatabaseKind | undefined;

/**
 * Rows of `measure` on PGlite, then on the Postgres server BENCH_DATABASE_URL or TEST_DATABASE_URL names (a
 * local default otherwise). A Postgres that cannot be reached is reported under `bench`'s name, not fatal.
 *
 * Each database is measured in a fresh process running the same bench (rows come back as JSON, so they hold
 * data, not functions): after a PGlite server has run, its ~220 MB of WebAssembly memory stays with the process,
 * and the generate bench's Postgres figures taken in the same process were slower (1 user p50 3.0–3.6 ms against
 * 2.2–2.4 ms in a fresh one; docs/decisions/014-generate-path.md).
 */
export async function onBothDatabases<T>(bench: string, measure: (database: TestDatabaseKind) => Promise<T[]>): Promise<T[]> {
  if (CHILD_DATABASE) {
    const rows = await measure(CHILD_DATABASE);
    process.send!(rows, () => process.exit(0));
    return new Promise<never>(() => {});
  }
  const rows = await measureInChild<T>(bench, 'pglite', {});
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? DEFAULT_POSTGRES;
  try {
    // startTestServer makes a scratch database on the server TEST_DATABASE_URL names, and drops it after.
    rows.push(...(await measureInChild<T>(bench, 'postgres', { TEST_DATABASE_URL: postgresUrl })));
  } catch (err) {
    console.log(`${bench}: Postgres at ${postgresUrl} not measured: ${(err as Error).message}`);
  }
  return rows;
}

/** Runs `bench` again in a child process that measures `database` only and sends its rows back. */
function measureInChild<T>(bench: string, database: TestDatabaseKind, env: Record<string, string>): Promise<T[]> {
  const child = fork(fileURLToPath(new URL('./run.ts', import.meta.url)), [bench], {
    env: { ...process.env, ...env, BENCH_CHILD_DATABASE: database },
    // The bench's own lines before its measurement are printed once, by this process.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let rows: T[] | undefined;
    child.once('message', (message) => (rows = message as T[]));
    child.once('error', reject);
    child.once('exit', (code) => (rows ? resolve(rows) : reject(new Error(`measuring ${database} failed (exit code ${code})`))));
  });
}

/** A built-in engine request of the product's default settings (1024×1024 JPEG, 28 steps, guidance 3.5). */
export const renderRequest = (prompt: string, seed: number): GenerateInput => ({
  prompt,
  imageSize: { width: 1024, height: 1024 },
  loras: [],
  seed,
  numInferenceSteps: 28,
  guidanceScale: 3.5,
  outputFormat: 'jpeg',
});

/** Latencies in ms of GETs of `paths` in turn, one at a time, after `warmup` untimed ones; every answer must be 200. */
export async function timeGets(client: TestClient, paths: string[], { requests, warmup }: { requests: number; warmup: number }) {
  const times: number[] = [];
  for (let i = 0; i < warmup + requests; i++) {
    const path = paths[i % paths.length];
    const t = performance.now();
    const res = await client.get(path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    if (i >= warmup) times.push(performance.now() - t);
  }
  return times;
}

/** A row of a latency table: p50 and p99 with the machine's load, the p99 held to `targetP99Ms` on Postgres. */
export function latencyRow(database: TestDatabaseKind, name: string, times: number[], targetP99Ms: number) {
  const p99 = percentile(times, 99);
  return {
    database,
    case: name,
    requests: times.length,
    'p50 ms': percentile(times, 50).toFixed(1),
    'p99 ms': p99.toFixed(1),
    machine: loadNow(),
    target: database === 'postgres' ? `${p99 <= targetP99Ms ? 'ok' : 'OVER'} (≤ ${targetP99Ms})` : '',
  };
}

/** Reads a download to its end: its size and how far the process's RSS rose above where it was (peak), in MB. */
export async function streamedDownload(client: TestClient, path: string) {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const res = await client.get(path);
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  let bytes = 0;
  const reader = res.body!.getReader();
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    bytes += part.value.length;
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  clearInterval(sampler);
  return { zip: `${(bytes / 1024 / 1024).toFixed(1)} MB`, 'rss growth': `${((peak - before) / 1024 / 1024).toFixed(1)} MB` };
}
