// Types of test-counts.mjs, for the test that checks it.
export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}
export function countVitest(report: unknown): Counts;
export function countPlaywright(report: unknown): Counts;
export function summaryLine(counts: Counts): string;
