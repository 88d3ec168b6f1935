import { availableParallelism, loadavg } from 'node:os';
import type { GenerateInput } from '../server/providers/inference/index.ts';
import type { TestDatabaseKind } from '../tests/helpers/server.ts';

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

/**
 * Rows of `measure` on PGlite, then on the Postgres server BENCH_DATABASE_URL or TEST_DATABASE_URL names (a
 * local default otherwise). A Postgres that cannot be reached is reported under `bench`'s name, not fatal.
 */
export async function onBothDatabases<T>(bench: string, measure: (database: TestDatabaseKind) => Promise<T[]>): Promise<T[]> {
  const rows = await measure('pglite');
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? DEFAULT_POSTGRES;
  // startTestServer makes a scratch database on the server TEST_DATABASE_URL names, and drops it after.
  const previous = process.env.TEST_DATABASE_URL;
  process.env.TEST_DATABASE_URL = postgresUrl;
  try {
    rows.push(...(await measure('postgres')));
  } catch (err) {
    console.log(`${bench}: Postgres at ${postgresUrl} not measured: ${(err as Error).message}`);
  } finally {
    if (previous === undefined) delete process.env.TEST_DATABASE_URL;
    else process.env.TEST_DATABASE_URL = previous;
  }
  return rows;
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
