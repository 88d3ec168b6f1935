/**
 * In Clerk mode the server keeps the address Clerk verified (users.verified_email) and trusts
 * nothing else: not the users.email the hosted SPA writes (a display copy anyone can set to anyone's
 * address). Real Clerk-shaped tokens and Svix-signed webhooks, Clerk's Backend API as a fake on loopback.
 */
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_EMAIL_MESSAGE } from '@common/billing.ts';
import { generations, users } from '../../server/db/schema.ts';
import { usersRepository } from '../../server/repositories/users.repository.ts';
import { recipientAddress } from '../../server/services/mail.service.ts';
import { startFakeClerkBackendApi, type FakeClerkBackendApi } from '../fakes/clerk-backend-api.ts';
import { admin } from '../helpers/admin.ts';
import {
  clerkEvent,
  clerkUserJson,
  createClerkTestKeys,
  createClerkWebhookSecret,
  hostedFetch,
  newClerkUserId,
  signClerkWebhook,
  TEST_SECRET_KEY,
  TEST_SPA_ORIGIN,
} from '../helpers/clerk.ts';
import { startTestServer, testDatabases, type TestServer } from '../helpers/server.ts';

describe.each(testDatabases())('the verified address in Clerk mode (%s)', (database) => {
  const clerk = createClerkTestKeys();
  const secret = createClerkWebhookSecret();
  let api: FakeClerkBackendApi;
  let ts: TestServer;
  beforeAll(async () => {
    api = await startFakeClerkBackendApi({ secretKey: TEST_SECRET_KEY, jwks: [clerk.jwk] });
    ts = await startTestServer({
      database,
      env: {
        CLERK_JWT_KEY: clerk.publicKeyPem,
        CLERK_SECRET_KEY: TEST_SECRET_KEY,
        CLERK_API_URL: api.url,
        CLERK_WEBHOOK_SIGNING_SECRET: secret,
        ALLOWED_ORIGINS: TEST_SPA_ORIGIN,
      },
    });
  });
  afterAll(async () => {
    await ts?.stop();
    await api?.stop();
  });

  const call = async (claims: Record<string, unknown>, path = '/api/me', init: RequestInit & { json?: unknown } = {}) =>
    hostedFetch(ts.url, await clerk.mint(claims), path, init);
  const rowOf = async (clerkId: string) => (await ts.rt.db.select().from(users).where(eq(users.clerkId, clerkId)))[0];
  const deliver = (type: string, data: unknown) => {
    const d = signClerkWebhook(secret, clerkEvent(type, data));
    return fetch(`${ts.url}/api/webhooks/clerk`, { method: 'POST', body: d.body, headers: d.headers });
  };
  /** What the hosted SPA may do to its own row (product §7; supabase-rls.test.ts proves RLS lets it). */
  const browserWritesEmail = (clerkId: string, email: string) => ts.rt.db.update(users).set({ email }).where(eq(users.clerkId, clerkId));

  it('takes the address from the session token’s verified email claim, and ignores what the browser writes into users.email', async () => {
    const victim = newClerkUserId();
    const attacker = newClerkUserId();
    expect((await call({ sub: victim, email: 'victim@example.com', email_verified: true })).status).toBe(200);
    expect((await call({ sub: attacker, email: 'attacker@example.com', email_verified: true })).status).toBe(200);
    // The attacker's browser puts the victim's address into its own row (its column privileges allow that).
    await browserWritesEmail(attacker, 'victim@example.com');
    const [a, v] = [await rowOf(attacker), await rowOf(victim)];
    expect(a).toMatchObject({ email: 'victim@example.com', verifiedEmail: 'attacker@example.com' });
    expect(await usersRepository.verifiedEmailOf(ts.rt.db, a.id)).toBe('attacker@example.com');
    expect(await usersRepository.verifiedEmailOf(ts.rt.db, v.id)).toBe('victim@example.com');
    // An erasure request for the victim's address finds the victim only.
    expect((await usersRepository.accountsByVerifiedEmail(ts.rt.db, 'VICTIM@example.com')).map((x) => x.id)).toEqual([v.id]);
    // A later token's claim (Clerk changed the primary address) refreshes it on the next call, without the API.
    const before = api.requests.length;
    expect((await call({ sub: attacker, email: 'attacker.new@example.com', email_verified: true })).status).toBe(200);
    expect((await rowOf(attacker)).verifiedEmail).toBe('attacker.new@example.com');
    expect(api.requests.length).toBe(before);
  });

  it('an email claim alone is not a verified address: stored as the display copy only, its mail waits, checkout is refused', async () => {
    // Clerk's primary address may be unverified (an import, a sign-up whose code was never entered); the Backend
    // API says so, and a token without `email_verified: true` does not say otherwise.
    const bare = newClerkUserId();
    api.addUser(clerkUserJson({ id: bare, email: 'typed.at.signup@example.com', emailVerified: false }));
    expect((await call({ sub: bare, email: 'typed.at.signup@example.com' })).status).toBe(200);
    const row = await rowOf(bare);
    expect(row).toMatchObject({ email: 'typed.at.signup@example.com', verifiedEmail: null });
    expect(await usersRepository.verifiedEmailOf(ts.rt.db, row.id)).toBeNull();
    expect(await recipientAddress(ts.rt.db, row.id)).toEqual({ wait: 'no verified address known for this person yet' });
    const checkout = await call({ sub: bare, email: 'typed.at.signup@example.com' }, '/api/billing/checkout', {
      method: 'POST',
      json: { plan: 'BASIC', userId: row.id, email: 'typed.at.signup@example.com' },
    });
    expect(checkout.status).toBe(400);
    expect(await checkout.json()).toMatchObject({ code: 'email_required' });

    // `email_verified: false` says so without asking the Backend API, and takes back an address verified before.
    const said = newClerkUserId();
    expect((await call({ sub: said, email: 'said@example.com', email_verified: true })).status).toBe(200);
    expect((await rowOf(said)).verifiedEmail).toBe('said@example.com');
    const before = api.requests.length;
    expect((await call({ sub: said, email: 'said.new@example.com', email_verified: false })).status).toBe(200);
    expect(await rowOf(said)).toMatchObject({ email: 'said@example.com', verifiedEmail: null });
    expect(api.requests.length).toBe(before);
    // Only a boolean true verifies (a template that forgot the shortcode's type, or a typo, does not).
    const stringy = newClerkUserId();
    api.addUser(clerkUserJson({ id: stringy, email: 'stringy@example.com', emailVerified: false }));
    expect((await call({ sub: stringy, email: 'stringy@example.com', email_verified: 'true' })).status).toBe(200);
    expect((await rowOf(stringy)).verifiedEmail).toBeNull();

    // The claim alone, with the Backend API saying verified: the Backend API's word counts.
    const apiSays = newClerkUserId();
    api.addUser(clerkUserJson({ id: apiSays, email: 'grace.h@example.com' }));
    expect((await call({ sub: apiSays, email: 'grace.h@example.com' })).status).toBe(200);
    expect((await rowOf(apiSays)).verifiedEmail).toBe('grace.h@example.com');
  });

  it('reads the Backend API when the token has no email claim, and keeps only a verified primary address', async () => {
    const verified = newClerkUserId();
    const unverified = newClerkUserId();
    api.addUser(clerkUserJson({ id: verified, email: 'grace@example.com', firstName: 'Grace' }));
    api.addUser(clerkUserJson({ id: unverified, email: 'typed@example.com', emailVerified: false }));
    expect((await call({ sub: verified })).status).toBe(200);
    expect((await call({ sub: unverified })).status).toBe(200);
    expect(await rowOf(verified)).toMatchObject({ email: 'grace@example.com', verifiedEmail: 'grace@example.com' });
    expect(await rowOf(unverified)).toMatchObject({ email: 'typed@example.com', verifiedEmail: null });
    expect(await usersRepository.verifiedEmailOf(ts.rt.db, (await rowOf(unverified)).id)).toBeNull();
  });

  it('with the Backend API down and no claim, leaves the address unknown and breaks nothing; user.updated fills it in', async () => {
    const sub = newClerkUserId();
    api.addUser(clerkUserJson({ id: sub, email: 'ada@example.com' }));
    api.breakUsers(true);
    try {
      const first = await call({ sub });
      expect(first.status).toBe(200);
      const again = await call({ sub }, '/api/generations');
      expect(again.status).toBe(200);
    } finally {
      api.breakUsers(false);
    }
    const row = await rowOf(sub);
    expect(row.verifiedEmail).toBeNull();
    expect(await usersRepository.verifiedEmailOf(ts.rt.db, row.id)).toBeNull();
    // A checkout without an address in the body cannot fall back on an address nobody verified.
    await browserWritesEmail(sub, 'typed.by.browser@example.com');
    const checkout = await call({ sub }, '/api/billing/checkout', { method: 'POST', json: { plan: 'BASIC', userId: row.id } });
    expect(checkout.status).toBe(400);
    expect(await checkout.json()).toMatchObject({ message: CHECKOUT_EMAIL_MESSAGE, code: 'email_required' });

    // Clerk's user.updated brings the verified address (and refreshes it again later; an unverified one clears it).
    expect((await deliver('user.updated', clerkUserJson({ id: sub, email: 'ada@example.com', firstName: 'Ada' }))).status).toBe(200);
    expect(await rowOf(sub)).toMatchObject({ verifiedEmail: 'ada@example.com', email: 'ada@example.com', fullName: 'Ada' });
    const withBody = await call({ sub }, '/api/billing/checkout', { method: 'POST', json: { plan: 'BASIC', userId: row.id } });
    expect(withBody.status).toBe(200);
    expect((await deliver('user.updated', clerkUserJson({ id: sub, email: 'ada.lovelace@example.com' }))).status).toBe(200);
    expect((await rowOf(sub)).verifiedEmail).toBe('ada.lovelace@example.com');
    expect((await deliver('user.updated', clerkUserJson({ id: sub, email: 'not.yet@example.com', emailVerified: false }))).status).toBe(
      200,
    );
    expect((await rowOf(sub)).verifiedEmail).toBeNull();
  });

  it('user.created records the verified address of someone who never called; erasure clears it', async () => {
    const sub = newClerkUserId();
    expect((await deliver('user.created', clerkUserJson({ id: sub, email: 'new@example.com' }))).status).toBe(200);
    const row = await rowOf(sub);
    expect(row.verifiedEmail).toBe('new@example.com');
    expect((await ts.rt.erasure.eraseSelected({ email: 'new@example.com' })).outcome).toBe('erased');
    expect(await rowOf(sub)).toMatchObject({ verifiedEmail: null, email: null, erasedAt: expect.any(Date) });
    expect(await usersRepository.verifiedEmailOf(ts.rt.db, row.id)).toBeNull();
    // A late user.updated does not bring the address back.
    expect((await deliver('user.updated', clerkUserJson({ id: sub, email: 'new@example.com' }))).status).toBe(200);
    expect((await rowOf(sub)).verifiedEmail).toBeNull();
  });

  it('erases exactly one account: by verified address, refusing two, or by --id / --clerk-id (service)', async () => {
    const [one, two] = [newClerkUserId(), newClerkUserId()];
    for (const sub of [one, two]) expect((await call({ sub, email: `${sub}@example.com`, email_verified: true })).status).toBe(200);
    // Two rows with one verified address (e.g. an account deleted in Clerk whose user.deleted never arrived).
    await ts.rt.db
      .update(users)
      .set({ verifiedEmail: 'shared@example.com' })
      .where(inArray(users.clerkId, [one, two]));
    const ambiguous = await ts.rt.erasure.eraseSelected({ email: 'Shared@Example.com' });
    expect(ambiguous.outcome).toBe('ambiguous');
    expect(ambiguous.outcome === 'ambiguous' && ambiguous.accounts.map((a) => a.clerkId).sort()).toEqual([one, two].sort());
    expect((await rowOf(one)).erasedAt).toBeNull();
    expect((await rowOf(two)).erasedAt).toBeNull();

    expect(await ts.rt.erasure.eraseSelected({ email: 'nobody@example.com' })).toEqual({ outcome: 'none' });
    expect(await ts.rt.erasure.eraseSelected({ id: 'not-a-uuid' })).toEqual({ outcome: 'none' });
    expect(await ts.rt.erasure.eraseSelected({ clerkId: 'user_unknown' })).toEqual({ outcome: 'none' });

    const byId = await ts.rt.erasure.eraseSelected({ id: (await rowOf(one)).id });
    expect(byId).toMatchObject({ outcome: 'erased', account: { clerkId: one, kind: 'clerk' } });
    expect((await rowOf(two)).erasedAt).toBeNull();
    const byClerkId = await ts.rt.erasure.eraseSelected({ clerkId: two });
    expect(byClerkId).toMatchObject({ outcome: 'erased', account: { clerkId: two } });
    expect(await ts.rt.erasure.eraseSelected({ email: 'shared@example.com' })).toEqual({ outcome: 'none' });
  });
});

describe('admin users erase: three selectors and a refusal (postgres, next to a live server)', () => {
  const clerk = createClerkTestKeys();
  let ts: TestServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    ts = await startTestServer({ database: 'postgres', env: { CLERK_JWT_KEY: clerk.publicKeyPem, ALLOWED_ORIGINS: TEST_SPA_ORIGIN } });
    env = { DATABASE_URL: ts.rt.config.DATABASE_URL!, AUTH_SECRET: ts.rt.config.AUTH_SECRET!, DATA_DIR: ts.dataDir };
  });
  afterAll(() => ts?.stop());

  const person = async (email: string) => {
    const sub = newClerkUserId();
    expect((await hostedFetch(ts.url, await clerk.mint({ sub, email, email_verified: true }), '/api/me')).status).toBe(200);
    return (await ts.rt.db.select().from(users).where(eq(users.clerkId, sub)))[0];
  };

  it('refuses an address two accounts share, listing them; erases by --id and --clerk-id; says when nothing matches', async () => {
    const a = await person('twin@example.com');
    const b = await person('twin.b@example.com');
    await ts.rt.db.update(users).set({ verifiedEmail: 'twin@example.com' }).where(eq(users.id, b.id));
    // Someone's browser wrote the twin address into its own display copy: it is not a match.
    const c = await person('bystander@example.com');
    await ts.rt.db.update(users).set({ email: 'twin@example.com' }).where(eq(users.id, c.id));
    await ts.rt.db
      .insert(generations)
      .values({ userId: a.id, prompt: 'p', width: 512, height: 512, imageUrl: `/media/generations/${a.id}/x.jpeg` });

    const refused = await admin(env, 'users', 'erase', 'twin@example.com');
    expect(refused.code).toBe(65);
    expect(refused.out).toBe('');
    expect(refused.err).toContain(
      '2 accounts have the verified address twin@example.com. Nothing was removed. Erase one of them by its id:',
    );
    expect(refused.err).toContain(`  ${a.id}  Clerk user ${a.clerkId}, verified address twin@example.com, since `);
    expect(refused.err).toContain(`  ${b.id}  Clerk user ${b.clerkId}, verified address twin@example.com, since `);
    expect(refused.err).toContain(`(npm run admin -- users erase --id ${b.id})`);
    expect(refused.err).not.toContain(c.id);
    const rows = await ts.rt.db
      .select({ id: users.id, erasedAt: users.erasedAt })
      .from(users)
      .where(inArray(users.id, [a.id, b.id, c.id]));
    expect(rows.every((r) => r.erasedAt === null)).toBe(true);
    expect(await ts.rt.db.select().from(generations).where(eq(generations.userId, a.id))).toHaveLength(1);

    const byId = await admin(env, 'users', 'erase', '--id', a.id);
    expect(byId.code).toBe(0);
    expect(byId.out).toContain(`Erased the account ${a.id} (Clerk user ${a.clerkId}, verified address twin@example.com, since `);
    expect(byId.out).toMatch(/ 1 generation\n/);
    expect((await hostedFetch(ts.url, await clerk.mint({ sub: a.clerkId }), '/api/me')).status).toBe(401);

    // Now one account has the address: the e-mail form works again.
    const byEmail = await admin(env, 'users', 'erase', 'TWIN@example.com');
    expect(byEmail.code).toBe(0);
    expect(byEmail.out).toContain(`Erased the account ${b.id} (TWIN@example.com). Removed:`);

    const byClerkId = await admin(env, 'users', 'erase', '--clerk-id', c.clerkId);
    expect(byClerkId.code).toBe(0);
    expect(byClerkId.out).toContain(`Erased the account ${c.id} (Clerk user ${c.clerkId}, verified address bystander@example.com`);

    expect(await admin(env, 'users', 'erase', 'twin@example.com')).toEqual({
      code: 0,
      out: 'No account has the verified address twin@example.com (already erased, never signed up, or the address was never verified). Nothing was removed.',
      err: '',
    });
    expect((await admin(env, 'users', 'erase', '--clerk-id', 'user_nobody')).out).toBe(
      'No account has the Clerk user id user_nobody. Nothing was removed.',
    );
    const unknownId = '6f1f7c1e-0000-4000-8000-00000000000a';
    expect((await admin(env, 'users', 'erase', '--id', unknownId)).out).toBe(`No account has the id ${unknownId}. Nothing was removed.`);
    const badId = await admin(env, 'users', 'erase', '--id', 'someone@example.com');
    expect(badId.code).toBe(64);
    expect(badId.err).toContain('--id takes a users.id (a UUID such as 6f1f7c1e-0000-4000-8000-00000000000a), not "someone@example.com".');
    expect((await admin(env, 'users', 'erase', '--id')).code).toBe(64);
    expect((await admin(env, 'users', 'erase', 'a@example.com', 'b@example.com')).code).toBe(64);
  }, 90_000);
});
