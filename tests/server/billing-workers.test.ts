import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BILLING_REFUSALS, CHECKOUT_EMAIL_MESSAGE } from '@common/billing.ts';
import { creemEnv, creemSubscription, signedWebhook, startFakeCreem, type FakeCreem } from '../fakes/creem-server.ts';
import { startSupabaseFakes, type SupabaseFakes } from '../fakes/supabase-stack.ts';
import { createClerkTestKeys, createClerkWebhookSecret, hostedFetch, newClerkUserId, TEST_SPA_ORIGIN } from '../helpers/clerk.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createSupabaseDatabase, type SupabaseTestDatabase } from '../helpers/supabase-db.ts';
import { startWorker, type RunningWorker, type WorkerName } from '../helpers/workers.ts';

/**
 * The Cloudflare checkout and portal workers (workers/), built by wrangler and run in workerd (Miniflare), against
 * the project's fakes on loopback: Supabase's PostgREST over a Supabase-shaped database (read with the secret key),
 * Creem (whose checkout page pays and delivers signed webhooks), and our server in Clerk + Creem mode on the same
 * database, which receives those webhooks. Tokens are signed by this run's Clerk key.
 */
const clerk = createClerkTestKeys();
const apiKey = 'creem_test_workers';
const webhookSecret = 'creem-webhook-secret-workers';
const products = { BASIC: 'prod_wb', STANDARD: 'prod_ws', PROFESSIONAL: 'prod_wp' };
const EVIL = 'https://evil.example';

let db: SupabaseTestDatabase;
let supabase: SupabaseFakes;
let creem: FakeCreem;
let ts: TestServer;
let checkout: RunningWorker;
let portal: RunningWorker;
const webhook = { url: '', secret: webhookSecret };
const extra: RunningWorker[] = [];

/** The variables and secrets a worker is deployed with (wrangler.toml), pointed at this run's fakes. */
function bindings(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    ALLOWED_ORIGINS: TEST_SPA_ORIGIN,
    CLERK_JWT_KEY: clerk.publicKeyPem,
    SUPABASE_URL: supabase.url,
    SUPABASE_SERVICE_ROLE_KEY: supabase.serviceKey,
    CREEM_API_KEY: apiKey,
    CREEM_SERVER_URL: creem.url,
    CREEM_TIMEOUT_SECONDS: '5',
    CREEM_PRODUCT_BASIC: products.BASIC,
    CREEM_PRODUCT_STANDARD: products.STANDARD,
    CREEM_PRODUCT_PROFESSIONAL: products.PROFESSIONAL,
    ...overrides,
  };
}

async function anotherWorker(name: WorkerName, overrides: Record<string, string>): Promise<RunningWorker> {
  const worker = await startWorker(name, bindings(overrides));
  extra.push(worker);
  return worker;
}

/** A POST as the hosted SPA sends it: JSON, its origin, the session token (none when null). */
function post(worker: RunningWorker, token: string | null, body: unknown, headers: Record<string, string> = {}) {
  return fetch(worker.url, {
    method: 'POST',
    headers: {
      origin: TEST_SPA_ORIGIN,
      'content-type': 'application/json',
      accept: 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A person signed in with Clerk, whose users row exists (made by our server on their first call, as in hosted mode). */
async function person(opts: { verified?: boolean } = {}) {
  const sub = newClerkUserId();
  const email = `${sub.slice(5, 13)}@example.com`;
  const token = () => clerk.mint({ sub, email, ...(opts.verified === false ? {} : { email_verified: true }) });
  const res = await hostedFetch(ts.url, await token(), '/api/me');
  expect(res.status).toBe(200);
  const me = (await res.json()) as { id: string };
  return { sub, email, id: me.id, token };
}

async function me(token: string) {
  return (await (await hostedFetch(ts.url, token, '/api/me')).json()) as {
    credits: number;
    subscription_status: string | null;
    subscription_plan: string | null;
    creem_customer_id: string | null;
  };
}

/** Pays a checkout on the fake Creem's page, as a browser would: the fake delivers the webhooks to our server. */
async function pay(checkoutUrl: string) {
  const page = await fetch(checkoutUrl);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('>Pay</button>');
  const res = await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
  expect(res.status).toBe(303);
  return { location: res.headers.get('location'), payment: creem.payments.at(-1)! };
}

beforeAll(async () => {
  db = await createSupabaseDatabase();
  supabase = await startSupabaseFakes({ databaseUrl: db.url, jwtKey: clerk.publicKeyPem });
  creem = await startFakeCreem({ apiKey, products: Object.values(products), webhook });
  ts = await startTestServer({
    databaseUrl: db.url,
    env: {
      CLERK_JWT_KEY: clerk.publicKeyPem,
      ALLOWED_ORIGINS: TEST_SPA_ORIGIN,
      ...creemEnv({ url: creem.url, apiKey, webhookSecret, products }),
      CLERK_WEBHOOK_SIGNING_SECRET: createClerkWebhookSecret(),
    },
  });
  webhook.url = `${ts.url}/api/webhooks/creem`;
  [checkout, portal] = await Promise.all([startWorker('checkout', bindings()), startWorker('portal', bindings())]);
}, 120_000);

afterAll(async () => {
  await Promise.all([checkout, portal, ...extra].map((w) => w?.stop()));
  await ts?.stop();
  await creem?.stop();
  await supabase?.stop();
  await db?.drop();
});

describe('checkout worker', () => {
  it("buys a plan with the token's verified address and the account's own id, never the body's, granted once by the server's webhook", async () => {
    const a = await person();
    const before = creem.checkouts.length;
    const res = await post(checkout, await a.token(), { plan: 'STANDARD', userId: a.id, email: 'someone-else@example.com' });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(TEST_SPA_ORIGIN);
    const { checkout_url } = (await res.json()) as { checkout_url: string };
    expect(checkout_url).toMatch(new RegExp(`^${creem.url}/test/checkout/${products.STANDARD}/ch_`));
    expect(creem.checkouts).toHaveLength(before + 1);
    const sent = creem.checkouts.at(-1)!;
    expect(sent).toEqual({
      product_id: products.STANDARD,
      request_id: expect.stringMatching(/^chk_[0-9a-f-]{36}$/),
      customer: { email: a.email },
      success_url: `${TEST_SPA_ORIGIN}/app/subscription?checkout=success`,
      metadata: { userId: a.id, plan: 'STANDARD' },
    });

    // Creem's page: checkout.completed, subscription.paid and a retried checkout.completed reach our server.
    const { location, payment } = await pay(checkout_url);
    expect(location).toBe(`${TEST_SPA_ORIGIN}/app/subscription?checkout=success`);
    expect(payment.deliveries).toEqual([
      { type: 'checkout.completed', status: 200 },
      { type: 'subscription.paid', status: 200 },
      { type: 'checkout.completed', status: 200 },
    ]);
    expect(await me(await a.token())).toMatchObject({
      credits: 4500,
      subscription_status: 'active',
      subscription_plan: 'STANDARD',
      creem_customer_id: payment.customerId,
    });

    // A plan the person already has is refused before Creem is asked.
    const again = await post(checkout, await a.token(), { plan: 'PROFESSIONAL', userId: a.id, email: a.email });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ code: 'already_subscribed', message: BILLING_REFUSALS.alreadySubscribed.message });
    expect(creem.checkouts).toHaveLength(before + 1);

    // The portal worker opens this customer's portal, and only theirs.
    const link = await post(portal, await a.token(), { customer_id: payment.customerId });
    expect(link.status).toBe(200);
    expect(((await link.json()) as { customer_portal_link: string }).customer_portal_link).toMatch(
      new RegExp(`^${creem.url}/my-orders/login/`),
    );
    expect(creem.portalRequests.at(-1)).toEqual({ customer_id: payment.customerId });
    const b = await person();
    const portalsBefore = creem.portalRequests.length;
    const theirs = await post(portal, await b.token(), { customer_id: payment.customerId });
    expect(theirs.status).toBe(403);
    expect(await theirs.json()).toEqual({ code: 'forbidden', message: BILLING_REFUSALS.notYourCustomer.message });
    expect(creem.portalRequests).toHaveLength(portalsBefore);
  });

  it('refuses a missing, forged, expired, not-yet-valid, other-origin or pending-session token, as our server does', async () => {
    const a = await person();
    const body = { plan: 'BASIC', userId: a.id, email: a.email };
    const claims = { sub: a.sub, email: a.email, email_verified: true };
    const tokens: Record<string, string | null> = {
      none: null,
      'not a JWS': 'not-a-token',
      forged: await createClerkTestKeys().mint(claims),
      expired: await clerk.mint(claims, { expiresIn: -30 }),
      'not yet valid': await clerk.mint(claims, { notBefore: 60, issuedAt: 60 }),
      'another origin': await clerk.mint({ ...claims, azp: EVIL }),
      'pending session': await clerk.mint({ ...claims, sts: 'pending' }),
      'no session id': await clerk.mint(claims, { omit: ['sid'] }),
    };
    const before = creem.checkouts.length;
    for (const [what, token] of Object.entries(tokens)) {
      const res = await post(
        checkout,
        token === 'not-a-token' ? null : token,
        body,
        token === 'not-a-token' ? { authorization: 'Bearer x.y' } : {},
      );
      expect(res.status, what).toBe(401);
      expect(await res.json(), what).toEqual({ code: 'unauthorized', message: 'Please sign in to continue.' });
      const server = await hostedFetch(ts.url, token === 'not-a-token' ? null : token, '/api/billing/checkout', {
        method: 'POST',
        json: body,
        ...(token === 'not-a-token' ? { headers: { authorization: 'Bearer x.y' } } : {}),
      });
      expect(server.status, `our server, ${what}`).toBe(401);
      const refused = await post(portal, token, { customer_id: 'cust_anything' });
      expect(refused.status, `portal, ${what}`).toBe(401);
    }
    expect(creem.checkouts).toHaveLength(before);
  });

  it("refuses a body naming another account, and bad input, with the server's answers and nothing sent to Creem", async () => {
    const a = await person();
    const b = await person();
    const unverified = await person({ verified: false });
    const before = creem.checkouts.length;
    const cases: [string, RunningWorker, string | null, unknown, number, { code: string; message: unknown }][] = [
      [
        "another person's userId",
        checkout,
        await b.token(),
        { plan: 'BASIC', userId: a.id, email: a.email },
        403,
        BILLING_REFUSALS.notYourAccount,
      ],
      ['not JSON', checkout, await a.token(), '{"plan":', 400, { code: 'invalid_json', message: 'body: must be valid JSON' }],
      ['a list', checkout, await a.token(), [], 400, { code: 'invalid_input', message: expect.stringMatching(/^body: /) }],
      ['no plan', checkout, await a.token(), { userId: a.id }, 400, { code: 'invalid_input', message: expect.stringMatching(/^plan: /) }],
      ['an unknown plan', checkout, await a.token(), { plan: 'GOLD', userId: a.id, email: a.email }, 400, BILLING_REFUSALS.unknownPlan],
      [
        'a malformed e-mail',
        checkout,
        await a.token(),
        { plan: 'BASIC', userId: a.id, email: 'nope' },
        400,
        BILLING_REFUSALS.emailRequired,
      ],
      [
        'an address Clerk has not verified',
        checkout,
        await unverified.token(),
        { plan: 'BASIC', userId: unverified.id, email: unverified.email },
        400,
        { code: 'email_required', message: CHECKOUT_EMAIL_MESSAGE },
      ],
      [
        'a body too large',
        checkout,
        await a.token(),
        { plan: 'BASIC', userId: a.id, pad: 'x'.repeat(20_000) },
        413,
        { code: 'payload_too_large', message: 'The request is too large.' },
      ],
      [
        'portal: no customer id',
        portal,
        await a.token(),
        {},
        400,
        { code: 'invalid_input', message: expect.stringMatching(/^customer_id: /) },
      ],
      ['portal: without a subscription', portal, await a.token(), { customer_id: 'cust_guess' }, 403, BILLING_REFUSALS.notYourCustomer],
    ];
    for (const [what, worker, token, body, status, answer] of cases) {
      const res = await post(worker, token, body);
      expect(res.status, what).toBe(status);
      expect(await res.json(), what).toEqual({ code: answer.code, message: answer.message });
    }
    expect(creem.checkouts).toHaveLength(before);
    const get = await fetch(checkout.url, { headers: { origin: TEST_SPA_ORIGIN } });
    expect(get.status).toBe(405);
  });

  it('answers CORS for the configured origins only, and refuses a POST from any other', async () => {
    const a = await person();
    for (const worker of [checkout, portal]) {
      const ok = await fetch(worker.url, {
        method: 'OPTIONS',
        headers: {
          origin: TEST_SPA_ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      });
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe(TEST_SPA_ORIGIN);
      expect(ok.headers.get('access-control-allow-methods')).toBe('POST');
      expect(ok.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type');
      expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
      const evil = await fetch(worker.url, { method: 'OPTIONS', headers: { origin: EVIL, 'access-control-request-method': 'POST' } });
      expect(evil.status).toBe(403);
      expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    }
    const before = creem.checkouts.length;
    const evil = await post(checkout, await a.token(), { plan: 'BASIC', userId: a.id, email: a.email }, { origin: EVIL });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    expect(await evil.json()).toEqual({ code: 'bad_origin', message: 'Cross-site request refused.' });
    expect(creem.checkouts).toHaveLength(before);
    // A refusal to the SPA's own origin is readable by it (the SPA shows its status).
    const refused = await post(checkout, null, {});
    expect(refused.headers.get('access-control-allow-origin')).toBe(TEST_SPA_ORIGIN);
  });

  it('answers Creem down with a 502 and Creem slow with a 504 after CREEM_TIMEOUT_SECONDS, saying so, with nothing charged', async () => {
    const a = await person();
    const body = { plan: 'BASIC', userId: a.id, email: a.email };
    const closed = await unusedPort();
    const down = await anotherWorker('checkout', { CREEM_SERVER_URL: `http://127.0.0.1:${closed}` });
    const res = await post(down, await a.token(), body);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ code: 'payment_provider', message: BILLING_REFUSALS.checkoutFailed.message });
    expect(down.logs.join('\n')).toContain('Creem call failed');

    const hanging = await silentServer();
    try {
      const slow = await anotherWorker('checkout', { CREEM_SERVER_URL: hanging.url, CREEM_TIMEOUT_SECONDS: '1' });
      const started = Date.now();
      const late = await post(slow, await a.token(), body);
      expect(late.status).toBe(504);
      expect(await late.json()).toEqual({
        code: 'payment_provider_timeout',
        message: 'The payment provider did not answer in time. Please try again.',
      });
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(hanging.requests()).toBe(1);
      const slowPortal = await anotherWorker('portal', { CREEM_SERVER_URL: hanging.url, CREEM_TIMEOUT_SECONDS: '1' });
      expect((await post(slowPortal, await a.token(), { customer_id: 'cust_x' })).status).toBe(403);
    } finally {
      await hanging.stop();
    }
    expect(await me(await a.token())).toMatchObject({ credits: 0, subscription_status: null });
  });

  it('answers 503 when Supabase cannot be reached or the worker is not configured, naming the variables in its log only', async () => {
    const a = await person();
    const noSupabase = await anotherWorker('checkout', { SUPABASE_URL: `http://127.0.0.1:${await unusedPort()}` });
    const res = await post(noSupabase, await a.token(), { plan: 'BASIC', userId: a.id, email: a.email });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      code: 'unavailable',
      message: 'Your account could not be checked right now. Please try again in a moment.',
    });
    const wrongKey = await anotherWorker('portal', { SUPABASE_SERVICE_ROLE_KEY: 'sb_secret_wrong' });
    expect((await post(wrongKey, await a.token(), { customer_id: 'cust_x' })).status).toBe(503);
    expect(wrongKey.logs.join('\n')).toContain('Supabase answered 401');

    const unconfigured = await anotherWorker('checkout', { CREEM_API_KEY: '', CREEM_PRODUCT_GOLD: 'x', CREEM_PRODUCT_BASIC: '' });
    const answer = await post(unconfigured, await a.token(), { plan: 'BASIC', userId: a.id });
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({ code: 'not_configured', message: 'This service is not configured yet. Please try again later.' });
    const log = unconfigured.logs.join('\n');
    expect(log).toContain('CREEM_API_KEY: required');
    expect(log).toContain('CREEM_PRODUCT_BASIC: required');
  });
});

describe('portal worker', () => {
  it('opens the portal only while the subscription is active, for the customer of the caller’s own row', async () => {
    const a = await person();
    const res = await post(checkout, await a.token(), { plan: 'BASIC', userId: a.id, email: a.email });
    const { payment } = await pay(((await res.json()) as { checkout_url: string }).checkout_url);
    expect((await post(portal, await a.token(), { customer_id: payment.customerId })).status).toBe(200);

    // Creem says the subscription ended: the account is on the Free Plan, and its portal is refused.
    const canceled = signedWebhook(
      webhookSecret,
      'subscription.canceled',
      creemSubscription({
        id: payment.subscriptionId,
        productId: products.BASIC,
        customerId: payment.customerId,
        userId: a.id,
        status: 'canceled',
        periodStart: new Date(),
        canceledAt: new Date(),
      }),
    );
    expect((await fetch(`${ts.url}/api/webhooks/creem`, { method: 'POST', headers: canceled.headers, body: canceled.body })).status).toBe(
      200,
    );
    const before = creem.portalRequests.length;
    const refused = await post(portal, await a.token(), { customer_id: payment.customerId });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({ code: 'not_subscribed', message: BILLING_REFUSALS.notSubscribed.message });
    expect(creem.portalRequests).toHaveLength(before);
  });

  it('answers a Creem failure with the server’s portal message', async () => {
    const a = await person();
    const res = await post(checkout, await a.token(), { plan: 'BASIC', userId: a.id, email: a.email });
    const { payment } = await pay(((await res.json()) as { checkout_url: string }).checkout_url);
    const down = await anotherWorker('portal', { CREEM_SERVER_URL: `http://127.0.0.1:${await unusedPort()}` });
    const failed = await post(down, await a.token(), { customer_id: payment.customerId });
    expect(failed.status).toBe(502);
    expect(await failed.json()).toEqual({ code: 'payment_provider', message: BILLING_REFUSALS.portalFailed.message });
  });
});

/** A loopback port nothing listens on (bound, then released). */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A server that takes requests and never answers them: Creem hanging. */
async function silentServer(): Promise<{ url: string; requests(): number; stop(): Promise<void> }> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer(() => {
    count++;
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
