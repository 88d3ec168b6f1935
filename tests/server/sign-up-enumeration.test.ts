import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { hashPassword, verifyPassword } from 'better-auth/crypto';
import { authUsers, mailOutbox } from '../../server/db/schema.ts';
import { startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

const PASSWORD = 'correct-horse-1';
const newAddress = () => `person-${randomUUID().slice(0, 8)}@example.com`;

/** The password hashing work the server does: better-auth's own scrypt, counted. */
function countedHashing() {
  const calls = { hash: 0, verify: 0 };
  return {
    calls,
    take() {
      const taken = { ...calls };
      calls.hash = 0;
      calls.verify = 0;
      return taken;
    },
    hashing: {
      hash: (password: string) => {
        calls.hash++;
        return hashPassword(password);
      },
      verify: (input: { hash: string; password: string }) => {
        calls.verify++;
        return verifyPassword(input);
      },
    },
  };
}

/**
 * An answer as a visitor sees it: status, body (with what differs by nature, ids, times and the address typed,
 * named) and content type, and how many cookies it sets.
 */
async function seen(res: Response, email: string) {
  const text = await res.text();
  const body = text
    .replaceAll(email, '<email>')
    .replace(/"id":"[^"]+"/g, '"id":"<id>"')
    .replace(/"(createdAt|updatedAt)":"[^"]+"/g, '"$1":"<time>"')
    .replace(/"requestId":"[^"]+"/g, '"requestId":"<request>"');
  return { status: res.status, body, type: res.headers.get('content-type'), cookies: res.headers.getSetCookie().length };
}

describe.each(testDatabases())('sign-up tells nobody whether an address has an account (%s)', (database) => {
  let ts: TestServer;
  const hashing = countedHashing();
  beforeAll(async () => {
    ts = await startTestServer({ database, runtime: { passwordHashing: hashing.hashing, mailPollMs: 100 } });
  }, 180_000);
  afterAll(() => ts?.stop());

  const signUp = (client: TestClient, email: string, password = PASSWORD, name = 'Sam Doe') =>
    client.post('/api/auth/sign-up/email', { email, password, name });
  const signIn = (client: TestClient, email: string, password: string) => client.post('/api/auth/sign-in/email', { email, password });
  const mailTo = async (email: string) => (await ts.rt.mail.outbox!.list()).filter((m) => m.to === email);

  it("answers a new and a taken address alike, signs nobody in, and mails the taken address's owner", async () => {
    const owner = await ts.signUp({ name: 'Owner Person' });
    const fresh = newAddress();
    const attacker = ts.client();
    const forTaken = await seen(await signUp(attacker, owner.email, 'another-strong-pass-77'), owner.email);
    const forNew = await seen(await signUp(attacker, fresh, 'another-strong-pass-77'), fresh);
    expect(forTaken).toEqual(forNew);
    expect(forNew.status).toBe(200);
    expect(forNew.cookies).toBe(0);
    expect((await attacker.get('/api/me')).status).toBe(401);

    // The owner hears of the attempt, with the ways back in; their password is untouched.
    const attempt = await waitFor('the sign-up attempt mail', async () =>
      (await mailTo(owner.email)).find((m) => m.subject === 'Someone tried to sign up with your address'),
    );
    expect(attempt.text).toContain('/sign-in');
    expect(attempt.text).toContain('/forgot-password');
    expect(attempt.text).not.toMatch(/token=/);
    expect((await signIn(ts.client(), owner.email, PASSWORD)).status).toBe(200);
    expect((await signIn(ts.client(), owner.email, 'another-strong-pass-77')).status).toBe(401);
    // One account per address still.
    expect(await ts.rt.db.select().from(authUsers).where(eq(authUsers.email, owner.email))).toHaveLength(1);

    // The new address: not signed in by its password until confirmed, answered exactly as a wrong password is.
    const early = await seen(await signIn(ts.client(), fresh, 'another-strong-pass-77'), fresh);
    const wrong = await seen(await signIn(ts.client(), fresh, 'not-the-password-9'), fresh);
    const stranger = newAddress();
    const unknown = await seen(await signIn(ts.client(), stranger, 'not-the-password-9'), stranger);
    expect(early).toEqual(wrong);
    expect(early).toEqual(unknown);
    expect(early.status).toBe(401);

    // Its confirmation link signs in and leads straight to /app/create-image, not through a page that passes it on.
    const confirmer = ts.client();
    const opened = await confirmer.get(await ts.mailedLink(fresh, '/api/auth/verify-email'));
    expect(opened.status).toBe(302);
    expect(opened.headers.get('location')).toBe('/app/create-image');
    expect((await confirmer.get('/api/me')).status).toBe(200);
    expect((await signIn(ts.client(), fresh, 'another-strong-pass-77')).status).toBe(200);
    // A second click only leads on: it signs nobody in again.
    const again = ts.client();
    expect((await again.get(await ts.mailedLink(fresh, '/api/auth/verify-email'))).status).toBe(302);
    expect((await again.get('/api/me')).status).toBe(401);
  });

  it('does the same password hashing for a new and a taken address, at sign-up, sign-in and reset', async () => {
    const owner = await ts.signUp();
    hashing.take();
    expect((await signUp(ts.client(), newAddress())).status).toBe(200);
    const newSignUp = hashing.take();
    expect((await signUp(ts.client(), owner.email)).status).toBe(200);
    const takenSignUp = hashing.take();
    expect(newSignUp).toEqual({ hash: 1, verify: 0 });
    expect(takenSignUp).toEqual(newSignUp);

    expect((await signIn(ts.client(), newAddress(), 'wrong-password-1')).status).toBe(401);
    const unknownSignIn = hashing.take();
    expect((await signIn(ts.client(), owner.email, 'wrong-password-1')).status).toBe(401);
    const knownSignIn = hashing.take();
    expect(unknownSignIn.hash + unknownSignIn.verify).toBe(1);
    expect(knownSignIn.hash + knownSignIn.verify).toBe(1);

    expect((await ts.client().post('/api/auth/request-password-reset', { email: newAddress() })).status).toBe(200);
    const unknownReset = hashing.take();
    expect((await ts.client().post('/api/auth/request-password-reset', { email: owner.email })).status).toBe(200);
    expect(hashing.take()).toEqual(unknownReset);
  });

  it("resends a new account's confirmation on request, and a reset link confirms the address too", async () => {
    const email = newAddress();
    expect((await signUp(ts.client(), email)).status).toBe(200);
    await ts.mailedLink(email, '/api/auth/verify-email');
    const resent = await ts.client().post('/api/auth/send-verification-email', { email, callbackURL: '/verify-email' });
    expect(resent.status).toBe(200);
    await waitFor(
      'a second confirmation',
      async () => (await mailTo(email)).filter((m) => m.subject === 'Confirm your e-mail address').length === 2,
    );
    const second = (await mailTo(email))[0];
    expect(second.text).toContain(encodeURIComponent('/verify-email?next=%2Fapp%2Fcreate-image'));

    // Someone else made an account with this address and never confirmed it: the owner's reset takes it over.
    const reset = await ts.client().post('/api/auth/request-password-reset', { email });
    expect(reset.status).toBe(200);
    const link = await ts.mailedLink(email, '/api/auth/reset-password/');
    const token = link.split('/').pop()!.split('?')[0];
    const visitor = ts.client();
    expect((await visitor.post('/api/auth/reset-password', { token, newPassword: 'owners-own-password-42' })).status).toBe(200);
    expect((await signIn(ts.client(), email, PASSWORD)).status).toBe(401);
    expect((await signIn(ts.client(), email, 'owners-own-password-42')).status).toBe(200);
  });
});

describe('a sign-up flood across many addresses', () => {
  let ts: TestServer;
  const LIMIT = 4;
  beforeAll(async () => {
    ts = await startTestServer({ env: { SIGN_UP_RATE_LIMIT: String(LIMIT), AUTH_RATE_LIMIT: '3' }, runtime: { mailPollMs: 100 } });
  }, 180_000);
  afterAll(() => ts?.stop());

  it('is held by the per-address sign-up limit: past it, nothing is made and nothing is mailed', async () => {
    const owner = await ts.signUp();
    const before = await ts.rt.db.select().from(authUsers);
    const mailBefore = await ts.rt.db.select().from(mailOutbox);
    const caller = ts.client();
    const statuses = [];
    const addresses = [owner.email, ...Array.from({ length: LIMIT + 3 }, newAddress)];
    for (const email of addresses) {
      const res = await caller.post('/api/auth/sign-up/email', { email, password: PASSWORD, name: 'Flood' });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        expect((await res.json()).message).toMatch(/^Too many sign-up attempts from your network\. Please try again in \d+ minutes?\.$/);
      }
    }
    // The test server's own sign-up (ts.signUp) counted one for this loopback address.
    expect(statuses).toEqual([...Array(LIMIT - 1).fill(200), ...Array(addresses.length - LIMIT + 1).fill(429)]);
    const made = (await ts.rt.db.select().from(authUsers)).length - before.length;
    expect(made).toBe(LIMIT - 2); // the taken address made nothing
    const mailed = (await ts.rt.db.select().from(mailOutbox)).length - mailBefore.length;
    expect(mailed).toBe(LIMIT - 1); // one confirmation each, and one attempt notice to the owner
  });
});
