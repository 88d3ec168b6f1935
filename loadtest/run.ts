/**
 * `npm run loadtest [-- --users N --seconds S]`: two instances of the real server (server/main.ts) on one
 * Postgres (a scratch database on the server TEST_DATABASE_URL names, or the local one) with S3 storage
 * (s3rver), N simulated users for S seconds spread across both — sign up, subscribe in the sandbox, keep an
 * event stream open, generate, list, favourite, extract prompts — and one instance SIGKILLed midway and
 * started again. Prints requests and latency per endpoint, errors by kind, throughput and the
 * reconciliation (loadtest/reconcile.ts); exits 1 on any mismatch. Loopback only, bounded in users and time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import S3rver from 's3rver';
import sharp from 'sharp';
import { percentile, printTable } from '../bench/stats.ts';
import { createS3Storage } from '../server/providers/storage/s3.ts';
import { keyFromMediaUrl } from '../server/providers/storage/index.ts';
import { generationRequestBody } from '../tests/helpers/generation.ts';
import { createScratchDatabase } from '../tests/helpers/server.ts';
import { readServerSentEvents } from '../tests/helpers/sse.ts';
import { reconcile, type Books, type PaidAnswer, type StreamRun } from './reconcile.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

function option(name: string, fallback: number, max: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`--${name} must be a whole number from 1 to ${max}`);
  return value;
}

const USERS = option('users', 10, 50);
const SECONDS = option('seconds', 40, 300);
/** The second instance is killed at this share of the run and started again at once. */
const KILL_AT = 0.4;
const BUCKET = 'likeness-load';
const REQUEST_TIMEOUT_MS = 60_000;

// ───────────────────────── Instances ─────────────────────────

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Instance {
  name: string;
  url: string;
  port: number;
  process?: ChildProcess;
  exited?: Promise<number | null>;
  /** Until then the load balancer sends nothing here (it refused a connection). */
  downUntil: number;
}

function startInstance(instance: Instance, env: Record<string, string>, logFile: string): void {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(instance.port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  instance.process = child;
  instance.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function waitReady(instance: Instance, timeoutMs = 180_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const ok = await fetch(`${instance.url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`${instance.name} did not become ready`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ───────────────────────── Requests and what they cost ─────────────────────────

interface Sample {
  endpoint: string;
  ms: number;
  error?: string;
}

const samples: Sample[] = [];
const answers: PaidAnswer[] = [];

/** A network failure as an error kind; `sent` tells whether the server may have received the request. */
function networkError(err: unknown): { kind: string; sent: boolean } {
  const cause = (err as { cause?: { code?: string; name?: string } }).cause;
  const code = cause?.code ?? (err as { name?: string }).name ?? 'unknown';
  if (code === 'ECONNREFUSED') return { kind: 'connection refused', sent: false };
  if (code === 'TimeoutError') return { kind: 'no answer within 60 s', sent: true };
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return { kind: 'connection lost', sent: true };
  return { kind: `network error ${code}`, sent: true };
}

class LoadBalancer {
  constructor(readonly instances: Instance[]) {}

  /** A random instance that has not refused a connection lately (any, if all have). */
  pick(exclude?: Instance): Instance {
    const now = Date.now();
    const up = this.instances.filter((i) => i.downUntil <= now && i !== exclude);
    const pool = up.length ? up : this.instances.filter((i) => i !== exclude);
    return pool[Math.floor(Math.random() * pool.length)];
  }
}

interface Answer {
  status: number;
  body: unknown;
}

/** A simulated user: a browser session (cookie) sending requests through the load balancer. */
class User {
  cookie = '';
  id = '';
  readonly email = `load-${randomBytes(5).toString('hex')}@example.com`;
  generations: string[] = [];
  captionImage = '';
  readonly runs: StreamRun[] = [];
  private stream?: AbortController;
  private streaming = false;

  constructor(
    readonly lb: LoadBalancer,
    readonly home: Instance,
  ) {}

  /**
   * One request, timed and recorded under `endpoint`. A refused connection never reached a server: like a load
   * balancer, it is sent to the other instance. A lost connection is retried only for reads.
   */
  async call(
    endpoint: string,
    path: string,
    init: { method?: string; json?: unknown; form?: FormData | URLSearchParams } = {},
  ): Promise<Answer> {
    const method = init.method ?? (init.json || init.form ? 'POST' : 'GET');
    let exclude: Instance | undefined;
    for (let attempt = 0; ; attempt++) {
      const instance = this.lb.pick(exclude);
      const headers: Record<string, string> = { origin: instance.url };
      if (this.cookie) headers.cookie = this.cookie;
      if (init.json !== undefined) headers['content-type'] = 'application/json';
      const started = performance.now();
      try {
        const res = await fetch(instance.url + path, {
          method,
          headers,
          body: init.json !== undefined ? JSON.stringify(init.json) : init.form,
          redirect: 'manual',
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const text = await res.text();
        const ms = performance.now() - started;
        for (const line of res.headers.getSetCookie()) this.keepCookie(line);
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // HTML pages and empty bodies stay text.
        }
        const code = (body as { code?: string } | null)?.code;
        samples.push({ endpoint, ms, error: res.status >= 400 ? `HTTP ${res.status}${code ? ` ${code}` : ''}` : undefined });
        return { status: res.status, body };
      } catch (err) {
        const { kind, sent } = networkError(err);
        instance.downUntil = Date.now() + 1000;
        const retry = attempt === 0 && (!sent || method === 'GET');
        samples.push({ endpoint, ms: performance.now() - started, error: retry ? `${kind} (sent to the other instance)` : kind });
        if (!retry) return { status: 0, body: null };
        exclude = instance;
      }
    }
  }

  private keepCookie(line: string) {
    const [pair] = line.split(';');
    const name = pair.slice(0, pair.indexOf('='));
    const jar = new Map(this.cookie ? this.cookie.split('; ').map((c) => [c.slice(0, c.indexOf('=')), c] as const) : []);
    if (/max-age=0/i.test(line)) jar.delete(name);
    else jar.set(name, pair);
    this.cookie = [...jar.values()].join('; ');
  }

  async signUpAndSubscribe(): Promise<void> {
    const signUp = await this.call('POST /api/auth/sign-up/email', '/api/auth/sign-up/email', {
      json: { email: this.email, password: 'load-test-password-1', name: 'Load Tester' },
    });
    if (signUp.status !== 200) throw new Error(`sign-up answered ${signUp.status}`);
    const me = await this.call('POST /api/me/sync', '/api/me/sync', { method: 'POST' });
    this.id = (me.body as { id: string }).id;
    const checkout = await this.call('POST /api/billing/checkout', '/api/billing/checkout', {
      json: { plan: 'BASIC', userId: this.id, email: this.email },
    });
    const path = new URL((checkout.body as { checkout_url: string }).checkout_url).pathname;
    const paid = await this.call('POST /sandbox/checkout/:id/pay', `${path}/pay`, { form: new URLSearchParams() });
    if (paid.status !== 303) throw new Error(`the sandbox payment answered ${paid.status}`);
    const image = await sharp({
      create: { width: 320, height: 320, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 50 } },
    })
      .jpeg()
      .toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(image)], { type: 'image/jpeg' }), 'photo.jpg');
    const uploaded = await this.call('POST /api/upload', '/api/upload', { form });
    this.captionImage = (uploaded.body as { url: string }).url;
  }

  /** Keeps the event stream open, reconnecting (through the load balancer) when its instance goes away. */
  openStream(): void {
    this.streaming = true;
    void (async () => {
      let instance = this.home;
      while (this.streaming) {
        const controller = new AbortController();
        this.stream = controller;
        const started = performance.now();
        let run: StreamRun | undefined;
        try {
          const res = await fetch(`${instance.url}/api/events`, { headers: { cookie: this.cookie }, signal: controller.signal });
          samples.push({
            endpoint: 'GET /api/events',
            ms: performance.now() - started,
            error: res.status === 200 ? undefined : `HTTP ${res.status}`,
          });
          await readServerSentEvents(res.body!, (event, data) => {
            if (event === 'ready' || event === 'resync') this.runs.push((run = { values: [], cut: true }));
            if (event === 'credits') run?.values.push(JSON.parse(data).credits);
          });
        } catch (err) {
          if (controller.signal.aborted) {
            // Closed by us at the end: this run saw everything up to now.
            if (run) run.cut = false;
            return;
          }
          const { kind } = networkError(err);
          if (!run) samples.push({ endpoint: 'GET /api/events', ms: performance.now() - started, error: kind });
        }
        instance.downUntil = Date.now() + 1000;
        await sleep(500);
        instance = this.lb.pick();
      }
    })();
  }

  closeStream(): void {
    this.streaming = false;
    this.stream?.abort();
  }

  async generate(): Promise<void> {
    const res = await this.call('POST /api/image/generate-image', '/api/image/generate-image', {
      json: generationRequestBody(),
    });
    const generationId = res.status === 200 ? (res.body as { generation: { id: string } }).generation.id : undefined;
    if (generationId) this.generations.push(generationId);
    answers.push({ userId: this.id, kind: 'generation', status: res.status, generationId });
  }

  async list(): Promise<void> {
    const res = await this.call('GET /api/library/generations', '/api/library/generations?page=1');
    if (res.status === 200) this.generations = (res.body as { items: { id: string }[] }).items.map((g) => g.id);
  }

  async favourite(): Promise<void> {
    const id = this.generations[Math.floor(Math.random() * this.generations.length)];
    if (!id) return this.list();
    await this.call('PATCH /api/library/generations/:id', `/api/library/generations/${id}`, {
      method: 'PATCH',
      json: { is_favorite: Math.random() < 0.5 },
    });
  }

  async caption(): Promise<void> {
    const detail = Math.random() < 0.5 ? 'fast' : 'detail';
    const res = await this.call(`POST /api/image/${detail}-caption`, `/api/image/${detail}-caption`, {
      json: { image_url: this.captionImage },
    });
    answers.push({ userId: this.id, kind: 'caption', status: res.status });
  }

  async me(): Promise<void> {
    await this.call('GET /api/me', '/api/me');
  }

  /** Random actions with a short think time between them until the deadline. */
  async work(until: number): Promise<void> {
    const actions: [number, () => Promise<void>][] = [
      [0.35, () => this.generate()],
      [0.25, () => this.list()],
      [0.15, () => this.favourite()],
      [0.15, () => this.caption()],
      [0.1, () => this.me()],
    ];
    while (Date.now() < until) {
      let roll = Math.random();
      const action = actions.find(([share]) => (roll -= share) < 0)?.[1] ?? actions[0][1];
      await action();
      await sleep(200 + Math.random() * 400);
    }
  }
}

// ───────────────────────── The books after the run ─────────────────────────

async function readBooks(databaseUrl: string, userIds: string[], exists: (key: string) => Promise<boolean>): Promise<Books> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const users = await client.query(
      'select u.id, u.credits, m.credits as public_credits from users u left join user_public_meta m on m.user_id = u.id where u.id = any($1)',
      [userIds],
    );
    const ledger = await client.query(
      'select user_id, delta, kind, idempotency_key, balance_after, created_at from credit_ledger where user_id = any($1)',
      [userIds],
    );
    const jobs = await client.query('select id, user_id, kind, status, generation_id from generation_jobs where user_id = any($1)', [
      userIds,
    ]);
    const generations = await client.query('select id, user_id, image_url from generations where user_id = any($1)', [userIds]);
    return {
      users: users.rows.map((r) => ({ id: r.id, credits: r.credits, publicCredits: r.public_credits })),
      ledger: ledger.rows.map((r) => ({
        userId: r.user_id,
        delta: r.delta,
        kind: r.kind,
        idempotencyKey: r.idempotency_key,
        balanceAfter: r.balance_after,
        createdAt: r.created_at,
      })),
      jobs: jobs.rows.map((r) => ({ id: r.id, userId: r.user_id, kind: r.kind, status: r.status, generationId: r.generation_id })),
      generations: await Promise.all(
        generations.rows.map(async (r) => ({ id: r.id, userId: r.user_id, stored: await exists(keyFromMediaUrl(r.image_url) ?? '') })),
      ),
    };
  } finally {
    await client.end();
  }
}

async function pendingJobs(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return Number((await client.query(`select count(*) as n from generation_jobs where status = 'PENDING'`)).rows[0].n);
  } finally {
    await client.end();
  }
}

// ───────────────────────── The run ─────────────────────────

async function main(): Promise<number> {
  process.env.TEST_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
  const work = mkdtempSync(join(tmpdir(), 'likeness-loadtest-'));
  const scratch = await createScratchDatabase();
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: join(work, 's3'),
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  const { port: s3Port } = await s3.run();
  const s3Config = {
    S3_BUCKET: BUCKET,
    S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
  };
  const env = {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    DATABASE_URL: scratch.url,
    AUTH_SECRET: randomBytes(32).toString('base64url'),
    DATA_DIR: join(work, 'data'),
    EXPLORE_SEED: 'false',
    LOG_LEVEL: 'warn',
    AUTH_RATE_LIMIT: '100000',
    SIGN_UP_RATE_LIMIT: '100000',
    ...s3Config,
  };
  const instances: Instance[] = [];
  for (const name of ['A', 'B']) {
    const port = await freePort();
    instances.push({ name, port, url: `http://127.0.0.1:${port}`, downUntil: 0 });
  }
  const logOf = (i: Instance) => join(work, `instance-${i.name}.log`);
  let failed = true;
  try {
    for (const i of instances) startInstance(i, env, logOf(i));
    await Promise.all(instances.map((i) => waitReady(i)));

    const lb = new LoadBalancer(instances);
    const users = Array.from({ length: USERS }, (_, n) => new User(lb, instances[n % 2]));
    const began = performance.now();
    // Sign-ups hash passwords (about a second of CPU each): a few at a time.
    for (let n = 0; n < users.length; n += 4) await Promise.all(users.slice(n, n + 4).map((u) => u.signUpAndSubscribe()));
    for (const u of users) u.openStream();

    const [, victim] = instances;
    const loadStart = Date.now();
    const until = loadStart + SECONDS * 1000;
    let killedAt = 0;
    let backAt = 0;
    const chaos = (async () => {
      await sleep(SECONDS * 1000 * KILL_AT);
      victim.process!.kill('SIGKILL');
      await victim.exited;
      killedAt = (Date.now() - loadStart) / 1000;
      startInstance(victim, env, logOf(victim));
      await waitReady(victim);
      backAt = (Date.now() - loadStart) / 1000;
    })();
    await Promise.all(users.map((u) => u.work(until)));
    await chaos;
    const drivenSeconds = (performance.now() - began) / 1000;

    // Every job ends (a dead instance's within its lease), then the streams get a moment for the last events.
    const quietBy = Date.now() + 60_000;
    while ((await pendingJobs(scratch.url)) > 0 && Date.now() < quietBy) await sleep(500);
    await sleep(2000);
    for (const u of users) u.closeStream();

    for (const i of instances) i.process!.kill('SIGTERM');
    const exitCodes = await Promise.all(instances.map((i) => Promise.race([i.exited!, sleep(60_000).then(() => 'still running')])));

    const storage = createS3Storage({
      bucket: BUCKET,
      region: 'us-east-1',
      endpoint: s3Config.S3_ENDPOINT,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    });
    const books = await readBooks(
      scratch.url,
      users.map((u) => u.id),
      (key) => storage.exists(key),
    );
    const checks = reconcile(books, { streams: new Map(users.map((u) => [u.id, u.runs])), answers });
    checks.push({
      name: 'both instances stopped with exit code 0 on SIGTERM',
      ok: exitCodes.every((c) => c === 0),
      detail: `exit codes ${exitCodes.join(', ')}`,
    });

    console.log(
      `Load test: ${USERS} users for ${SECONDS} s on 2 instances (one Postgres, S3 storage through s3rver); ` +
        `instance B SIGKILLed at ${killedAt.toFixed(1)} s and ready again at ${backAt.toFixed(1)} s\n`,
    );
    const endpoints = [...new Set(samples.map((s) => s.endpoint))].sort();
    printTable(
      endpoints.map((endpoint) => {
        const mine = samples.filter((s) => s.endpoint === endpoint);
        const ok = mine.filter((s) => !s.error).map((s) => s.ms);
        return {
          endpoint,
          requests: mine.length,
          errors: mine.length - ok.length,
          'p50 ms': ok.length ? percentile(ok, 50).toFixed(1) : '–',
          'p99 ms': ok.length ? percentile(ok, 99).toFixed(1) : '–',
        };
      }),
    );
    const kinds = new Map<string, number>();
    for (const s of samples) if (s.error) kinds.set(`${s.endpoint}: ${s.error}`, (kinds.get(`${s.endpoint}: ${s.error}`) ?? 0) + 1);
    console.log('\nErrors by kind');
    if (kinds.size === 0) console.log('  none');
    for (const [kind, n] of [...kinds].sort((a, b) => b[1] - a[1])) console.log(`  ${n}  ${kind}`);
    console.log(
      `\nThroughput: ${samples.length} requests in ${drivenSeconds.toFixed(1)} s = ${(samples.length / drivenSeconds).toFixed(1)} requests/s`,
    );
    console.log('\nReconciliation');
    for (const c of checks) console.log(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
    failed = checks.some((c) => !c.ok);
    console.log(failed ? `\nMISMATCH — instance logs kept in ${work}` : '\nAll reconciled.');
    return failed ? 1 : 0;
  } finally {
    for (const i of instances) if (i.process && i.process.exitCode === null) i.process.kill('SIGKILL');
    await s3.close();
    await scratch.drop().catch(() => undefined);
    if (!failed) rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
