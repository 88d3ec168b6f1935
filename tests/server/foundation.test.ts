import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { startTestServer, testDatabases, type TestServer } from '../helpers/server.ts';

describe.each(testDatabases())('foundation (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database });
  });
  afterAll(() => ts?.stop());

  it('answers health with the database kind', async () => {
    const res = await fetch(`${ts.url}/api/health`);
    expect(await res.json()).toEqual({ ok: true, database: database === 'pglite' ? 'pglite' : 'postgres' });
  });

  it('sets security headers on every answer', async () => {
    const res = await fetch(`${ts.url}/api/health`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
  });

  it('answers 401 JSON to an anonymous caller and 404 JSON to an unknown endpoint', async () => {
    const me = await fetch(`${ts.url}/api/me`);
    expect(me.status).toBe(401);
    expect(await me.json()).toMatchObject({ code: 'unauthorized' });
    const none = await fetch(`${ts.url}/api/nope`);
    expect(none.status).toBe(404);
    expect(await none.json()).toMatchObject({ code: 'not_found' });
  });

  it('signs up with a hashed password; the confirmation link signs in with an HttpOnly SameSite session cookie', async () => {
    const email = `ann-${randomUUID().slice(0, 6)}@example.com`;
    const res = await ts.client().post('/api/auth/sign-up/email', { email, password: 'correct-horse-1', name: 'Ann Lee' });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([]);
    const confirmed = await ts.client().get(await ts.mailedLink(email, '/api/auth/verify-email'));
    const cookie = confirmed.headers.getSetCookie().find((c) => c.startsWith('likeness.session_token='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    const stored = await ts.rt.db.query.authAccounts.findFirst();
    expect(stored?.password).toBeTruthy();
    expect(stored?.password).not.toContain('correct-horse-1');
  });

  it('syncs the user: creates with 0 credits, then refreshes email and name', async () => {
    const { client, userId } = await ts.signUp({ name: 'Bo Chen' });
    const me = await (await client.get('/api/me')).json();
    expect(me).toMatchObject({ id: userId, full_name: 'Bo Chen', credits: 0, subscription_status: null });
    const before = me.updated_at;
    await new Promise((r) => setTimeout(r, 20));
    const again = await (await client.post('/api/me/sync')).json();
    expect(again.id).toBe(userId);
    expect(new Date(again.updated_at).getTime()).toBeGreaterThan(new Date(before).getTime());
    const meta = await ts.rt.db.query.userPublicMeta.findFirst({ where: (t, { eq }) => eq(t.userId, userId) });
    expect(meta?.credits).toBe(0);
  });

  it('rejects wrong credentials with a clear message', async () => {
    const { email } = await ts.signUp();
    const res = await ts.client().post('/api/auth/sign-in/email', { email, password: 'wrong-password' });
    expect(res.status).toBe(401);
    expect((await res.json()).message).toMatch(/invalid email or password/i);
  });

  it('refuses state-changing requests from another origin', async () => {
    const res = await ts.client().post('/api/me/sync', undefined, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'bad_origin' });
  });

  it('limits request bodies', async () => {
    const { client } = await ts.signUp();
    const res = await client.post('/api/me/sync', { junk: 'x'.repeat(2 * 1024 * 1024) });
    expect(res.status).toBe(413);
  });

  it('answers malformed JSON to sign-in without a stack trace, and logs it in the server log only', async () => {
    const consoleError = vi.spyOn(console, 'error');
    try {
      const res = await ts.client().fetch('/api/auth/sign-in/email', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{not json',
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(await res.text()).not.toMatch(/at .*\.ts:\d+/);
      // better-auth's own logger is routed into the server's (pino), not printed to the console.
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      consoleError.mockRestore();
    }
  });
});

describe('an unexpected failure inside sign-up', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database: 'pglite' });
  });
  afterAll(() => ts?.stop());

  it("answers the product's 500 with a request id, logged by the server, not printed by better-auth", async () => {
    // A database that lost its sessions table: better-auth fails with a database error, not an API error.
    const { email } = await ts.signUp();
    await ts.rt.db.execute(sql`drop table auth_sessions cascade`);
    const consoleError = vi.spyOn(console, 'error');
    try {
      const res = await ts.client().fetch('/api/auth/sign-in/email', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'correct-horse-1' }),
      });
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({
        message: 'Something went wrong on our side. Please try again.',
        code: 'internal',
        requestId: expect.any(String),
      });
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      consoleError.mockRestore();
    }
  });
});

describe('credit ledger', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database: testDatabases().at(-1) });
  });
  afterAll(() => ts?.stop());

  it('50 concurrent 10-credit debits on 100 credits: exactly 10 succeed, ledger sums to balance', async () => {
    const { userId } = await ts.signUp({ credits: 100 });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => ts.rt.credits.debit(userId, 10, 'test debit', `debit:${userId}:${i}`)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    const rejected = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(rejected.every((r) => r.reason.status === 402)).toBe(true);
    expect(await ts.rt.credits.balance(userId)).toBe(0);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(0);
  });

  it('applies an idempotency key once and refunds a debit once', async () => {
    const { userId } = await ts.signUp({ credits: 30 });
    const first = await ts.rt.credits.debit(userId, 10, 'x', 'k-once');
    const second = await ts.rt.credits.debit(userId, 10, 'x', 'k-once');
    expect(first).toEqual({ applied: true, balance: 20 });
    expect(second).toEqual({ applied: false, balance: 20 });
    await ts.rt.credits.refund(userId, 10, 'failed', 'k-once');
    await ts.rt.credits.refund(userId, 10, 'failed', 'k-once');
    expect(await ts.rt.credits.balance(userId)).toBe(30);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(30);
  });
});

describe('realtime', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer();
  });
  afterAll(() => ts?.stop());

  it('pushes a credit change made on the server to the user event stream', async () => {
    const { client, userId } = await ts.signUp();
    const res = await fetch(`${ts.url}/api/events`, { headers: { cookie: client.cookieHeader() } });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        text += value;
      }
    };
    await readUntil('"credits":0');
    await ts.rt.credits.grant(userId, 40, 'test', `grant:${userId}`);
    await readUntil('"credits":40');
    await readUntil(': heartbeat');
    await reader.cancel();
  });
});
