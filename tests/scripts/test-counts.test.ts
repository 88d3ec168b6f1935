import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countPlaywright, countVitest, summaryLine } from '../../scripts/test-counts.mjs';

/**
 * `npm test`'s closing line counts each test once. Proven on real reports: Vitest and Playwright run small
 * sample suites (tests/scripts/fixtures/) with one retry, holding a test of each outcome: passes, passes on
 * its retry, fails every time, skipped, and (Vitest) a file that cannot load.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

/** This run's own variables removed, so the runner under test starts as `npm test` would start it. */
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));

function run(args: string[], extraEnv: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    // The sample suites fail on purpose: their output is not this suite's.
    const child = spawn(process.execPath, args, { cwd: root, env: { ...env, ...extraEnv }, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

describe("the closing line's counts", () => {
  let dir: string;
  let vitest: { code: number; report: any };
  let playwright: { code: number; report: any };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'likeness-counts-'));
    const vitestFile = join(dir, 'vitest.json');
    const vitestCode = await run([
      bin('vitest'),
      'run',
      '--config',
      join(fixtures, 'vitest.fixture.config.ts'),
      '--reporter=json',
      `--outputFile.json=${vitestFile}`,
    ]);
    vitest = { code: vitestCode, report: JSON.parse(await readFile(vitestFile, 'utf8')) };
    const playwrightFile = join(dir, 'playwright.json');
    const playwrightCode = await run([bin('playwright'), 'test', '--config', join(fixtures, 'playwright.fixture.config.ts')], {
      PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightFile,
      PW_OUTPUT_DIR: join(dir, 'playwright-output'),
    });
    playwright = { code: playwrightCode, report: JSON.parse(await readFile(playwrightFile, 'utf8')) };
  }, 120_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('counts a Vitest run once per test: a retried pass is one pass, a file that cannot load one failure', () => {
    expect(vitest.code).not.toBe(0);
    // The report itself: five tests in the loading file, the broken file with none.
    expect(vitest.report).toMatchObject({ numTotalTests: 5, numPassedTests: 2, numFailedTests: 1, numPendingTests: 1, numTodoTests: 1 });
    expect(countVitest(vitest.report)).toEqual({ passed: 2, failed: 2, skipped: 2 });
  });

  it('counts a Playwright run once per test and project, however many attempts it took', () => {
    expect(playwright.code).not.toBe(0);
    const attempts: number[] = [];
    const visit = (suite: any) => {
      for (const spec of suite.specs ?? []) for (const test of spec.tests) attempts.push(test.results.length);
      for (const child of suite.suites ?? []) visit(child);
    };
    playwright.report.suites.forEach(visit);
    // Ten tests (five in each of two projects), fourteen attempts: the retried ones ran twice.
    expect(attempts).toHaveLength(10);
    expect(attempts.reduce((a, b) => a + b, 0)).toBe(14);
    expect(playwright.report.stats).toMatchObject({ expected: 2, flaky: 2, unexpected: 2, skipped: 4 });
    expect(countPlaywright(playwright.report)).toEqual({ passed: 4, failed: 2, skipped: 4 });
  });

  it('counts a Playwright test that never ran, and an error outside any test, as failures', () => {
    const test = (status: string, expectedStatus: string) => ({ status, expectedStatus, results: [] });
    const report = {
      errors: [{ message: 'Error: Cannot find module ./missing' }],
      suites: [{ specs: [{ tests: [test('expected', 'passed'), test('skipped', 'passed'), test('skipped', 'skipped')] }], suites: [] }],
    };
    expect(countPlaywright(report)).toEqual({ passed: 1, failed: 2, skipped: 1 });
  });

  it('prints one line, naming skipped tests only when there are some', () => {
    const total = [countVitest(vitest.report), countPlaywright(playwright.report)].reduce((a, b) => ({
      passed: a.passed + b.passed,
      failed: a.failed + b.failed,
      skipped: a.skipped + b.skipped,
    }));
    expect(summaryLine(total)).toBe('6 passed, 4 failed, 6 skipped');
    expect(summaryLine({ passed: 438, failed: 0, skipped: 0 })).toBe('438 passed, 0 failed');
  });
});
