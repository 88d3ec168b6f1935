// `npm test`: every Vitest suite, then the Playwright suites in Chromium; ends with one summary line.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, node, run } from './lib.mjs';

const out = mkdtempSync(join(tmpdir(), 'likeness-results-'));
const args = process.argv.slice(2);
const only = args[0] === 'unit' || args[0] === 'e2e' ? args.shift() : null;

let passed = 0;
let failed = 0;
let exit = 0;

if (!only) {
  const typecheck = await run(node, [bin('tsc'), '--noEmit', '-p', 'tsconfig.json']);
  if (typecheck !== 0) {
    console.error('Typecheck failed.');
    exit = typecheck;
    failed += 1;
  }
}

if (only !== 'e2e') {
  const file = join(out, 'vitest.json');
  const code = await run(node, [bin('vitest'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${file}`, ...(only ? args : [])]);
  try {
    const r = JSON.parse(readFileSync(file, 'utf8'));
    passed += r.numPassedTests;
    failed += r.numFailedTests;
  } catch {
    failed += 1;
  }
  if (code !== 0) exit = code;
}

if (only !== 'unit') {
  const chromium = await run(node, ['scripts/ensure-chromium.mjs']);
  if (chromium !== 0) process.exit(chromium);
  const file = join(out, 'playwright.json');
  const code = await run(node, [bin('playwright'), 'test', ...(only ? args : [])], {
    env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: file },
  });
  try {
    const r = JSON.parse(readFileSync(file, 'utf8'));
    passed += r.stats.expected + (r.stats.flaky ?? 0);
    failed += r.stats.unexpected;
  } catch {
    failed += 1;
  }
  if (code !== 0) exit = code;
}

console.log(`\n${passed} passed, ${failed} failed`);
process.exit(exit || (failed ? 1 : 0));
