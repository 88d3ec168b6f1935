// How `npm test` counts: each test exactly once, by its final outcome, whatever the retries.
// Plain Node (no dependencies) like the other scripts; tests/scripts/test-counts.test.ts checks it against
// real Vitest and Playwright runs.

/**
 * Counts of a Vitest JSON report (`--reporter=json`). Vitest reports one entry per test with its final
 * state (a test that passed on a retry is passed once). A file that failed with no failing test in it
 * (it could not be loaded, or a hook failed) counts as one failure, so a broken file is never "0 failed".
 * @param {any} report
 * @returns {{ passed: number, failed: number, skipped: number }}
 */
export function countVitest(report) {
  const brokenFiles = (report.testResults ?? []).filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
  ).length;
  return {
    passed: report.numPassedTests ?? 0,
    failed: (report.numFailedTests ?? 0) + brokenFiles,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}

/**
 * Counts of a Playwright JSON report. Each test of each project appears once with its outcome over all
 * its attempts: 'expected', 'flaky' (failed, then passed on a retry), 'unexpected' or 'skipped'. A test
 * skipped on purpose (test.skip) expects to be skipped; one that was skipped without asking (the run was
 * interrupted, or stopped at max failures) did not run, and counts as failed. Errors outside any test (a
 * spec file that cannot load, a web server that does not start) count one failure each.
 * @param {any} report
 * @returns {{ passed: number, failed: number, skipped: number }}
 */
export function countPlaywright(report) {
  const counts = { passed: 0, failed: (report.errors ?? []).length, skipped: 0 };
  const visit = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status === 'expected' || test.status === 'flaky') counts.passed += 1;
        else if (test.status === 'skipped' && test.expectedStatus === 'skipped') counts.skipped += 1;
        else counts.failed += 1;
      }
    }
    for (const child of suite.suites ?? []) visit(child);
  };
  for (const suite of report.suites ?? []) visit(suite);
  return counts;
}

/** The closing line: `N passed, N failed`, and `, N skipped` when some were. */
export function summaryLine({ passed, failed, skipped }) {
  return `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
}
