import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac, randomUUID } from 'node:crypto';
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { authSessions, creditLedger, generationJobs, generations, loraTrainings, userPublicMeta, users } from '../../server/db/schema.ts';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Executor } from '../../server/db/index.ts';
import { generationsRepository } from '../../server/repositories/generations.repository.ts';
import { signedCookieValue } from '../../server/auth/local.ts';
import { startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import { CREDIT_COSTS } from '@common/product.ts';

/**
 * The statements that took the generate path's round trips down (docs/decisions/014-generate-path.md): the
 * balance change in one statement, a paid job's start in one statement, and the session read with the users row.
 */
describe.each(testDatabases())('generate path statements (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database });
  });
  afterAll(() => ts?.stop());

  const ledgerRows = async (key: string) => ts.rt.db.select().from(creditLedger).where(eq(creditLedger.idempotencyKey, key));
  const publicBalance = async (userId: string) =>
    (await ts.rt.db.select({ credits: userPublicMeta.credits }).from(userPublicMeta).where(eq(userPublicMeta.userId, userId)))[0]?.credits;

  it('writes a debit, the balance and the public balance together, and a repeated key changes nothing', async () => {
    const { userId } = await ts.signUp({ credits: 25 });
    const key = `hot:${randomUUID()}`;
    expect(await ts.rt.credits.debit(userId, 10, 'first', key)).toEqual({ applied: true, balance: 15 });
    expect(await ts.rt.credits.debit(userId, 10, 'again', key)).toEqual({ applied: false, balance: 15 });
    const rows = await ledgerRows(key);
    expect(rows.map((r) => ({ delta: r.delta, kind: r.kind, reason: r.reason, balanceAfter: r.balanceAfter }))).toEqual([
      { delta: -10, kind: 'debit', reason: 'first', balanceAfter: 15 },
    ]);
    expect(await ts.rt.credits.balance(userId)).toBe(15);
    expect(await publicBalance(userId)).toBe(15);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(15);
  });

  it('refuses a debit above the balance with 402 and writes nothing; a key already applied is not refused', async () => {
    const { userId } = await ts.signUp({ credits: 15 });
    const key = `hot:${randomUUID()}`;
    await expect(ts.rt.credits.debit(userId, 20, 'too much', key)).rejects.toMatchObject({ status: 402 });
    expect(await ledgerRows(key)).toEqual([]);
    expect(await ts.rt.credits.balance(userId)).toBe(15);
    expect(await publicBalance(userId)).toBe(15);

    // The same debit applied once, then asked again when the balance no longer covers it: already applied.
    const once = `hot:${randomUUID()}`;
    expect(await ts.rt.credits.debit(userId, 10, 'once', once)).toEqual({ applied: true, balance: 5 });
    expect(await ts.rt.credits.debit(userId, 10, 'once', once)).toEqual({ applied: false, balance: 5 });
    expect(await ledgerRows(once)).toHaveLength(1);
    expect(await publicBalance(userId)).toBe(5);
  });

  describe('a paid job’s start in one statement', () => {
    const start = (
      userId: string,
      opts: { cost?: number; kind?: 'generation' | 'caption'; oneAtATime?: boolean; executor?: Executor } = {},
    ) => {
      const jobId = randomUUID();
      const kind = opts.kind ?? 'generation';
      const outcome = ts.rt.credits
        .startPaidJob(
          opts.executor ?? ts.rt.db,
          {
            userId,
            cost: opts.cost ?? 10,
            reason: 'Image generation',
            debitKey: `${kind}:${jobId}`,
            jobId,
            kind,
            input: { prompt: 'p' },
            provider: 'builtin',
          },
          { oneAtATime: opts.oneAtATime ?? true, lease: { owner: ts.rt.leases.owner, seconds: 60 } },
        )
        .then((started) => started.outcome);
      return { jobId, outcome };
    };
    const jobsOf = (userId: string) => ts.rt.db.select().from(generationJobs).where(eq(generationJobs.userId, userId));
    const heldJob = (userId: string, extra: { leaseOwner?: string; leaseExpiresAt?: SQL<Date>; status?: 'SUCCEEDED' } = {}) => ({
      id: randomUUID(),
      userId,
      kind: 'generation' as const,
      cost: 10,
      input: {},
      provider: 'builtin',
      leaseOwner: ts.rt.leases.owner,
      leaseExpiresAt: sql<Date>`now() + interval '1 minute'`,
      ...extra,
    });

    it('writes the debit, both balances, the credits event and the PENDING job leased to this instance', async () => {
      const { userId } = await ts.signUp({ credits: 25 });
      const events: unknown[] = [];
      const unsubscribe = ts.rt.events.subscribe(userId, { onEvent: (e) => events.push(e), onDisconnect: () => {} });
      const { jobId, outcome } = start(userId);
      expect(await outcome).toBe('started');
      expect(await ledgerRows(`generation:${jobId}`)).toMatchObject([
        { delta: -10, kind: 'debit', reason: 'Image generation', balanceAfter: 15 },
      ]);
      expect(await ts.rt.credits.balance(userId)).toBe(15);
      expect(await publicBalance(userId)).toBe(15);
      expect(await jobsOf(userId)).toMatchObject([
        { id: jobId, status: 'PENDING', kind: 'generation', cost: 10, input: { prompt: 'p' }, leaseOwner: ts.rt.leases.owner },
      ]);
      await expect.poll(() => events).toContainEqual({ type: 'credits', credits: 15 });
      unsubscribe();
    });

    it('writes nothing for a balance too low (402), an erased account or an unknown user', async () => {
      const { userId } = await ts.signUp({ credits: 5 });
      await expect(start(userId).outcome).rejects.toMatchObject({ status: 402, message: 'This needs 10 credits; you have 5.' });
      await expect(start(randomUUID()).outcome).rejects.toMatchObject({ status: 404 });
      await ts.rt.db.update(users).set({ erasedAt: new Date(), credits: 50 }).where(eq(users.id, userId));
      await expect(start(userId).outcome).rejects.toMatchObject({ code: 'account_deleted' });
      expect(await jobsOf(userId)).toEqual([]);
      expect(await ts.rt.credits.ledgerSum(userId)).toBe(5);
    });

    it('is busy, writing nothing, while another generation of the user is held by a running instance', async () => {
      const { userId } = await ts.signUp({ credits: 50 });
      const { userId: other } = await ts.signUp({ credits: 50 });
      const held = heldJob(userId);
      await ts.rt.db.insert(generationJobs).values(held);
      expect(await start(userId).outcome).toBe('busy');
      expect((await jobsOf(userId)).map((j) => j.id)).toEqual([held.id]);
      expect(await ts.rt.credits.balance(userId)).toBe(50);
      // Another person, another kind of job, and a caption (which does not wait) all start.
      expect(await start(other).outcome).toBe('started');
      expect(await start(userId, { kind: 'caption', cost: 1, oneAtATime: true }).outcome).toBe('started');
      expect(await start(userId, { oneAtATime: false }).outcome).toBe('started');
    });

    it('commits without waiting for the disk, and the next transaction on its connection waits again', async () => {
      const { userId } = await ts.signUp({ credits: 25 });
      // One connection throughout (PGlite has only one), so that the last read sees what the start left on it.
      const client =
        database === 'postgres' ? new pg.Client({ connectionString: (ts.rt.config as { DATABASE_URL: string }).DATABASE_URL }) : null;
      await client?.connect();
      const connection: Executor = client ? drizzle(client) : ts.rt.db;
      const synchronousCommit = async (executor: Executor) => {
        const result = await executor.execute(sql`select current_setting('synchronous_commit') as value`);
        return (result as unknown as { rows: { value: string }[] }).rows[0].value;
      };
      try {
        // A production server's default (the suite's own Postgres runs with it off, for speed).
        await connection.execute(sql`set synchronous_commit = on`);
        await connection.transaction(async (tx) => {
          expect(await synchronousCommit(tx)).toBe('on');
          expect(await start(userId, { executor: tx }).outcome).toBe('started');
          expect(await synchronousCommit(tx)).toBe('off');
        });
        // The job's end, which makes the start durable with it, must wait for the disk: the setting did not
        // outlive the start's transaction.
        expect(await start(userId, { executor: connection, oneAtATime: false }).outcome).toBe('started');
        expect(await synchronousCommit(connection)).toBe('on');
        expect(await ts.rt.credits.balance(userId)).toBe(5);
      } finally {
        await connection.execute(sql`reset synchronous_commit`);
        await client?.end();
      }
    });

    it('reads an upscale’s source in the same statement, as the repository reads it, and refuses one too large', async () => {
      const { userId } = await ts.signUp({ credits: 50 });
      const [character] = await ts.rt.db
        .insert(loraTrainings)
        .values({
          userId,
          characterName: 'Mara',
          triggerWord: 'mara',
          status: 'COMPLETED',
          loraFileUrl: 'https://v3.fal.media/files/abc/lora.safetensors',
        })
        .returning();
      const [made] = await ts.rt.db
        .insert(generations)
        .values({
          userId,
          prompt: 'mara at the beach',
          width: 1024,
          height: 768,
          imageUrl: '/media/generations/x/y.jpeg',
          loraId: character.id,
          loraScale: 0.8,
          seed: '7',
          likeness: 71,
          likenessVerdict: 'strong',
        })
        .returning();
      const sourceId = made.id;
      const startWith = (maxSide: number | null) => {
        const jobId = randomUUID();
        return ts.rt.credits.startPaidJob(
          ts.rt.db,
          {
            userId,
            cost: 5,
            reason: 'Image upscale 2×',
            debitKey: `generation:${jobId}`,
            jobId,
            kind: 'generation',
            input: {},
            provider: 'builtin',
          },
          { oneAtATime: false, lease: { owner: ts.rt.leases.owner, seconds: 60 }, source: { id: sourceId, maxSide } },
        );
      };
      const started = await startWith(2048);
      expect(started.outcome).toBe('started');
      expect(started.source).toEqual(await generationsRepository.findOwnedWithCharacter(ts.rt.db, userId, sourceId));
      expect(started.source?.character?.characterName).toBe('Mara');
      expect(await startWith(256)).toMatchObject({ outcome: 'too_large', source: { generation: { id: sourceId } } });
      expect(await ts.rt.credits.balance(userId)).toBe(45);
    });

    it('starts when the other job’s lease ran out, it ended, or its instance no longer runs', async () => {
      const { userId } = await ts.signUp({ credits: 50 });
      await ts.rt.db
        .insert(generationJobs)
        .values([
          heldJob(userId, { leaseExpiresAt: sql<Date>`now() - interval '1 second'` }),
          heldJob(userId, { status: 'SUCCEEDED' }),
          heldJob(userId, { leaseOwner: randomUUID() }),
        ]);
      expect(await start(userId).outcome).toBe('started');
      expect(await ts.rt.credits.balance(userId)).toBe(40);
    });
  });

  it('refuses a session at once once it is revoked, even between two requests on the same connection', async () => {
    const { client, userId } = await ts.signUp();
    expect((await client.get('/api/me')).status).toBe(200);
    // Revoked the way every sign-out-everywhere does it: the row goes.
    const me = await ts.rt.users.findById(userId);
    await ts.rt.db.delete(authSessions).where(eq(authSessions.userId, me!.clerkId));
    const res = await client.get('/api/me');
    expect(res.status).toBe(401);
  });

  it('refuses an expired session and extends one used a day after its last extension, as better-auth does', async () => {
    const { client, userId } = await ts.signUp();
    const me = await ts.rt.users.findById(userId);
    const ofUser = eq(authSessions.userId, me!.clerkId);

    await ts.rt.db
      .update(authSessions)
      .set({ expiresAt: sql`now() + interval '29 days' - interval '1 hour'` })
      .where(ofUser);
    expect((await client.get('/api/me')).status).toBe(200);
    const [extended] = await ts.rt.db.select({ expiresAt: authSessions.expiresAt }).from(authSessions).where(ofUser);
    expect(extended.expiresAt.getTime()).toBeGreaterThan(Date.now() + 29.9 * 24 * 3600_000);

    await ts.rt.db
      .update(authSessions)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(ofUser);
    expect((await client.get('/api/me')).status).toBe(401);
  });

  it('refuses a session cookie whose signature is not the server’s, and one naming no session', async () => {
    const { client } = await ts.signUp();
    const [name, value] = client.cookieHeader().split(';')[0].split('=');
    const token = decodeURIComponent(value).split('.')[0];
    for (const cookie of [`${name}=${token}.${'A'.repeat(43)}=`, `${name}=${encodeURIComponent(`${randomUUID()}.${'A'.repeat(43)}=`)}`]) {
      const res = await fetch(`${ts.url}/api/me`, { headers: { cookie } });
      expect(res.status).toBe(401);
    }
  });
});

describe.each(testDatabases())('session lookup in one query (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database });
  });
  afterAll(() => ts?.stop());

  it('answers the same person and users row as the two-step lookup', async () => {
    const { client, userId } = await ts.signUp({ credits: 30 });
    const headers = new Headers({ cookie: client.cookieHeader() });
    const fast = await ts.rt.identity.identifyWithRow!(headers);
    const who = await ts.rt.identity.identify(headers);
    expect(fast?.who).toEqual(who);
    expect(fast?.row).toEqual(await ts.rt.users.findById(userId));
    expect(fast?.row?.credits).toBe(30);
    const [session] = await ts.rt.db
      .select()
      .from(authSessions)
      .where(and(eq(authSessions.id, fast!.who.session!.id)));
    expect(session.expiresAt.getTime()).toBe(fast!.who.session!.expiresAt.getTime());
  });
});

describe.each(testDatabases())('a remembered caller (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database });
  });
  afterAll(() => ts?.stop());

  const generate = (client: TestClient) => client.post('/api/image/generate-image', generationRequestBody());
  const callerOf = (client: TestClient) => ts.rt.identity.identifyCaller!(new Headers({ cookie: client.cookieHeader() }));

  /** The statements this process sends to Postgres while `run` runs (pg's Client.query: drizzle and better-auth both call it). */
  async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const q = args[0] as string | { text?: string };
      sent.push(typeof q === 'string' ? q : String(q?.text));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      await run();
    } finally {
      pg.Client.prototype.query = query;
    }
    return sent;
  }

  it('serves the next generation without reading the session again', async () => {
    const { client, userId } = await ts.signUp({ credits: 3 * CREDIT_COSTS.generation });
    expect(await callerOf(client)).toBeUndefined();
    expect((await generate(client)).status).toBe(200);
    expect(await callerOf(client)).toMatchObject({ userId, who: { session: { id: expect.any(String) } } });
    const sent = await statementsOf(async () => expect((await generate(client)).status).toBe(200));
    if (database === 'postgres') expect(sent.filter((text) => text.includes('auth_sessions'))).toEqual([]);
    expect(await ts.rt.credits.balance(userId)).toBe(CREDIT_COSTS.generation);
  });

  it('refuses a remembered session at once after its sign-out, another session’s password change, or the erasure', async () => {
    const { client, email } = await ts.signUp({ credits: 50 });
    const other = ts.client();
    expect((await other.post('/api/auth/sign-in/email', { email, password: 'correct-horse-1' })).status).toBe(200);
    const third = ts.client();
    expect((await third.post('/api/auth/sign-in/email', { email, password: 'correct-horse-1' })).status).toBe(200);
    for (const session of [client, other, third]) expect((await generate(session)).status).toBe(200);

    expect((await client.post('/api/auth/sign-out', {})).status).toBe(200);
    expect((await generate(client)).status).toBe(401);
    expect((await client.get('/api/generations')).status).toBe(401);

    const changed = await other.post('/api/auth/change-password', {
      currentPassword: 'correct-horse-1',
      newPassword: 'violet ferry lantern 42',
    });
    expect(changed.status).toBe(200);
    expect((await generate(third)).status).toBe(401);
    expect((await generate(other)).status).toBe(200);

    await ts.rt.erasure.erase((await callerOf(other))!.userId);
    expect((await generate(other)).status).toBe(401);
  });
});

describe('signed session cookie', () => {
  const secret = 'a-secret-of-the-server-a-secret-of-the-server';
  const signed = (token: string, key = secret) =>
    encodeURIComponent(`${token}.${createHmac('sha256', key).update(token).digest('base64')}`);

  it('reads the token of a cookie signed with the secret, and nothing else', () => {
    expect(signedCookieValue(`other=1; s=${signed('tok')}; last=2`, 's', secret)).toBe('tok');
    expect(signedCookieValue(`s="${signed('tok')}"`, 's', secret)).toBe('tok');
    expect(signedCookieValue(`s=${signed('tok', 'another-secret')}`, 's', secret)).toBeNull();
    expect(signedCookieValue(`s=${signed('tok').replace('tok', 'tak')}`, 's', secret)).toBeNull();
    expect(signedCookieValue('s=tok', 's', secret)).toBeNull();
    expect(signedCookieValue('s=', 's', secret)).toBeNull();
    expect(signedCookieValue(null, 's', secret)).toBeNull();
    expect(signedCookieValue(`xs=${signed('tok')}`, 's', secret)).toBeNull();
  });

  it('takes the first cookie of the name, as better-auth does', () => {
    expect(signedCookieValue(`s=${signed('first')}; s=${signed('second')}`, 's', secret)).toBe('first');
    expect(signedCookieValue(`s=forged.${'A'.repeat(43)}=; s=${signed('second')}`, 's', secret)).toBeNull();
  });
});
