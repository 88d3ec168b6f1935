import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { buildApp, type BuildAppOptions } from '../../server/app.ts';
import { startRuntime, type Runtime, type RuntimeOptions } from '../../server/runtime.ts';
import type { ReadinessReport } from '../../server/ops/readiness.ts';
import { SERVER_TIMEOUTS, serveWithTimeouts, type ServerTimeouts } from '../../server/http/timeouts.ts';
import { createVisionAnalyser, type VisionAnalyser } from '../../server/vision/analyser.ts';
import { testDatabaseUrl } from './test-database.ts';
import { waitFor } from './wait.ts';
import type { LocalOutbox } from '../../server/providers/mail/local-outbox.ts';

export { testDatabaseUrl };

export type TestDatabaseKind = 'pglite' | 'postgres';

/** AUTH_SECRET of every test server and server process on Postgres (session cookies must outlive a restart). */
export const TEST_AUTH_SECRET = 'test-secret-test-secret-test-secret-123';

/** Every suite that runs on a database runs on both: PGlite and a real PostgreSQL (testDatabaseUrl). */
export function testDatabases(): TestDatabaseKind[] {
  return ['pglite', 'postgres'];
}

/** A throw-away database on the test Postgres server, dropped when the test server stops. */
export async function createScratchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = testDatabaseUrl();
  const name = `likeness_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface TestServer {
  rt: Runtime;
  url: string;
  port: number;
  dataDir: string;
  /** A cookie-keeping client that speaks to this server like a browser on its origin. */
  client(): TestClient;
  /**
   * Signs up a new user and confirms the address with the link the server mailed (sign-up itself signs nobody
   * in), and returns a client holding the session that link made, plus their users row id.
   */
  signUp(opts?: { email?: string; name?: string; credits?: number }): Promise<{ client: TestClient; userId: string; email: string }>;
  /** The link to `path` (e.g. '/api/auth/verify-email') in the newest mail to `email`, as a path on this server. */
  mailedLink(email: string, path: string): Promise<string>;
  stop(): Promise<void>;
}

export interface StartTestServerOptions {
  database?: TestDatabaseKind;
  env?: Record<string, string>;
  runtime?: Partial<RuntimeOptions>;
  app?: BuildAppOptions;
  /** The server's client timeouts (main.ts uses SERVER_TIMEOUTS). */
  timeouts?: Partial<ServerTimeouts>;
  /** Reuse a data folder (restart tests). */
  dataDir?: string;
  databaseUrl?: string;
  /**
   * The texts of the mail an SMTP server received for an address, oldest first, when the server sends over SMTP
   * (SMTP_URL); otherwise mail is read from the local outboxes (DATA_DIR/outbox) of the running test servers.
   */
  mailbox?: (email: string) => string[] | Promise<string[]>;
}

let testVision: VisionAnalyser | undefined;

/** The local outboxes of this process's running test servers: a sign-up's mail is in whichever instance sent it. */
const runningOutboxes = new Set<LocalOutbox>();

/**
 * One image analyser for every test server of a Vitest worker (the server suites share a worker's module
 * graph, vite.config.ts): its models (~1 s to load, more on a busy machine) load once instead of once per
 * server. Its worker thread is unref'd, so it ends with the process.
 */
export function sharedTestVision(): VisionAnalyser {
  testVision ??= createVisionAnalyser({ timeoutMs: 60_000 });
  return { ...testVision, close: async () => {} };
}

/**
 * A new server on PGlite starts from a copy of the migrated folder that tests/global-setup.ts made once per run
 * with the server's own start (PGlite's initdb alone takes a second or more per server). The server then opens
 * it as it opens its folder at every restart, and finds every migration applied. A data folder that already has
 * a database (a restart) is left as it is; outside Vitest (bench/, loadtest/) each server makes its own.
 */
function freshPglite(dataDir: string): void {
  const db = join(dataDir, 'db');
  const template = process.env.VITEST ? inject('pgliteTemplate') : undefined;
  if (template && !existsSync(db)) cpSync(template, db, { recursive: true });
}

export async function startTestServer(opts: StartTestServerOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'likeness-test-'));
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
  let databaseUrl = opts.databaseUrl;
  if (!databaseUrl && opts.database === 'postgres') {
    scratch = await createScratchDatabase();
    databaseUrl = scratch.url;
  }
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    AUTH_RATE_LIMIT: '1000',
    SIGN_UP_RATE_LIMIT: '1000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, AUTH_SECRET: TEST_AUTH_SECRET } : {}),
    ...opts.env,
  });
  if (!config.DATABASE_URL) freshPglite(config.dataDir);
  const rt = await startRuntime(config, { sseHeartbeatMs: 1000, vision: sharedTestVision(), ...opts.runtime });
  const app = buildApp(rt, opts.app);
  const timeouts = { ...SERVER_TIMEOUTS, ...opts.timeouts };
  const server: Server = await new Promise((resolve) => {
    const s = serveWithTimeouts({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', timeouts }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  if (rt.mail.outbox) runningOutboxes.add(rt.mail.outbox);
  const url = `http://127.0.0.1:${port}`;

  const ts: TestServer = {
    rt,
    url,
    port,
    dataDir,
    client: () => new TestClient(url),
    async mailedLink(email, path) {
      // Oldest first, as an SMTP server receives them. Any instance on the same database may have sent it.
      const texts = async () =>
        opts.mailbox
          ? opts.mailbox(email)
          : (await Promise.all([...runningOutboxes].map((outbox) => outbox.list())))
              .flat()
              .filter((m) => m.to === email)
              .sort((x, y) => x.sentAt.localeCompare(y.sentAt))
              .map((m) => m.text);
      const link = await waitFor(`a mail to ${email} with a link to ${path}`, async () =>
        (await texts())
          .flatMap((text) => text.match(/https?:\/\/[^\s\]]+/g) ?? [])
          .reverse()
          .find((l) => new URL(l).pathname.startsWith(path)),
      );
      const { pathname, search } = new URL(link);
      return pathname + search;
    },
    async signUp(o = {}) {
      const email = o.email ?? `user-${randomUUID().slice(0, 8)}@example.com`;
      const client = new TestClient(url);
      const res = await client.post('/api/auth/sign-up/email', { email, password: 'correct-horse-1', name: o.name ?? 'Test User' });
      if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
      const confirmed = await client.get(await ts.mailedLink(email, '/api/auth/verify-email'));
      if (confirmed.status !== 302 || !client.cookieHeader()) throw new Error(`confirming the address failed: ${confirmed.status}`);
      const me = await (await client.post('/api/me/sync')).json();
      if (o.credits) await rt.credits.grant(me.id, o.credits, 'test grant', `test:${randomUUID()}`);
      return { client, userId: me.id as string, email };
    },
    async stop() {
      if (rt.mail.outbox) runningOutboxes.delete(rt.mail.outbox);
      server.close();
      server.closeAllConnections();
      await rt.close();
      await scratch?.drop();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return ts;
}

/** GET /readyz of a server: its status and its report. */
export async function readyz(server: { url: string }): Promise<{ status: number; body: ReadinessReport }> {
  const res = await fetch(`${server.url}/readyz`);
  return { status: res.status, body: await res.json() };
}

/** fetch with a cookie jar and the server's own Origin, as a browser tab on the site would send. */
export class TestClient {
  private cookies = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (!headers.has('origin')) headers.set('origin', this.baseUrl);
    if (this.cookies.size) headers.set('cookie', this.cookieHeader());
    const res = await fetch(this.baseUrl + path, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      if (/max-age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  get(path: string) {
    return this.fetch(path);
  }

  post(path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.fetch(path, {
      method: 'POST',
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}
