import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import type { Logger } from 'pino';
import * as schema from './schema.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A database or an open transaction: what repositories accept. */
export type Executor = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute' | 'transaction'>;

export interface ListenerStatus {
  up: boolean;
  /** When the listener last connected or was lost. */
  since: Date;
  /** Why it is down (the last connection error). */
  error?: string;
}

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** This process's id: the owner of the job leases it takes, and of its session with the database. */
  instanceId: string;
  /** Subscribes to a NOTIFY channel; the returned function unsubscribes. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * Calls `fn` each time the LISTEN connection comes back after a drop: notifications sent while it was down
   * were lost, so subscribers read the current state again.
   */
  onListenerRestored(fn: () => void): void;
  listenerStatus(): ListenerStatus;
  /** Throws unless the database answers and has every migration this build ships applied. */
  checkSchema(): Promise<void>;
  close(): Promise<void>;
}

const commitHooks = new AsyncLocalStorage<(() => void)[]>();

/**
 * Runs `fn` once the transaction the caller is in has committed, or at once outside a transaction; never for
 * a transaction that rolls back. For side effects that must count only what really happened (metrics).
 */
export function afterCommit(fn: () => void): void {
  const hooks = commitHooks.getStore();
  if (hooks) hooks.push(fn);
  else fn();
}

/** Gives every `db.transaction` its own list of after-commit hooks. */
function withCommitHooks(db: Db): Db {
  const transaction = db.transaction.bind(db);
  db.transaction = (async (run, config) => {
    const hooks: (() => void)[] = [];
    const result = await commitHooks.run(hooks, () => transaction(run, config));
    for (const hook of hooks) hook();
    return result;
  }) as Db['transaction'];
  return db;
}

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

/** The newest migration this build ships, as drizzle's migrator records it (created_at = the journal's `when`). */
const latestMigration = readMigrationFiles({ migrationsFolder }).at(-1)!.folderMillis;

async function checkSchema(db: Db): Promise<void> {
  const result = await db.execute<{ latest: string | null }>(sql`select max(created_at)::text as latest from drizzle.__drizzle_migrations`);
  const latest = Number((result as unknown as { rows: { latest: string | null }[] }).rows[0]?.latest ?? 0);
  if (latest < latestMigration) throw new Error('the database lacks migrations this version needs');
}

export class DataDirInUseError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `The data folder ${dir} is already open in another Likeness process (pid ${pid}). ` +
        'Stop that process, or set DATA_DIR to another folder.',
    );
  }
}

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  logger: Logger;
  /** How long a new Postgres connection may take before it fails (tests shorten it). */
  connectTimeoutMs?: number;
}

/**
 * A server that stops answering (a network partition, a full connection table) must fail requests and
 * readiness checks in seconds, not leave them waiting for ever.
 */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * A pooled connection idle this long is closed. pg's default of 10 s closed, between two bursts, the
 * connections the first had opened; each new one costs Postgres a backend start and cold catalog and plan
 * caches, paid by the burst's requests (docs/decisions/014-generate-path.md, fifth pass).
 */
const POOL_IDLE_MS = 5 * 60_000;

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, opts.logger, opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS)
    : openPglite(opts.dataDir);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite is single-process: two processes writing one folder corrupt it. A lock file with the owner's pid
 * turns that into a clear error; a lock left by a dead process is taken over.
 */
function acquireDirLock(dir: string): () => void {
  const lockPath = join(dir, 'likeness.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
      if (Number.isFinite(owner) && owner !== process.pid && isAlive(owner)) throw new DataDirInUseError(dir, owner);
      rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not lock the data folder ${dir}`);
}

async function openPglite(dataDir: string): Promise<Database> {
  const dir = join(dataDir, 'db');
  mkdirSync(dir, { recursive: true });
  const release = acquireDirLock(dataDir);
  try {
    const client = await PGlite.create(dir);
    const db = withCommitHooks(drizzlePglite(client, { schema }) as unknown as Db);
    await migratePglite(db as never, { migrationsFolder });
    const instanceId = randomUUID();
    const since = new Date();
    return {
      db,
      kind: 'pglite',
      instanceId,
      async listen(channel, onPayload) {
        const unsubscribe = await client.listen(channel, onPayload);
        return async () => unsubscribe();
      },
      // In-process: notifications cannot be lost, and this process is the only instance.
      onListenerRestored() {},
      listenerStatus: () => ({ up: true, since }),
      checkSchema: () => checkSchema(db),
      async close() {
        await client.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Advisory-lock namespace of instance sessions (the other key is hashtext(instance id)); the database function
 * likeness_instance_alive (migration 0017) looks for the same lock.
 */
const INSTANCE_LOCK = 7310002;
/** Reconnect delays of the LISTEN connection: doubling from the first, never above the cap. */
const RELISTEN_FIRST_MS = 250;
const RELISTEN_MAX_MS = 5000;
/** A LISTEN connection that does not answer a ping within this is taken for dead and replaced. */
const PING_EVERY_MS = 10_000;
const PING_TIMEOUT_MS = 5000;

export class UnsecuredSupabaseError extends Error {
  constructor() {
    super(
      "This database is a Supabase project without Likeness's security migration (supabase/migrations/*_likeness_security.sql). " +
        'Run `supabase db push` (or apply supabase/migrations/*.sql in name order) before starting the server: tables it created ' +
        "first would keep Supabase's default grants, open to the anon key.",
    );
  }
}

/**
 * A new Supabase project grants `anon` everything created in `public`. The server must not create its tables
 * there before the security migration has revoked that (decision 006), so on a Supabase database (one with
 * Supabase's `auth.jwt()`) it starts only once that migration's policies exist.
 */
async function refuseUnsecuredSupabase(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ supabase: boolean; secured: boolean }>(`
    select to_regprocedure('auth.jwt()') is not null as supabase,
           exists (select 1 from pg_policies where schemaname = 'public' and tablename = 'users' and policyname = 'users_select_own') as secured`);
  if (rows[0]?.supabase && !rows[0].secured) throw new UnsecuredSupabaseError();
}

async function migrate(pool: pg.Pool): Promise<void> {
  // Instances starting together must not race each other's migrations.
  const lockClient = await pool.connect();
  try {
    await lockClient.query('select pg_advisory_lock(7310001)');
    await refuseUnsecuredSupabase(lockClient);
    await migratePg(drizzlePg(lockClient, { schema }), { migrationsFolder });
  } finally {
    await lockClient.query('select pg_advisory_unlock(7310001)').catch(() => {});
    lockClient.release();
  }
}

async function openPostgres(url: string, logger: Logger, connectTimeoutMs: number): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 20, idleTimeoutMillis: POOL_IDLE_MS, connectionTimeoutMillis: connectTimeoutMs });
  pool.on('error', (err) => logger.error({ err }, 'postgres pool error'));
  const db = withCommitHooks(drizzlePg(pool, { schema }) as unknown as Db);
  await migrate(pool).catch(async (err: unknown) => {
    await pool.end();
    throw err;
  });

  const instanceId = randomUUID();
  const listener = createListener({ url, instanceId, logger, connectTimeoutMs });
  await listener.start();

  return {
    db,
    kind: 'postgres',
    instanceId,
    listen: listener.listen,
    onListenerRestored: listener.onRestored,
    listenerStatus: listener.status,
    checkSchema: () => checkSchema(db),
    async close() {
      await listener.close();
      await pool.end();
    },
  };
}

/**
 * The instance's one LISTEN connection. Exactly one client is live or being connected at any time: a drop
 * (error, end, or an unanswered ping) schedules a single reconnect, retried with capped back-off until it
 * succeeds. The same session holds the instance's advisory lock, so other instances can tell that it runs.
 */
function createListener(opts: { url: string; instanceId: string; logger: Logger; connectTimeoutMs: number }) {
  const { logger } = opts;
  const channels = new Map<string, Set<(payload: string) => void>>();
  const restoredHandlers: (() => void)[] = [];
  let live: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let pingTimer: NodeJS.Timeout | undefined;
  let failures = 0;
  let everUp = false;
  let closed = false;
  let state: ListenerStatus = { up: false, since: new Date(), error: 'not connected yet' };

  function deliver(msg: pg.Notification) {
    for (const fn of channels.get(msg.channel) ?? []) fn(msg.payload ?? '');
  }

  async function connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: opts.url,
      keepAlive: true,
      application_name: `likeness:${opts.instanceId}`,
      connectionTimeoutMillis: opts.connectTimeoutMs,
    });
    // Errors after connecting arrive as events; while connecting they reject connect() below.
    client.on('error', (err) => lost(client, err));
    client.on('end', () => lost(client, new Error('the connection ended')));
    client.on('notification', (msg) => {
      if (client === live) deliver(msg);
    });
    try {
      await client.connect();
      await takeInstanceLock(client);
      for (const channel of channels.keys()) await client.query(`LISTEN "${channel}"`);
    } catch (err) {
      void client.end().catch(() => {});
      throw err;
    }
    if (closed) {
      await client.end().catch(() => {});
      return;
    }
    live = client;
    failures = 0;
    state = { up: true, since: new Date() };
    if (everUp) {
      logger.info('postgres LISTEN connection restored');
      for (const fn of restoredHandlers) fn();
    }
    everUp = true;
  }

  /** A dropped session's lock goes when its backend exits, which may take a moment after the drop. */
  async function takeInstanceLock(client: pg.Client) {
    for (let i = 0; i < 20; i++) {
      const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1, hashtext($2)) as ok', [
        INSTANCE_LOCK,
        opts.instanceId,
      ]);
      if (rows[0].ok) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the instance lock is held by another session');
  }

  function lost(client: pg.Client, err: Error) {
    if (client !== live) return;
    live = undefined;
    state = { up: false, since: new Date(), error: err.message };
    logger.warn({ err }, 'postgres LISTEN connection lost; reconnecting');
    void client.end().catch(() => {});
    scheduleReconnect();
  }

  function attempt() {
    retryTimer = undefined;
    connecting = connect()
      .catch((err: Error) => {
        state = { up: false, since: state.up ? new Date() : state.since, error: err.message };
        logger.warn({ err, attempt: failures }, 'postgres LISTEN connection failed; retrying');
      })
      .finally(() => {
        connecting = undefined;
        if (!live) scheduleReconnect();
      });
  }

  function scheduleReconnect() {
    if (closed || live || connecting || retryTimer) return;
    const delay = Math.min(RELISTEN_MAX_MS, RELISTEN_FIRST_MS * 2 ** failures++);
    retryTimer = setTimeout(attempt, delay * (0.8 + Math.random() * 0.4));
    retryTimer.unref();
  }

  /** A half-open TCP connection raises no error; an unanswered query shows it. */
  async function ping() {
    const client = live;
    if (!client) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer to a ping within ${PING_TIMEOUT_MS / 1000} s`)), PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([client.query('select 1'), timeout]);
    } catch (err) {
      lost(client, err as Error);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    /** The first connection; a failure here is retried in the background like any drop. */
    async start() {
      attempt();
      await connecting;
      pingTimer = setInterval(() => void ping(), PING_EVERY_MS);
      pingTimer.unref();
    },

    async listen(channel: string, onPayload: (payload: string) => void) {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Bad channel name ${channel}`);
      let set = channels.get(channel);
      if (!set) {
        set = new Set();
        channels.set(channel, set);
        // A connection made from now on listens by itself; a live one is told now (twice does no harm).
        await connecting;
        await live?.query(`LISTEN "${channel}"`);
      }
      set.add(onPayload);
      return async () => {
        set.delete(onPayload);
      };
    },

    onRestored(fn: () => void) {
      restoredHandlers.push(fn);
    },

    status: (): ListenerStatus => state,

    async close() {
      closed = true;
      clearTimeout(retryTimer);
      clearInterval(pingTimer);
      await connecting;
      const client = live;
      live = undefined;
      await client?.end().catch(() => {});
    },
  };
}
