import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditLedger, generationJobs, generations, loraTrainings } from '../../server/db/schema.ts';
import { keyFromMediaUrl } from '../../server/providers/storage/index.ts';
import { createScratchDatabase, startTestServer, TEST_AUTH_SECRET, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import { spawnServerProcess, type ServerProcess } from '../helpers/server-process-control.ts';
import { trainingArchive, trainingPayload, uploadArchive } from '../helpers/training.ts';

const request = generationRequestBody();

/**
 * Two instances on one Postgres and one storage folder, as behind a load balancer: `other` runs in the test,
 * and each test starts its own server process to stop with a signal.
 */
// Each test starts a server process (and some a second server), which takes long on a busy machine.
describe('instances stopping and dying (postgres)', { timeout: 120_000 }, () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let dataDir: string;
  let other: TestServer;

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'likeness-lifecycle-'));
    other = await startTestServer({
      databaseUrl: scratch.url,
      dataDir,
      // Its training runner looks only at start: trainings here belong to the processes under test.
      env: { JOB_LEASE_SECONDS: '60', TRAINING_POLL_SECONDS: '600' },
    });
  });
  afterAll(async () => {
    await other?.stop();
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const spawn = (env: Record<string, string>) =>
    spawnServerProcess({
      DATABASE_URL: scratch.url,
      AUTH_SECRET: TEST_AUTH_SECRET,
      DATA_DIR: dataDir,
      TRAINING_POLL_SECONDS: '0.2',
      ...env,
    });
  /** A request to the server process with the user's session, as their browser would send it. */
  const send = (server: ServerProcess, cookie: string, path: string, body?: unknown) =>
    fetch(server.url + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { cookie, origin: server.url, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const ledgerOf = (userId: string) => other.rt.db.select().from(creditLedger).where(eq(creditLedger.userId, userId));
  const jobsOf = (userId: string) => other.rt.db.select().from(generationJobs).where(eq(generationJobs.userId, userId));

  it('SIGTERM: ends event streams at once, refuses new connections, finishes the generation in flight, exits 0', async () => {
    const { client, userId } = await other.signUp({ credits: 20 });
    const cookie = client.cookieHeader();
    const server = await spawn({ TEST_GENERATION_DELAY_MS: '2500', SHUTDOWN_GRACE_SECONDS: '30' });
    const stream = await send(server, cookie, '/api/events');
    const reader = stream.body!.getReader();
    await reader.read();

    const generation = send(server, cookie, '/api/image/generate-image', request).then(async (res) => ({ res, at: Date.now() }));
    await waitFor('the job to start', async () => (await jobsOf(userId)).length === 1);
    server.kill('SIGTERM');

    // The stream ends long before the generation does, so the browser reconnects to another instance.
    for (let part = await reader.read(); !part.done; part = await reader.read());
    const streamEnded = Date.now();
    await waitFor('the port to close', async () =>
      fetch(`${server.url}/healthz`).then(
        () => false,
        () => true,
      ),
    );

    const { res, at } = await generation;
    expect(res.status).toBe(200);
    expect(streamEnded).toBeLessThan(at);
    const body = await res.json();
    expect(await other.rt.storage.exists(keyFromMediaUrl(body.images[0].url)!)).toBe(true);
    expect(await server.exited).toBe(0);

    expect(await other.rt.credits.balance(userId)).toBe(10);
    expect((await ledgerOf(userId)).map((l) => l.kind).sort()).toEqual(['debit', 'grant']);
    expect((await jobsOf(userId)).map((j) => j.status)).toEqual(['SUCCEEDED']);
  });

  it('SIGTERM: a generation still running when the grace period ends is refunded and answered', async () => {
    const { client, userId } = await other.signUp({ credits: 10 });
    const server = await spawn({ TEST_GENERATION_DELAY_MS: '60000', SHUTDOWN_GRACE_SECONDS: '1' });
    const generation = send(server, client.cookieHeader(), '/api/image/generate-image', request);
    await waitFor('the job to start', async () => (await jobsOf(userId)).length === 1);
    server.kill('SIGINT');

    const res = await generation;
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: 'server_restarting', message: expect.stringContaining('10 credits were refunded') });
    expect(await server.exited).toBe(0);
    expect(await other.rt.credits.balance(userId)).toBe(10);
    expect(await other.rt.credits.ledgerSum(userId)).toBe(10);
    expect((await jobsOf(userId)).map((j) => j.status)).toEqual(['FAILED']);
  });

  it('SIGTERM during a training: the lease is given back and another instance completes it, once', async () => {
    const { client, userId } = await other.signUp({ credits: 500 });
    const url = await uploadArchive(client, await trainingArchive(4));
    // Its training step outlasts the grace period (and its own close), so it cannot end the training itself.
    const server = await spawn({
      JOB_LEASE_SECONDS: '60',
      SHUTDOWN_GRACE_SECONDS: '1',
      TRAINING_DURATION_SECONDS: '0',
      TEST_TRAINING_DELAY_MS: '60000',
    });
    const submitted = await send(server, client.cookieHeader(), '/api/image/submit-lora-training', trainingPayload(url));
    expect(submitted.status).toBe(200);
    const { request_id } = await submitted.json();
    const row = () =>
      other.rt.db
        .select()
        .from(loraTrainings)
        .where(eq(loraTrainings.requestId, request_id))
        .then((r) => r[0]);
    await waitFor('the server process to lease the training', async () => (await row())?.leaseOwner);
    server.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    // Given back, not left to run out (the lease was for a minute).
    const left = await row();
    expect(left.status).toBe('IN_PROGRESS');
    expect(left.leaseExpiresAt!.getTime()).toBeLessThanOrEqual(Date.now());

    const next = await startTestServer({
      databaseUrl: scratch.url,
      dataDir,
      env: { JOB_LEASE_SECONDS: '60', TRAINING_POLL_SECONDS: '0.2', TRAINING_DURATION_SECONDS: '0' },
    });
    const done = await waitFor('the next instance to complete it', async () => {
      const r = await row();
      return r.status !== 'IN_PROGRESS' && r;
    }).finally(() => next.stop());
    expect(done.status).toBe('COMPLETED');
    const ledger = await ledgerOf(userId);
    expect(ledger.filter((l) => l.kind === 'debit')).toHaveLength(1);
    expect(ledger.filter((l) => l.kind === 'refund')).toHaveLength(0);
    expect(await other.rt.credits.balance(userId)).toBe(0);
  });

  it('SIGKILL during a generation: the user generates on the other instance at once, and the dead job is refunded within seconds', async () => {
    const { client, userId } = await other.signUp({ credits: 20 });
    const server = await spawn({ TEST_GENERATION_DELAY_MS: '60000', JOB_LEASE_SECONDS: '6' });
    void send(server, client.cookieHeader(), '/api/image/generate-image', request).catch(() => undefined);
    await waitFor('the job to start', async () => (await jobsOf(userId)).length === 1);
    const [dead] = await jobsOf(userId);
    server.kill('SIGKILL');
    await server.exited;
    const killedAt = Date.now();

    // Not held up by the dead instance's job (its lease still runs, but its instance is gone).
    const res = await client.post('/api/image/generate-image', request);
    expect(res.status).toBe(200);
    const { generation } = await res.json();
    const [stored] = await other.rt.db.select().from(generations).where(eq(generations.id, generation.id));

    const refunded = await waitFor('the dead job to be refunded', async () => {
      const [job] = await other.rt.db
        .select()
        .from(generationJobs)
        .where(and(eq(generationJobs.id, dead.id), eq(generationJobs.status, 'FAILED')));
      return job;
    });
    // The second generation was saved before the dead one's lease ran out and it was refunded.
    expect(stored.createdAt.getTime()).toBeLessThan(refunded.updatedAt.getTime());
    expect(refunded.updatedAt.getTime() - killedAt).toBeLessThan(20_000);
    expect(await other.rt.credits.balance(userId)).toBe(10);
    expect(await other.rt.credits.ledgerSum(userId)).toBe(10);
    const [{ n }] = await other.rt.db
      .select({ n: sql<number>`count(*)::int` })
      .from(creditLedger)
      .where(eq(creditLedger.idempotencyKey, `refund:generation:${dead.id}`));
    expect(n).toBe(1);
  });
});
