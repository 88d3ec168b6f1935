import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authUsers, creditLedger, rateLimits, userPublicMeta, users } from '../../server/db/schema.ts';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { INVALID_PUBLISHABLE_KEY } from '../../common/identity-key.ts';
import {
  clerkUserJson,
  createClerkTestKeys,
  hostedFetch,
  newClerkUserId,
  TEST_PUBLISHABLE_KEY,
  TEST_SECRET_KEY,
  TEST_SPA_ORIGIN,
} from '../helpers/clerk.ts';
import { startFakeClerkBackendApi, type FakeClerkBackendApi } from '../fakes/clerk-backend-api.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import { startTestServer, testDatabases, type TestServer } from '../helpers/server.ts';

const generation = generationRequestBody();

describe('Clerk configuration', () => {
  it('chooses Clerk when CLERK_SECRET_KEY or CLERK_JWT_KEY is set, local accounts otherwise', () => {
    const keys = createClerkTestKeys();
    expect(loadConfig({}).clerk).toBeUndefined();
    const byJwtKey = loadConfig({ CLERK_JWT_KEY: keys.publicKeyPem, ALLOWED_ORIGINS: TEST_SPA_ORIGIN });
    expect(byJwtKey.clerk).toMatchObject({ jwtKey: keys.publicKeyPem.trim(), authorizedParties: [TEST_SPA_ORIGIN] });
    const bySecret = loadConfig({ CLERK_SECRET_KEY: TEST_SECRET_KEY, PUBLIC_URL: 'https://likeness.example/', SANDBOX_PAYMENTS: 'allow' });
    expect(bySecret.clerk).toMatchObject({
      secretKey: TEST_SECRET_KEY,
      authorizedParties: ['https://likeness.example'],
      apiUrl: 'https://api.clerk.com',
    });
    // A one-line PEM with literal \n (as many hosts store it) is read as the key.
    const oneLine = loadConfig({ CLERK_JWT_KEY: keys.publicKeyPem.replace(/\n/g, '\\n'), CLERK_AUTHORIZED_PARTIES: TEST_SPA_ORIGIN });
    expect(oneLine.clerk?.jwtKey).toBe(keys.publicKeyPem.trim());
  });

  it('fails start with the spec message when the publishable key has no test or live prefix', () => {
    for (const bad of ['pk_prod_abc', 'sk_test_abc', 'pk_test_', 'nonsense']) {
      const attempt = () => loadConfig({ CLERK_PUBLISHABLE_KEY: bad, CLERK_SECRET_KEY: TEST_SECRET_KEY, ALLOWED_ORIGINS: TEST_SPA_ORIGIN });
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(`CLERK_PUBLISHABLE_KEY: ${INVALID_PUBLISHABLE_KEY}`);
    }
    expect(INVALID_PUBLISHABLE_KEY).toBe('Invalid identity provider publishable key format');
    expect(
      loadConfig({ CLERK_PUBLISHABLE_KEY: TEST_PUBLISHABLE_KEY, CLERK_SECRET_KEY: TEST_SECRET_KEY, ALLOWED_ORIGINS: TEST_SPA_ORIGIN }).clerk
        ?.publishableKey,
    ).toBe(TEST_PUBLISHABLE_KEY);
    expect(
      loadConfig({
        CLERK_PUBLISHABLE_KEY: 'pk_live_Y2xlcmsuZXhhbXBsZS5jb20k',
        CLERK_SECRET_KEY: 'sk_live_x',
        ALLOWED_ORIGINS: TEST_SPA_ORIGIN,
      }).clerk,
    ).toBeDefined();
  });

  it('stops the real server at start with that message (exit 78), before opening anything', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      env: {
        PATH: process.env.PATH,
        CLERK_PUBLISHABLE_KEY: 'pk_prod_bad',
        CLERK_SECRET_KEY: TEST_SECRET_KEY,
        ALLOWED_ORIGINS: TEST_SPA_ORIGIN,
        DATA_DIR: '/nonexistent/likeness',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(78);
    expect(stderr).toContain(`CLERK_PUBLISHABLE_KEY: ${INVALID_PUBLISHABLE_KEY}`);
  });

  it('names the variable when the rest of the Clerk configuration is wrong', () => {
    expect(() => loadConfig({ CLERK_SECRET_KEY: TEST_SECRET_KEY })).toThrow(/CLERK_AUTHORIZED_PARTIES: required/);
    expect(() => loadConfig({ CLERK_JWT_KEY: 'not a pem', ALLOWED_ORIGINS: TEST_SPA_ORIGIN })).toThrow(
      /CLERK_JWT_KEY: must be the PEM public key/,
    );
    expect(() => loadConfig({ CLERK_SECRET_KEY: TEST_SECRET_KEY, ALLOWED_ORIGINS: 'https://app.example.com/path' })).toThrow(
      /ALLOWED_ORIGINS: "https:\/\/app.example.com\/path" is not an origin/,
    );
    expect(() =>
      loadConfig({ CLERK_SECRET_KEY: TEST_SECRET_KEY, ALLOWED_ORIGINS: TEST_SPA_ORIGIN, CLERK_WEBHOOK_SIGNING_SECRET: 'abc' }),
    ).toThrow(/CLERK_WEBHOOK_SIGNING_SECRET: must start with whsec_/);
    // Local mode keeps its cookies same-origin: cross-origin settings without Clerk are a mistake, said so.
    expect(() => loadConfig({ ALLOWED_ORIGINS: TEST_SPA_ORIGIN })).toThrow(/ALLOWED_ORIGINS: takes effect only with Clerk/);
  });
});

describe.each(testDatabases())('Clerk sign-in (%s)', (database) => {
  const clerk = createClerkTestKeys();
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database, env: { CLERK_JWT_KEY: clerk.publicKeyPem, ALLOWED_ORIGINS: TEST_SPA_ORIGIN } });
  });
  afterAll(() => ts?.stop());

  const call = (token: string | null, path: string, init: RequestInit & { json?: unknown } = {}) => hostedFetch(ts.url, token, path, init);
  const userCount = async () => (await ts.rt.db.select({ n: count() }).from(users))[0].n;
  const ledgerCount = async () => (await ts.rt.db.select({ n: count() }).from(creditLedger))[0].n;

  it('signs in with a valid session token: the first call creates the users row from the claims, with 0 credits', async () => {
    const sub = newClerkUserId();
    const token = await clerk.mint({ sub, email: 'ada@example.com', full_name: 'Ada Lovelace', image_url: 'https://img.example/ada.png' });
    const res = await call(token, '/api/me');
    expect(res.status).toBe(200);
    const me = await res.json();
    expect(me).toMatchObject({
      clerk_id: sub,
      email: 'ada@example.com',
      full_name: 'Ada Lovelace',
      credits: 0,
      image_url: 'https://img.example/ada.png',
    });
    const [meta] = await ts.rt.db.select().from(userPublicMeta).where(eq(userPublicMeta.userId, me.id));
    expect(meta).toMatchObject({ credits: 0 });
    // Later calls find the row; they neither duplicate nor rewrite it.
    expect((await call(await clerk.mint({ sub, email: 'other@example.com' }), '/api/me')).status).toBe(200);
    const rows = await ts.rt.db.select().from(users).where(eq(users.clerkId, sub));
    expect(rows).toHaveLength(1);
    expect(rows[0].email).toBe('ada@example.com');
  });

  it('refuses missing, garbled, expired, not-yet-valid, forged, tampered and wrong-party tokens with 401 JSON, writing nothing', async () => {
    const other = createClerkTestKeys();
    const sub = newClerkUserId();
    const good = await clerk.mint({ sub });
    const [header, payload, signature] = good.split('.');
    const tamperedPayload = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'user_someone_else' }),
    ).toString('base64url');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    const refused: [string, Record<string, string>][] = [
      ['no Authorization header', {}],
      ['an empty bearer', { authorization: 'Bearer ' }],
      ['another scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
      ['not a JWT', { authorization: 'Bearer not-a-token' }],
      ['garbage in three parts', { authorization: 'Bearer aaa.bbb.ccc' }],
      ['a huge header', { authorization: `Bearer ${'x'.repeat(8_000)}` }],
      ['an unsigned token', { authorization: `Bearer ${unsigned}` }],
      ['an expired token', { authorization: `Bearer ${await clerk.mint({ sub }, { expiresIn: -30 })}` }],
      ['a token not valid yet', { authorization: `Bearer ${await clerk.mint({ sub }, { notBefore: 60 })}` }],
      ['a token issued in the future', { authorization: `Bearer ${await clerk.mint({ sub }, { issuedAt: 60, notBefore: 0 })}` }],
      ['a token signed with another key', { authorization: `Bearer ${await other.mint({ sub })}` }],
      ['a tampered token', { authorization: `Bearer ${header}.${tamperedPayload}.${signature}` }],
      ['a token for another app (azp)', { authorization: `Bearer ${await clerk.mint({ sub, azp: 'https://evil.example' })}` }],
      ['a token without azp', { authorization: `Bearer ${await clerk.mint({ sub }, { omit: ['azp'] })}` }],
      ['a token without a session', { authorization: `Bearer ${await clerk.mint({ sub }, { omit: ['sid'] })}` }],
      ['a pending session', { authorization: `Bearer ${await clerk.mint({ sub, sts: 'pending' })}` }],
    ];
    const usersBefore = await userCount();
    const ledgerBefore = await ledgerCount();
    for (const [what, headers] of refused) {
      for (const [method, path, json] of [
        ['GET', '/api/me', undefined],
        ['POST', '/api/me/sync', undefined],
        ['POST', '/api/image/generate-image', generation],
      ] as const) {
        const res = await hostedFetch(ts.url, null, path, { method, headers, json });
        expect(res.status, `${what}: ${method} ${path}`).toBe(401);
        expect(await res.json(), what).toMatchObject({ code: 'unauthorized', message: expect.any(String) });
      }
    }
    expect(await userCount()).toBe(usersBefore);
    expect(await ledgerCount()).toBe(ledgerBefore);
    // The same token unaltered is fine: what failed above was the token, not the account.
    expect((await call(good, '/api/me')).status).toBe(200);
  });

  it('forgives a few seconds of clock difference, not more', async () => {
    expect((await call(await clerk.mint({}, { expiresIn: -2 }), '/api/me')).status).toBe(200);
    expect((await call(await clerk.mint({}, { expiresIn: -20 }), '/api/me')).status).toBe(401);
  });

  it("answers 404 on the built-in accounts' routes and writes nothing there", async () => {
    const rateBefore = (await ts.rt.db.select({ n: count() }).from(rateLimits))[0].n;
    for (const path of ['/api/auth/sign-up/email', '/api/auth/sign-in/email', '/api/auth/get-session']) {
      const res = await hostedFetch(ts.url, null, path, {
        method: path.endsWith('session') ? 'GET' : 'POST',
        json: path.endsWith('session') ? undefined : { email: 'x@example.com', password: 'correct-horse-1', name: 'X' },
      });
      expect(res.status, path).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'not_found' });
    }
    expect(await ts.rt.db.select().from(authUsers)).toEqual([]);
    expect((await ts.rt.db.select({ n: count() }).from(rateLimits))[0].n).toBe(rateBefore);
  });

  it('keeps every paid rule: no credits, no image; with credits, one image costs 10', async () => {
    const token = await clerk.mint();
    const me = await (await call(token, '/api/me')).json();
    const refused = await call(token, '/api/image/generate-image', { method: 'POST', json: generation });
    expect(refused.status).toBe(402);
    expect(await refused.json()).toMatchObject({ code: 'insufficient_credits' });
    await ts.rt.credits.grant(me.id, 15, 'test grant', `test:${randomUUID()}`);
    const made = await call(token, '/api/image/generate-image', { method: 'POST', json: generation });
    expect(made.status).toBe(200);
    expect((await made.json()).images).toHaveLength(1);
    expect(await ts.rt.credits.balance(me.id)).toBe(5);
    expect(await ts.rt.credits.ledgerSum(me.id)).toBe(5);
  });

  it("creates one row when first calls and the SPA's own user sync insert the same person at once", async () => {
    for (let round = 0; round < 5; round++) {
      const sub = newClerkUserId();
      const token = await clerk.mint({ sub, email: `race-${round}@example.com`, full_name: 'Race Case' });
      // The hosted SPA's sync (product §4) inserts through PostgREST as the RLS policy allows it: clerk_id,
      // email, full_name, credits 0, leaving an existing row alone.
      const spaInsert = () =>
        ts.rt.db.execute(
          sql`insert into users (clerk_id, email, full_name, credits) values (${sub}, ${`race-${round}@example.com`}, 'Race Case', 0) on conflict (clerk_id) do nothing`,
        );
      const results = await Promise.all([
        call(token, '/api/me'),
        spaInsert(),
        call(token, '/api/me/sync', { method: 'POST' }),
        spaInsert(),
        call(token, '/api/me'),
      ]);
      for (const res of results) if (res instanceof Response) expect(res.status).toBe(200);
      const rows = await ts.rt.db.select().from(users).where(eq(users.clerkId, sub));
      expect(rows).toHaveLength(1);
      const metas = await ts.rt.db.select().from(userPublicMeta).where(eq(userPublicMeta.userId, rows[0].id));
      expect(metas).toHaveLength(1);
    }
  });

  it("refuses a deleted account's still-valid token and never re-creates its row", async () => {
    const sub = newClerkUserId();
    const token = await clerk.mint({ sub, email: 'gone@example.com', full_name: 'Gone Soon' });
    const me = await (await call(token, '/api/me')).json();
    await ts.rt.erasure.eraseByProviderId(sub);
    for (const [method, path] of [
      ['GET', '/api/me'],
      ['POST', '/api/me/sync'],
      ['POST', '/api/image/generate-image'],
    ] as const) {
      const res = await call(token, path, { method, json: method === 'POST' && path.includes('generate') ? generation : undefined });
      expect(res.status, path).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'account_deleted', message: 'This account has been deleted.' });
    }
    const rows = await ts.rt.db.select().from(users).where(eq(users.clerkId, sub));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: me.id, email: null, fullName: null, erasedAt: expect.any(Date) });

    // Deleted in Clerk before ever reaching the server: the token still cannot create the account.
    const never = newClerkUserId();
    await ts.rt.erasure.eraseByProviderId(never);
    expect((await call(await clerk.mint({ sub: never, email: 'never@example.com' }), '/api/me')).status).toBe(401);
    const tomb = await ts.rt.db.select().from(users).where(eq(users.clerkId, never));
    expect(tomb).toEqual([expect.objectContaining({ email: null, credits: 0, erasedAt: expect.any(Date) })]);
  });
});

describe("Clerk's Backend API (JWKS and profiles)", () => {
  const clerk = createClerkTestKeys();
  let api: FakeClerkBackendApi;
  let ts: TestServer;
  beforeAll(async () => {
    api = await startFakeClerkBackendApi({ secretKey: TEST_SECRET_KEY, jwks: [clerk.jwk] });
    // No CLERK_JWT_KEY: tokens are checked against the keys Clerk serves for the secret key.
    ts = await startTestServer({
      env: {
        CLERK_SECRET_KEY: TEST_SECRET_KEY,
        CLERK_API_URL: api.url,
        CLERK_PUBLISHABLE_KEY: TEST_PUBLISHABLE_KEY,
        ALLOWED_ORIGINS: TEST_SPA_ORIGIN,
      },
    });
  });
  afterAll(async () => {
    await ts?.stop();
    await api?.stop();
  });

  const call = (token: string, path: string, init: RequestInit = {}) => hostedFetch(ts.url, token, path, init);
  const usersCalls = () => api.requests.filter((p) => p.startsWith('/v1/users/')).length;

  it('verifies tokens against the JWKS for the secret key, and refuses one signed by a key it does not list', async () => {
    expect((await call(await clerk.mint(), '/api/me')).status).toBe(200);
    expect(api.requests).toContain('/v1/jwks');
    const stranger = createClerkTestKeys();
    expect((await call(await stranger.mint(), '/api/me')).status).toBe(401);
  });

  it('answers 503, not 401, while the signing keys cannot be loaded, and writes nothing', async () => {
    api.breakJwks(true);
    try {
      const before = (await ts.rt.db.select({ n: count() }).from(users))[0].n;
      // A key id it has not cached yet makes it ask Clerk again.
      const res = await call(await createClerkTestKeys().mint(), '/api/me');
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: 'identity_unavailable' });
      expect((await ts.rt.db.select({ n: count() }).from(users))[0].n).toBe(before);
    } finally {
      api.breakJwks(false);
    }
  });

  it('reads the profile from the Backend API when the token carries none, once per person, and caches it', async () => {
    const sub = newClerkUserId();
    api.addUser(clerkUserJson({ id: sub, email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper' }));
    const before = usersCalls();
    // Several first calls at once: one row, one Backend API read.
    const token = await clerk.mint({ sub });
    const answers = await Promise.all([1, 2, 3, 4].map(() => call(token, '/api/me')));
    for (const res of answers) expect(res.status).toBe(200);
    expect(usersCalls() - before).toBe(1);
    const [row] = await ts.rt.db.select().from(users).where(eq(users.clerkId, sub));
    expect(row).toMatchObject({ email: 'grace@example.com', fullName: 'Grace Hopper', credits: 0 });
    // Known accounts need no profile: later calls do not ask Clerk.
    await call(await clerk.mint({ sub }), '/api/generations');
    expect(usersCalls() - before).toBe(1);
    // A sync fills what the token lacks from the cache, without asking again.
    const synced = await (await call(await clerk.mint({ sub }), '/api/me/sync', { method: 'POST' })).json();
    expect(synced).toMatchObject({ email: 'grace@example.com', full_name: 'Grace Hopper' });
    expect(usersCalls() - before).toBe(1);
  });

  it('takes the claims over the Backend API, and asks only for what the token lacks', async () => {
    const sub = newClerkUserId();
    api.addUser(clerkUserJson({ id: sub, email: 'api@example.com', firstName: 'From', lastName: 'Api' }));
    const before = usersCalls();
    const me = await (await call(await clerk.mint({ sub, email: 'claim@example.com', full_name: 'From Claims' }), '/api/me')).json();
    expect(me).toMatchObject({ email: 'claim@example.com', full_name: 'From Claims' });
    expect(usersCalls()).toBe(before);
    const partial = newClerkUserId();
    api.addUser(clerkUserJson({ id: partial, email: 'api2@example.com', firstName: 'Api', lastName: 'Name' }));
    const mixed = await (await call(await clerk.mint({ sub: partial, email: 'claim2@example.com' }), '/api/me')).json();
    expect(mixed).toMatchObject({ email: 'claim2@example.com', full_name: 'Api Name' });
  });

  it('creates the account without a profile while the Backend API rate-limits, and waits as told before asking again', async () => {
    api.rateLimit(1, 120);
    const first = newClerkUserId();
    api.addUser(clerkUserJson({ id: first, email: 'first@example.com' }));
    const before = usersCalls();
    const res = await call(await clerk.mint({ sub: first }), '/api/me');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ clerk_id: first, email: null, credits: 0 });
    expect(usersCalls() - before).toBe(1);
    // Within Retry-After nobody asks Clerk; accounts are still created.
    const second = newClerkUserId();
    api.addUser(clerkUserJson({ id: second, email: 'second@example.com' }));
    expect((await call(await clerk.mint({ sub: second }), '/api/me')).status).toBe(200);
    expect(usersCalls() - before).toBe(1);
    // A later user.created or the SPA's sync fills the details in; the row was never blocked on them.
    const [row] = await ts.rt.db.select().from(users).where(eq(users.clerkId, second));
    expect(row.email).toBeNull();
  });
});
