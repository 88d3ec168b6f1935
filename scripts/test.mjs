// `npm test`: the typecheck, every Vitest suite, then the Playwright suites in Chromium (the local build's,
// then the hosted deployment's); ends with one
// summary line that counts each test once (see test-counts.mjs), the typecheck and the format check as one each.
// The suites that need a real PostgreSQL get one (test-database.mjs): TEST_DATABASE_URL's, or else one started
// for the run and stopped after it, also when the run fails or is interrupted. None is ever skipped for want
// of one: without any, the run fails saying why.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, node, run, running } from './lib.mjs';
import { countPlaywright, countVitest, summaryLine } from './test-counts.mjs';
import { NoTestDatabase, provideTestDatabase } from './test-database.mjs';

const args = process.argv.slice(2);
const only = args[0] === 'unit' || args[0] === 'e2e' ? args.shift() : null;

let database = null;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, async () => {
    console.error(`\nnpm test: ${signal}, stopping.`);
    for (const child of running) child.kill(signal);
    await database?.stop();
    process.exit(128 + { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[signal]);
  });
}

// The Vitest suites and the hosted Playwright suite need it (the local e2e specs run their server on PGlite).
{
  try {
    database = await provideTestDatabase({ log: (line) => console.log(line) });
  } catch (err) {
    if (!(err instanceof NoTestDatabase)) throw err;
    console.error(`\nnpm test: ${err.message}`);
    console.log(`\n${summaryLine({ passed: 0, failed: 1, skipped: 0 })}`);
    process.exit(1);
  }
  process.env.TEST_DATABASE_URL = database.url;
  if (database.embedded) console.log(`PostgreSQL for the tests: ${database.url}`);
}

const out = mkdtempSync(join(tmpdir(), 'likeness-results-'));

const total = { passed: 0, failed: 0, skipped: 0 };
let exit = 0;

/** Adds a runner's counts; a run that failed with nothing counted as failed still counts one failure. */
function record(code, counts) {
  total.passed += counts.passed;
  total.skipped += counts.skipped;
  total.failed += counts.failed || (code !== 0 ? 1 : 0);
  if (code !== 0) exit = code;
}

function report(file, count) {
  try {
    return count(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return { passed: 0, failed: 0, skipped: 0 };
  }
}

if (!only) {
  const typecheck = await run(node, [bin('tsc'), '--noEmit', '-p', 'tsconfig.json']);
  if (typecheck !== 0) console.error('Typecheck failed.');
  record(typecheck, { passed: typecheck === 0 ? 1 : 0, failed: typecheck === 0 ? 0 : 1, skipped: 0 });
  // Formatting is Prettier's decision (.prettierrc.json), not a reviewer's: `npm run format` applies it.
  const format = await run(node, [bin('prettier'), '--check', '--log-level', 'warn', '.']);
  if (format !== 0) console.error('Some files are not formatted as Prettier would: run `npm run format`.');
  record(format, { passed: format === 0 ? 1 : 0, failed: format === 0 ? 0 : 1, skipped: 0 });
}

if (only !== 'e2e') {
  // The photo check's tests read photos of animals from a Debian package (bench/photo-eval/animals.ts).
  const animals = await run(node, ['scripts/ensure-animal-photos.mjs']);
  if (animals !== 0) process.exit(animals);
  const file = join(out, 'vitest.json');
  const code = await run(node, [
    bin('vitest'),
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${file}`,
    ...(only ? args : []),
  ]);
  record(code, report(file, countVitest));
}

if (only !== 'unit') {
  const chromium = await run(node, ['scripts/ensure-chromium.mjs']);
  if (chromium !== 0) process.exit(chromium);
  // File arguments pick the suites: e2e/hosted/… the hosted one, any other the local build's (give flags as
  // --name=value, so that their values are not read as files).
  const files = only ? args.filter((a) => !a.startsWith('-')) : [];
  const wantsLocal = files.length === 0 || files.some((a) => !a.includes('hosted'));
  const wantsHosted = files.length === 0 || files.some((a) => a.includes('hosted'));
  if (wantsLocal) {
    const file = join(out, 'playwright.json');
    const code = await run(
      node,
      [bin('playwright'), 'test', ...(only ? args.filter((a) => a.startsWith('-') || !a.includes('hosted')) : [])],
      {
        env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: file },
      },
    );
    record(code, report(file, countPlaywright));
  }

  // The hosted deployment in Chromium (playwright.hosted.config.ts): its Supabase is a scratch database on
  // TEST_DATABASE_URL's server.
  if (wantsHosted) {
    const hostedFile = join(out, 'playwright-hosted.json');
    const hostedArgs = only ? args.filter((a) => a.startsWith('-') || a.includes('hosted')) : [];
    const hosted = await run(node, [bin('playwright'), 'test', '--config', 'playwright.hosted.config.ts', ...hostedArgs], {
      env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: hostedFile },
    });
    record(hosted, report(hostedFile, countPlaywright));
  }
}

await database?.stop();
console.log(`\n${summaryLine(total)}`);
process.exit(exit || (total.failed ? 1 : 0));
