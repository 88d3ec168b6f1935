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
import type { Logger } from 'pino';
import * as schema from './schema.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A database or an open transaction: what repositories accept. */
export type Executor = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute' | 'transaction'>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Subscribes to a NOTIFY channel; the returned function unsubscribes. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

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
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts.logger) : openPglite(opts.dataDir);
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
    const db = drizzlePglite(client, { schema }) as unknown as Db;
    await migratePglite(db as never, { migrationsFolder });
    return {
      db,
      kind: 'pglite',
      async listen(channel, onPayload) {
        const unsubscribe = await client.listen(channel, onPayload);
        return async () => unsubscribe();
      },
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

async function openPostgres(url: string, logger: Logger): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  pool.on('error', (err) => logger.error({ err }, 'postgres pool error'));
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  // Instances starting together must not race each other's migrations.
  const lockClient = await pool.connect();
  try {
    await lockClient.query('select pg_advisory_lock(7310001)');
    await migratePg(drizzlePg(lockClient, { schema }), { migrationsFolder });
  } finally {
    await lockClient.query('select pg_advisory_unlock(7310001)').catch(() => {});
    lockClient.release();
  }

  const listeners = new Map<string, Set<(payload: string) => void>>();
  let listenClient: pg.Client | undefined;
  let closed = false;

  async function connectListener(): Promise<void> {
    const client = new pg.Client({ connectionString: url });
    client.on('notification', (msg) => {
      for (const fn of listeners.get(msg.channel) ?? []) fn(msg.payload ?? '');
    });
    client.on('error', (err) => {
      logger.warn({ err }, 'postgres LISTEN connection lost; reconnecting');
      listenClient = undefined;
      if (!closed) setTimeout(() => void connectListener().catch((e) => logger.error({ err: e }, 'relisten failed')), 1000);
    });
    await client.connect();
    for (const channel of listeners.keys()) await client.query(`LISTEN "${channel}"`);
    listenClient = client;
  }

  return {
    db,
    kind: 'postgres',
    async listen(channel, onPayload) {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Bad channel name ${channel}`);
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        if (listenClient) await listenClient.query(`LISTEN "${channel}"`);
      }
      set.add(onPayload);
      if (!listenClient) await connectListener();
      return async () => {
        set.delete(onPayload);
      };
    },
    async close() {
      closed = true;
      await listenClient?.end().catch(() => {});
      await pool.end();
    },
  };
}
