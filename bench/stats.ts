/** Percentile of a list of numbers (nearest-rank). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const ms = (n: number) => `${n.toFixed(1)} ms`;

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
