import { randomUUID } from 'node:crypto';
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_PASSWORD_MESSAGES } from '@common/auth.ts';
import { GENERATION_UNDO_SECONDS } from '@common/library.ts';
import { CREDIT_COSTS } from '@common/product.ts';
import { authSessions, authUsers, creditLedger, generations, subscriptions } from '../../server/db/schema.ts';
import { keyFromMediaUrl } from '../../server/providers/storage/index.ts';
import { withThumbnails } from '../../server/services/media.service.ts';
import { createScratchDatabase, startTestServer, testDatabases, TestClient, type TestServer } from '../helpers/server.ts';
import { readServerSentEvents } from '../helpers/sse.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import { createClerkTestKeys, hostedFetch, TEST_SPA_ORIGIN } from '../helpers/clerk.ts';

const PASSWORD = 'correct-horse-1';
const NEW_PASSWORD = 'violet ferry lantern 42';

/** A user's event stream read as EventSource does; `ended` resolves when the server closes it. */
async function openStream(url: string, headers: Record<string, string>) {
  const res = await fetch(`${url}/api/events`, { headers });
  expect(res.status).toBe(200);
  const events: string[] = [];
  const ended = readServerSentEvents(res.body!, (event) => events.push(event))
    .catch(() => undefined)
    .then(() => Date.now());
  // 'ready' means the stream is subscribed to the bus.
  const until = Date.now() + 10_000;
  while (!events.includes('ready') && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  expect(events).toContain('ready');
  let open = true;
  void ended.then(() => (open = false));
  return { events, ended, isOpen: () => open };
}

const cookieOf = (client: TestClient) => ({ cookie: client.cookieHeader() });

/** Resolves with the time the stream ended, or rejects if it is still open after `ms`. */
function endsWithin(stream: { ended: Promise<number> }, ms: number): Promise<number> {
  return Promise.race([
    stream.ended,
    new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`stream still open after ${ms} ms`)), ms)),
  ]);
}

async function signIn(ts: TestServer, email: string, password = PASSWORD): Promise<TestClient> {
  const client = ts.client();
  const res = await client.post('/api/auth/sign-in/email', { email, password });
  expect(res.status).toBe(200);
  return client;
}

describe.each(testDatabases())('sessions, account routes and deleted images (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database });
  }, 120_000);
  afterAll(() => ts?.stop());

  describe('event streams end with their session', () => {
    it('closes a stream within 5 s of its session signing out; another session of the account keeps streaming', async () => {
      const { client, email } = await ts.signUp();
      const other = await signIn(ts, email);
      const mine = await openStream(ts.url, cookieOf(client));
      const theirs = await openStream(ts.url, cookieOf(other));

      const signedOutAt = Date.now();
      expect((await client.post('/api/auth/sign-out', {})).status).toBe(200);
      expect((await endsWithin(mine, 5_000)) - signedOutAt).toBeLessThan(5_000);
      expect(mine.events.at(-1)).toBe('signed-out');
      await new Promise((r) => setTimeout(r, 300));
      expect(theirs.isOpen()).toBe(true);
      expect((await other.get('/api/me')).status).toBe(200);
    });

    it('closes the other sessions’ streams when the password changes, keeps the changing session’s, and refuses their cookies after', async () => {
      const { client, email } = await ts.signUp();
      const other = await signIn(ts, email);
      const stolenCookie = cookieOf(other);
      const theirs = await openStream(ts.url, stolenCookie);
      const mine = await openStream(ts.url, cookieOf(client));

      const res = await client.post('/api/auth/change-password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
      // From the change taking effect (it commits before the answer), not from the request: hashing the new
      // password takes its own time on a busy machine.
      const changedAt = Date.now();
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true, message: CHANGE_PASSWORD_MESSAGES.done });
      expect((await endsWithin(theirs, 5_000)) - changedAt).toBeLessThan(5_000);
      expect(theirs.events.at(-1)).toBe('signed-out');
      expect(mine.isOpen()).toBe(true);

      // The old cookie reconnects to nothing; the session that changed the password goes on.
      expect((await fetch(`${ts.url}/api/events`, { headers: stolenCookie })).status).toBe(401);
      expect((await other.get('/api/me')).status).toBe(401);
      expect((await client.get('/api/me')).status).toBe(200);
      // The new password signs in; the old one no longer does.
      expect((await ts.client().post('/api/auth/sign-in/email', { email, password: PASSWORD })).status).toBe(401);
      await signIn(ts, email, NEW_PASSWORD);
    });

    it('closes the stream of an erased account', async () => {
      const { client, userId } = await ts.signUp();
      const stream = await openStream(ts.url, cookieOf(client));
      const erasedAt = Date.now();
      await ts.rt.erasure.erase(userId);
      expect((await endsWithin(stream, 5_000)) - erasedAt).toBeLessThan(5_000);
      expect(stream.events.at(-1)).toBe('signed-out');
      expect((await fetch(`${ts.url}/api/events`, { headers: cookieOf(client) })).status).toBe(401);
    });

    it('closes every stream of the account through endSessions (what password reset and account deletion call)', async () => {
      const { client, userId, email } = await ts.signUp();
      const other = await signIn(ts, email);
      const a = await openStream(ts.url, cookieOf(client));
      const b = await openStream(ts.url, cookieOf(other));
      expect(await ts.rt.sessions.endSessions(userId)).toBe(2);
      await endsWithin(a, 5_000);
      await endsWithin(b, 5_000);
      expect((await client.get('/api/me')).status).toBe(401);
    });

    it('refuses forged, revoked and malformed session cookies on a stream (401, never a stream)', async () => {
      const { client } = await ts.signUp();
      const revoked = client.cookieHeader();
      expect((await client.post('/api/auth/sign-out', {})).status).toBe(200);
      const name = revoked.split('=')[0];
      for (const cookie of [
        revoked,
        `${name}=${randomUUID()}.forgedsignature`,
        `${name}=`,
        `${name}=%00%0d%0a`,
        `${name}=${'a'.repeat(10_000)}`,
      ]) {
        const res = await fetch(`${ts.url}/api/events`, { headers: { cookie } });
        expect(res.status, cookie.slice(0, 60)).toBe(401);
        await res.body?.cancel();
      }
    });
  });

  describe('change password', () => {
    it('applies the sign-up password rule and refuses bad input with a clear 400, changing nothing', async () => {
      const { client, email } = await ts.signUp({ name: 'Maria Lopez' });
      const cases: [unknown, number, string | RegExp][] = [
        [{ currentPassword: PASSWORD, newPassword: 'password' }, 400, /too easy to guess/],
        [{ currentPassword: PASSWORD, newPassword: 'short' }, 400, 'Use at least 8 characters for your password.'],
        [{ currentPassword: PASSWORD, newPassword: 'x'.repeat(129) }, 400, 'Use at most 128 characters for your password.'],
        [{ currentPassword: PASSWORD, newPassword: `${email.split('@')[0]}` }, 400, /too easy to guess/],
        [{ currentPassword: PASSWORD, newPassword: PASSWORD }, 400, /too easy to guess|different from your current one/],
        [{ currentPassword: '', newPassword: NEW_PASSWORD }, 400, /currentPassword/],
        [{ currentPassword: 'x'.repeat(10_000), newPassword: NEW_PASSWORD }, 400, /currentPassword/],
        [{ currentPassword: 'wrong\r\npassword', newPassword: NEW_PASSWORD }, 400, CHANGE_PASSWORD_MESSAGES.wrongCurrent],
        [{ currentPassword: 'bad\u0000byte', newPassword: NEW_PASSWORD }, 400, /currentPassword/],
        [{ currentPassword: PASSWORD }, 400, /newPassword/],
        [{ currentPassword: 42, newPassword: NEW_PASSWORD }, 400, /currentPassword/],
      ];
      for (const [body, status, message] of cases) {
        const res = await client.post('/api/auth/change-password', body);
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
        expect((await res.json()).message).toMatch(message);
      }
      const notJson = await client.fetch('/api/auth/change-password', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{',
      });
      expect(notJson.status).toBe(400);
      // Nothing changed: the old password still signs in, and the session is still good.
      await signIn(ts, email);
      expect((await client.get('/api/me')).status).toBe(200);
      expect((await ts.client().post('/api/auth/change-password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(
        401,
      );
    });

    it('limits wrong current passwords to 10 per 15 minutes per account, then 429 with the time to wait', { timeout: 90_000 }, async () => {
      const { client, email } = await ts.signUp();
      const other = await signIn(ts, email);
      for (let i = 0; i < 10; i++) {
        const res = await (i % 2 ? other : client).post('/api/auth/change-password', {
          currentPassword: `wrong-${i}`,
          newPassword: NEW_PASSWORD,
        });
        expect(res.status).toBe(400);
      }
      const refused = await client.post('/api/auth/change-password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expect((await refused.json()).message).toBe('Too many wrong passwords. Please try again in 15 minutes.');
      // The right password was never checked: it still signs in, and the other session is still signed in.
      await signIn(ts, email);
      expect((await other.get('/api/me')).status).toBe(200);
      // Another account is not affected.
      const stranger = await ts.signUp();
      expect(
        (await stranger.client.post('/api/auth/change-password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status,
      ).toBe(200);
    });

    it('does not count right passwords, and parallel changes take turns (one wins, the rest are told the current password is wrong)', async () => {
      const { client, email } = await ts.signUp();
      const answers = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          client.post('/api/auth/change-password', { currentPassword: PASSWORD, newPassword: `${NEW_PASSWORD} ${i}` }),
        ),
      );
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 400, 400, 400]);
      const winner = answers.findIndex((r) => r.status === 200);
      await signIn(ts, email, `${NEW_PASSWORD} ${winner}`);
      expect((await client.get('/api/me')).status).toBe(200);
    });

    it('signs out every other session of the account, whatever the client asks', async () => {
      const { client, userId, email } = await ts.signUp();
      const others = [await signIn(ts, email), await signIn(ts, email)];
      const res = await client.post('/api/auth/change-password', {
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
        revokeOtherSessions: false,
      });
      expect(res.status).toBe(200);
      for (const other of others) expect((await other.get('/api/me')).status).toBe(401);
      const accountId = (await ts.rt.users.findById(userId))!.clerkId!;
      const [{ n }] = await ts.rt.db.select({ n: count() }).from(authSessions).where(eq(authSessions.userId, accountId));
      expect(n).toBe(1);
    });
  });

  describe('auth routes', () => {
    it('answers 404 to every auth-library route the product does not use; update-user stores nothing', async () => {
      const { client, userId } = await ts.signUp({ name: 'Ann Lee' });
      const closed: [string, string, unknown?][] = [
        ['POST', '/api/auth/update-user', { name: 'x'.repeat(300_000), image: 'javascript:alert(1)' }],
        ['POST', '/api/auth/update-user', { name: 'nul\u0000name' }],
        ['POST', '/api/auth/get-session', {}],
        ['GET', '/api/auth/list-sessions'],
        ['POST', '/api/auth/revoke-session', { token: 'x' }],
        ['POST', '/api/auth/revoke-sessions', {}],
        ['POST', '/api/auth/revoke-other-sessions', {}],
        ['POST', '/api/auth/delete-user', {}],
        ['GET', '/api/auth/delete-user/callback'],
        ['POST', '/api/auth/change-email', { newEmail: 'evil@example.com' }],
        ['POST', '/api/auth/verify-password', { password: PASSWORD }],
        ['POST', '/api/auth/sign-in/social', { provider: 'github' }],
        ['GET', '/api/auth/list-accounts'],
        ['GET', '/api/auth/account-info'],
        ['POST', '/api/auth/unlink-account', { providerId: 'credential' }],
        ['POST', '/api/auth/link-social', { provider: 'github' }],
        ['POST', '/api/auth/get-access-token', {}],
        ['POST', '/api/auth/refresh-token', {}],
        ['POST', '/api/auth/update-session', {}],
        // Password reset and verification are open (the e-mail feature); their other methods are not.
        ['GET', '/api/auth/request-password-reset'],
        ['GET', '/api/auth/send-verification-email'],
        ['POST', '/api/auth/verify-email', {}],
        ['GET', '/api/auth/ok'],
        ['GET', '/api/auth/error'],
        ['GET', '/api/auth/callback/github'],
        ['POST', '/api/auth/update%2Duser', { name: 'encoded' }],
        ['POST', '/api/auth/update-user/', { name: 'slash' }],
        ['POST', '/api/auth//update-user', { name: 'double' }],
        ['GET', '/api/auth/sign-out'],
      ];
      for (const [method, path, body] of closed) {
        const res = await client.fetch(path, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
      const session = await (await client.get('/api/auth/get-session')).json();
      expect(session.user).toMatchObject({ name: 'Ann Lee', image: null });
      expect((await client.get('/api/me')).status).toBe(200);
      expect((await ts.rt.users.findById(userId))?.fullName).toBe('Ann Lee');
    });

    it('sign-up sets no avatar address: a body with an image is refused and makes no account', async () => {
      for (const image of ['javascript:alert(1)', 'a\u0000b', 'x'.repeat(900_000)]) {
        const email = `avatar-${randomUUID()}@example.com`;
        const res = await ts.client().post('/api/auth/sign-up/email', { email, password: 'violet ferry lantern 42', name: 'N', image });
        expect(res.status, image.slice(0, 20)).toBe(400);
        expect((await res.json()).message).toBe('image: is not accepted');
        expect(await ts.rt.db.select().from(authUsers).where(eq(authUsers.email, email))).toEqual([]);
      }
    });
  });

  describe('sign-up limit per client address', () => {
    it('allows SIGN_UP_RATE_LIMIT attempts an hour from one address, whatever their answer or encoding, then 429 with the wait', async () => {
      // Its own server: the limit counts per address, and every test here signs up from 127.0.0.1.
      const own = await startTestServer({ database, env: { SIGN_UP_RATE_LIMIT: '4' } });
      try {
        const { email } = await own.signUp();
        // A taken address counts as any other (and is answered as a new one: issue 47).
        const taken = await own.client().post('/api/auth/sign-up/email', { email, password: 'another horse 77', name: 'X' });
        expect(taken.status).toBe(200);
        // A weak password counts too; a form-encoded body counts the same; X-Forwarded-For is not trusted here.
        expect(
          (await own.client().post('/api/auth/sign-up/email', { email: 'a@example.com', password: 'password', name: 'A' })).status,
        ).toBe(400);
        const form = await own.client().fetch('/api/auth/sign-up/email', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.9' },
          body: new URLSearchParams({ email: `${randomUUID()}@example.com`, password: 'another horse 77', name: 'B' }).toString(),
        });
        expect(form.status).toBe(200);
        const refused = await own
          .client()
          .post(
            '/api/auth/sign-up/email',
            { email: `${randomUUID()}@example.com`, password: 'another horse 77', name: 'C' },
            { 'x-forwarded-for': '198.51.100.7' },
          );
        expect(refused.status).toBe(429);
        const retryAfter = Number(refused.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(59 * 60);
        expect(retryAfter).toBeLessThanOrEqual(60 * 60);
        expect((await refused.json()).message).toBe('Too many sign-up attempts from your network. Please try again in 60 minutes.');
        // Sign-in is a separate limit: the existing account still signs in.
        await signIn(own, email);
      } finally {
        await own.stop();
      }
    }, 120_000);
  });

  describe('one subscription per account', () => {
    it('20 parallel sandbox pays give one subscription and one grant; the others answer 409 already subscribed', async () => {
      const { client, userId, email } = await ts.signUp();
      const checkouts: string[] = [];
      for (let i = 0; i < 20; i++) {
        const res = await client.post('/api/billing/checkout', { plan: i % 2 ? 'BASIC' : 'STANDARD', userId, email });
        expect(res.status).toBe(200);
        checkouts.push(new URL((await res.json()).checkout_url).pathname);
      }
      const pays = await Promise.all(
        checkouts.map((path) =>
          client.fetch(`${path}/pay`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' }),
        ),
      );
      const statuses = pays.map((r) => r.status);
      expect(statuses.filter((s) => s === 303)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
      for (const res of pays.filter((r) => r.status === 409))
        expect(await res.text()).toContain('You already have an active subscription.');
      const subs = await ts.rt.db.select().from(subscriptions).where(eq(subscriptions.userId, userId));
      expect(subs).toHaveLength(1);
      const grants = await ts.rt.db
        .select()
        .from(creditLedger)
        .where(and(eq(creditLedger.userId, userId), eq(creditLedger.kind, 'grant')));
      expect(grants).toHaveLength(1);
      const me = await (await client.get('/api/me')).json();
      expect(me).toMatchObject({ subscription_status: 'active', credits: grants[0].delta });

      // Pays racing a cancel of the subscription in force: never two in force, never a 5xx, one grant per paid one.
      const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' };
      const more: string[] = [];
      // While one is in force, the API refuses a new checkout outright.
      expect((await client.post('/api/billing/checkout', { plan: 'BASIC', userId, email })).status).toBe(409);
      const portal = `/sandbox/portal/${me.creem_customer_id}`;
      // So these checkouts are made by the provider directly, as if started before the first payment.
      for (let i = 0; i < 5; i++) {
        const url = await ts.rt.payments.createCheckout({
          plan: 'PROFESSIONAL',
          userId,
          email,
          successUrl: `${ts.url}/app/subscription?checkout=success`,
          serverUrl: ts.url,
        });
        more.push(new URL(url, ts.url).pathname);
      }
      const race = await Promise.all([client.fetch(`${portal}/cancel`, form), ...more.map((path) => client.fetch(`${path}/pay`, form))]);
      for (const res of race) expect(res.status).toBeLessThan(500);
      const inForce = await ts.rt.db
        .select()
        .from(subscriptions)
        .where(and(eq(subscriptions.userId, userId), inArray(subscriptions.status, ['active', 'scheduled_cancel', 'past_due'])));
      expect(inForce.length).toBeLessThanOrEqual(1);
      const paid = race.slice(1).filter((r) => r.status === 303).length;
      expect(paid).toBeLessThanOrEqual(1);
      const allGrants = await ts.rt.db
        .select()
        .from(creditLedger)
        .where(and(eq(creditLedger.userId, userId), eq(creditLedger.kind, 'grant')));
      expect(allGrants).toHaveLength(1 + paid);
    });
  });

  describe('deleted means gone', () => {
    it('stops serving a deleted generation’s image and thumbnails at once, and removes the files once Undo has lapsed; explore copies stay', async () => {
      const { client } = await ts.signUp({ credits: 30 });
      const make = async () => {
        const res = await client.post('/api/image/generate-image', generationRequestBody());
        expect(res.status).toBe(200);
        const body = await res.json();
        return { id: body.generation.id as string, url: body.images[0].url as string };
      };
      const gone = await make();
      const published = await make();
      const thumbs = (url: string) => [384, 768].map((w) => url.replace('/media/', `/media/thumbs/${w}/`));
      for (const url of [gone.url, ...thumbs(gone.url)]) {
        const res = await client.get(url);
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toBe('public, no-cache');
      }
      const item = await ts.rt.explore.publish(published.id);

      expect((await client.fetch(`/api/library/generations/${gone.id}`, { method: 'DELETE' })).status).toBe(204);
      for (const url of [gone.url, ...thumbs(gone.url)]) {
        expect((await client.get(url)).status, url).toBe(404);
        expect((await fetch(ts.url + url)).status, url).toBe(404);
      }
      expect((await client.get(`/api/download/${gone.id}`)).status).toBe(404);
      // Deleting it twice: 404, nothing else changes.
      expect((await client.fetch(`/api/library/generations/${gone.id}`, { method: 'DELETE' })).status).toBe(404);
      // A published generation deleted: its explore copy is a separate file and stays.
      expect((await client.fetch(`/api/library/generations/${published.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await client.get(published.url)).status).toBe(404);
      expect((await fetch(ts.url + item.image_url)).status).toBe(200);

      const files = withThumbnails(keyFromMediaUrl(gone.url)!);
      const stored = async () => (await Promise.all(files.map((k) => ts.rt.storage.exists(k)))).filter(Boolean).length;
      expect(await stored()).toBe(3);
      // Within the Undo window the files stay (Undo can restore them)…
      await ts.rt.deletedGenerationsPurge.release();
      await ts.rt.deletedGenerationsPurge.runNow();
      expect(await stored()).toBe(3);
      // …and once it has lapsed they are removed: both deletes moved back in time past the window, as the
      // clock would move them (the purge compares deleted_at with the database's now()).
      await ts.rt.db
        .update(generations)
        .set({ deletedAt: sql`now() - make_interval(secs => ${GENERATION_UNDO_SECONDS + 1})` })
        .where(inArray(generations.id, [gone.id, published.id]));
      await ts.rt.deletedGenerationsPurge.release();
      await ts.rt.deletedGenerationsPurge.runNow();
      expect(await stored()).toBe(0);
      const [row] = await ts.rt.db.select().from(generations).where(eq(generations.id, gone.id));
      expect(row).toMatchObject({ status: 'DELETED', filesRemovedAt: expect.any(Date) });
      expect((await fetch(ts.url + item.image_url)).status).toBe(200);
    }, 30_000);
  });
});

describe.runIf(testDatabases().includes('postgres'))('sessions and streams across instances (postgres)', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    scratch = await createScratchDatabase();
    a = await startTestServer({ databaseUrl: scratch.url });
    b = await startTestServer({ databaseUrl: scratch.url });
  }, 120_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await scratch?.drop();
  });

  it('a sign-out and a password change on one instance close streams on the other within 5 s', async () => {
    const { client, email } = await a.signUp();
    const onB = await openStream(b.url, cookieOf(client));
    const start = Date.now();
    expect(
      (
        await a.client().fetch('/api/auth/sign-out', {
          method: 'POST',
          headers: { cookie: client.cookieHeader(), 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(200);
    expect((await endsWithin(onB, 5_000)) - start).toBeLessThan(5_000);

    const second = await signIn(a, email);
    const third = await signIn(a, email);
    const thirdOnB = await openStream(b.url, cookieOf(third));
    expect((await second.post('/api/auth/change-password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(200);
    await endsWithin(thirdOnB, 5_000);
    expect(thirdOnB.events.at(-1)).toBe('signed-out');
  });

  it('refuses a session the other instance remembers within moments of its sign-out here', async () => {
    const { client } = await a.signUp({ credits: 2 * CREDIT_COSTS.generation });
    const cookie = client.cookieHeader();
    const rememberedOnB = () => b.rt.identity.identifyCaller!(new Headers({ cookie }));
    const generateOnB = () =>
      b.client().fetch('/api/image/generate-image', {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify(generationRequestBody()),
      });
    expect((await generateOnB()).status).toBe(200);
    expect(await rememberedOnB()).toBeDefined();

    const signedOutAt = Date.now();
    const signOut = await a
      .client()
      .fetch('/api/auth/sign-out', { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{}' });
    expect(signOut.status).toBe(200);
    while ((await rememberedOnB()) && Date.now() - signedOutAt < 5_000) await new Promise((r) => setTimeout(r, 10));
    expect(Date.now() - signedOutAt).toBeLessThan(5_000);
    expect((await generateOnB()).status).toBe(401);
  });
});

describe('Clerk mode: a stream lives no longer than its token', () => {
  let ts: TestServer;
  const clerk = createClerkTestKeys();
  beforeAll(async () => {
    ts = await startTestServer({ env: { CLERK_JWT_KEY: clerk.publicKeyPem, ALLOWED_ORIGINS: TEST_SPA_ORIGIN } });
  }, 120_000);
  afterAll(() => ts?.stop());

  it('closes at the token’s expiry, and at once when the account is erased', async () => {
    const sub = `user_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const token = await clerk.mint({ sub, email: 'ann@example.com', full_name: 'Ann' }, { expiresIn: 3 });
    expect((await hostedFetch(ts.url, token, '/api/me')).status).toBe(200);
    const headers = { authorization: `Bearer ${token}`, origin: TEST_SPA_ORIGIN };
    const expiring = await openStream(ts.url, headers);
    await endsWithin(expiring, 6_000);
    expect(expiring.events.at(-1)).toBe('signed-out');

    const fresh = await clerk.mint({ sub }, { expiresIn: 60 });
    const stream = await openStream(ts.url, { authorization: `Bearer ${fresh}`, origin: TEST_SPA_ORIGIN });
    const start = Date.now();
    await ts.rt.erasure.eraseByProviderId(sub);
    expect((await endsWithin(stream, 5_000)) - start).toBeLessThan(5_000);
    expect((await hostedFetch(ts.url, fresh, '/api/events')).status).toBe(401);
  });
});
