import { randomUUID } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditLedger, subscriptions } from '../../server/db/schema.ts';
import { creemEnv, startFakeCreem, type FakeCreem } from '../fakes/creem-server.ts';
import { createClerkTestKeys, createClerkWebhookSecret, hostedFetch, TEST_SPA_ORIGIN } from '../helpers/clerk.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import { startTestServer, testDatabases, type TestServer } from '../helpers/server.ts';

const EVIL = 'https://evil.example';
const generation = generationRequestBody({ prompt: 'a red bicycle against a blue wall' });

/** Every call the hosted SPA makes to the server (product §7; lists and realtime go to Supabase). */
const SPA_CALLS: [method: string, path: string][] = [
  ['POST', '/api/image/generate-image'],
  ['POST', '/api/image/fast-caption'],
  ['POST', '/api/image/detail-caption'],
  ['POST', '/api/upload'],
  ['POST', '/api/image/submit-lora-training'],
  ['POST', '/api/billing/checkout'],
  ['POST', '/api/billing/portal'],
  ['GET', `/api/download/${randomUUID()}`],
  ['POST', `/api/library/generations/${randomUUID()}/restore`],
  ['POST', `/api/trainings/${randomUUID()}/restore`],
  ['POST', '/api/library/selection'],
  ['GET', '/api/me'],
  ['GET', '/media/generations/x/y.jpeg'],
];

const preflight = (url: string, origin: string, method: string) =>
  fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' },
  });

describe.each(testDatabases())('hosted SPA on another origin (%s)', (database) => {
  const clerk = createClerkTestKeys();
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({
      database,
      // An https origin makes the server public: the sandbox checkout these tests use runs there only on purpose.
      env: {
        CLERK_JWT_KEY: clerk.publicKeyPem,
        ALLOWED_ORIGINS: `${TEST_SPA_ORIGIN},https://app.likeness.example`,
        SANDBOX_PAYMENTS: 'allow',
      },
    });
  });
  afterAll(() => ts?.stop());

  it("answers the SPA's preflights for every call it makes, without allowing credentials", async () => {
    for (const [method, path] of SPA_CALLS) {
      const res = await preflight(ts.url + path, TEST_SPA_ORIGIN, method);
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe(TEST_SPA_ORIGIN);
      expect(res.headers.get('access-control-allow-methods')).toContain(method);
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.get('vary')).toContain('Origin');
    }
    // A second allowed origin is answered as itself.
    const other = await preflight(`${ts.url}/api/image/generate-image`, 'https://app.likeness.example', 'POST');
    expect(other.headers.get('access-control-allow-origin')).toBe('https://app.likeness.example');
  });

  it('refuses preflights from other origins, and their requests are neither readable nor carried out', async () => {
    for (const [method, path] of SPA_CALLS) {
      const res = await preflight(ts.url + path, EVIL, method);
      expect(res.status, path).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(await res.json()).toMatchObject({ code: 'bad_origin' });
    }
    const token = await clerk.mint();
    const me = await (await hostedFetch(ts.url, token, '/api/me')).json();
    await ts.rt.credits.grant(me.id, 10, 'test grant', `test:${randomUUID()}`);
    // A simple GET goes through, but the browser may not show it to the other origin.
    const read = await hostedFetch(ts.url, token, '/api/me', { headers: { origin: EVIL } });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    // A state-changing call is refused outright: nothing charged.
    const ledger = (await ts.rt.db.select({ n: count() }).from(creditLedger))[0].n;
    const forged = await hostedFetch(ts.url, token, '/api/image/generate-image', {
      method: 'POST',
      json: generation,
      headers: { origin: EVIL },
    });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toMatchObject({ code: 'bad_origin' });
    expect((await ts.rt.db.select({ n: count() }).from(creditLedger))[0].n).toBe(ledger);
    expect(await ts.rt.credits.balance(me.id)).toBe(10);
  });

  it('makes answers readable to the SPA, errors included, and lets it read a download’s name', async () => {
    const anonymous = await hostedFetch(ts.url, null, '/api/image/generate-image', { method: 'POST', json: generation });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('access-control-allow-origin')).toBe(TEST_SPA_ORIGIN);

    const token = await clerk.mint();
    const me = await (await hostedFetch(ts.url, token, '/api/me')).json();
    await ts.rt.credits.grant(me.id, 10, 'test grant', `test:${randomUUID()}`);
    const made = await hostedFetch(ts.url, token, '/api/image/generate-image', { method: 'POST', json: generation });
    expect(made.status).toBe(200);
    expect(made.headers.get('access-control-allow-origin')).toBe(TEST_SPA_ORIGIN);
    const { images, generation: saved } = await made.json();

    const image = await fetch(ts.url + images[0].url, { headers: { origin: TEST_SPA_ORIGIN } });
    expect(image.status).toBe(200);
    expect(image.headers.get('access-control-allow-origin')).toBe(TEST_SPA_ORIGIN);

    const download = await hostedFetch(ts.url, token, `/api/download/${saved.id}`);
    expect(download.status).toBe(200);
    expect(download.headers.get('access-control-allow-origin')).toBe(TEST_SPA_ORIGIN);
    expect(download.headers.get('access-control-expose-headers')).toContain('Content-Disposition');
    expect(download.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    expect(download.headers.get('x-request-id')).toBeTruthy();
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="likeness-\d+\.jpeg"$/);
  });

  it('sends the payer back to the SPA after the sandbox checkout, which works without the SPA’s token', async () => {
    const token = await clerk.mint({ email: 'payer@example.com', email_verified: true });
    const me = await (await hostedFetch(ts.url, token, '/api/me')).json();
    const started = await hostedFetch(ts.url, token, '/api/billing/checkout', {
      method: 'POST',
      json: { plan: 'STANDARD', userId: me.id, email: 'payer@example.com' },
    });
    expect(started.status).toBe(200);
    const { checkout_url } = await started.json();
    // The test payment page is the server's own; the browser arrives there with no token at all.
    expect(checkout_url).toMatch(new RegExp(`^${ts.url}/sandbox/checkout/`));
    const page = await fetch(checkout_url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Subscribe to Standard');
    expect(html).toContain(`href="${TEST_SPA_ORIGIN}/app/subscription?checkout=cancelled">Cancel`);

    const pay = await fetch(`${checkout_url}/pay`, { method: 'POST', headers: { origin: ts.url }, redirect: 'manual' });
    expect(pay.status).toBe(303);
    expect(pay.headers.get('location')).toBe(`${TEST_SPA_ORIGIN}/app/subscription?checkout=success`);
    const after = await (await hostedFetch(ts.url, token, '/api/me')).json();
    expect(after).toMatchObject({ credits: 4500, subscription_status: 'active', subscription_plan: 'STANDARD' });

    // A link that is not one of the sandbox's own pays nothing.
    const forged = await fetch(`${checkout_url.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A'))}/pay`, {
      method: 'POST',
      headers: { origin: ts.url },
      redirect: 'manual',
    });
    expect(forged.status).toBe(404);

    // The portal link carries its own short-lived access, and leads back to the SPA.
    const portal = await hostedFetch(ts.url, token, '/api/billing/portal', {
      method: 'POST',
      json: { customer_id: after.creem_customer_id },
    });
    expect(portal.status).toBe(200);
    const { customer_portal_link } = await portal.json();
    expect(customer_portal_link).toMatch(new RegExp(`^${ts.url}/sandbox/portal/${after.creem_customer_id}\\?access=`));
    const portalPage = await fetch(customer_portal_link);
    expect(portalPage.status).toBe(200);
    const portalHtml = await portalPage.text();
    expect(portalHtml).toContain(`href="${TEST_SPA_ORIGIN}/app/subscription">Return to Likeness`);
    const access = new URL(customer_portal_link).search;
    expect(portalHtml).toContain(`/cancel${access.replace(/&/g, '&amp;')}"`);
    const cancel = await fetch(`${ts.url}/sandbox/portal/${after.creem_customer_id}/cancel${access}`, {
      method: 'POST',
      headers: { origin: ts.url },
      redirect: 'manual',
    });
    expect(cancel.status).toBe(303);
    expect(cancel.headers.get('location')).toBe(`/sandbox/portal/${after.creem_customer_id}${access}&done=canceled`);
    // Cancelled at the end of the paid period (the Terms): still in force until then.
    const [sub] = await ts.rt.db.select().from(subscriptions).where(eq(subscriptions.userId, me.id));
    expect(sub.status).toBe('scheduled_cancel');

    // Without the access, or with another customer's, the portal shows nothing and changes nothing.
    expect((await fetch(`${ts.url}/sandbox/portal/${after.creem_customer_id}`)).status).toBe(403);
    expect((await fetch(`${ts.url}/sandbox/portal/cust_sbx_other${access}`)).status).toBe(403);
    expect(
      (
        await fetch(`${ts.url}/sandbox/portal/${after.creem_customer_id}/renew`, {
          method: 'POST',
          headers: { origin: ts.url },
          redirect: 'manual',
        })
      ).status,
    ).toBe(403);
  });
});

describe('Creem checkout from a hosted SPA', () => {
  const clerk = createClerkTestKeys();
  const apiKey = 'creem_test_hosted';
  const products = { BASIC: 'prod_b', STANDARD: 'prod_s', PROFESSIONAL: 'prod_p' };
  let creem: FakeCreem;
  let ts: TestServer;
  beforeAll(async () => {
    creem = await startFakeCreem({ apiKey, products: Object.values(products) });
    ts = await startTestServer({
      env: {
        CLERK_JWT_KEY: clerk.publicKeyPem,
        ALLOWED_ORIGINS: TEST_SPA_ORIGIN,
        ...creemEnv({ url: creem.url, apiKey, webhookSecret: 'creem-webhook-secret', products }),
        CLERK_WEBHOOK_SIGNING_SECRET: createClerkWebhookSecret(),
      },
    });
  });
  afterAll(async () => {
    await ts?.stop();
    await creem?.stop();
  });

  it("gives Creem the SPA's address to return to", async () => {
    // The checkout's address is the one Clerk verified (the token's email claim with email_verified), never the body's.
    const token = await clerk.mint({ email: 'c@example.com', email_verified: true });
    const me = await (await hostedFetch(ts.url, token, '/api/me')).json();
    const res = await hostedFetch(ts.url, token, '/api/billing/checkout', {
      method: 'POST',
      json: { plan: 'BASIC', userId: me.id, email: 'c@example.com' },
    });
    expect(res.status).toBe(200);
    expect(creem.checkouts.at(-1)).toMatchObject({
      success_url: `${TEST_SPA_ORIGIN}/app/subscription?checkout=success`,
      customer: { email: 'c@example.com' },
      metadata: { userId: me.id },
    });
  });
});

describe('local mode stays same-origin', () => {
  it('answers no CORS and keeps refusing cross-site writes', async () => {
    const ts = await startTestServer();
    try {
      const res = await preflight(`${ts.url}/api/image/generate-image`, TEST_SPA_ORIGIN, 'POST');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      const { client } = await ts.signUp();
      const write = await client.post('/api/me/sync', undefined, { origin: TEST_SPA_ORIGIN });
      expect(write.status).toBe(403);
      expect(write.headers.get('access-control-allow-origin')).toBeNull();
      expect((await client.get('/api/me')).headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await ts.stop();
    }
  });
});
