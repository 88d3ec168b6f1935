import { randomBytes, randomUUID } from 'node:crypto';
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentEvents, users } from '../../server/db/schema.ts';
import {
  clerkEvent,
  clerkUserJson,
  createClerkTestKeys,
  createClerkWebhookSecret,
  hostedFetch,
  newClerkUserId,
  signClerkWebhook,
  TEST_SPA_ORIGIN,
} from '../helpers/clerk.ts';
import { creemEnv, creemSubscription, signedWebhook, startFakeCreem, type FakeCreem } from '../fakes/creem-server.ts';
import { startTestServer, testDatabases, type TestServer } from '../helpers/server.ts';

describe.each(testDatabases())('Clerk webhooks (%s)', (database) => {
  const clerk = createClerkTestKeys();
  const secret = createClerkWebhookSecret();
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({
      database,
      env: { CLERK_JWT_KEY: clerk.publicKeyPem, ALLOWED_ORIGINS: TEST_SPA_ORIGIN, CLERK_WEBHOOK_SIGNING_SECRET: secret },
    });
  });
  afterAll(() => ts?.stop());

  const deliver = (delivery: { body: string; headers: Record<string, string> }) =>
    fetch(`${ts.url}/api/webhooks/clerk`, { method: 'POST', body: delivery.body, headers: delivery.headers });
  const rowOf = async (clerkId: string) => (await ts.rt.db.select().from(users).where(eq(users.clerkId, clerkId)))[0];
  const recorded = async () => (await ts.rt.db.select({ n: count() }).from(paymentEvents).where(eq(paymentEvents.provider, 'clerk')))[0].n;
  const userCount = async () => (await ts.rt.db.select({ n: count() }).from(users))[0].n;

  it('user.created and user.updated write the email and full name; each delivery counts once', async () => {
    const id = newClerkUserId();
    const created = signClerkWebhook(
      secret,
      clerkEvent('user.created', clerkUserJson({ id, email: 'mae@example.com', firstName: 'Mae', lastName: 'Jemison' })),
    );
    const res = await deliver(created);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, outcome: 'processed' });
    expect(await rowOf(id)).toMatchObject({ email: 'mae@example.com', fullName: 'Mae Jemison', credits: 0 });

    const updated = signClerkWebhook(
      secret,
      clerkEvent('user.updated', clerkUserJson({ id, email: 'mae.j@example.com', firstName: 'Mae C.', lastName: 'Jemison' })),
    );
    expect(await (await deliver(updated)).json()).toMatchObject({ outcome: 'processed' });
    const after = await rowOf(id);
    expect(after).toMatchObject({ email: 'mae.j@example.com', fullName: 'Mae C. Jemison' });

    // Svix retries the same message: acknowledged, nothing changes, even were its body different.
    expect(await (await deliver(created)).json()).toEqual({ received: true, outcome: 'duplicate' });
    const sameIdOtherBody = signClerkWebhook(secret, clerkEvent('user.updated', clerkUserJson({ id, email: 'replayed@example.com' })), {
      id: updated.id,
    });
    expect(await (await deliver(sameIdOtherBody)).json()).toMatchObject({ outcome: 'duplicate' });
    expect(await rowOf(id)).toEqual(after);
    // The record of a delivery keeps no personal data.
    const [record] = await ts.rt.db
      .select()
      .from(paymentEvents)
      .where(and(eq(paymentEvents.provider, 'clerk'), eq(paymentEvents.eventId, created.id)));
    expect(record).toMatchObject({ eventType: 'user.created', payload: null });
  });

  it('applies two copies of one delivery arriving together once', async () => {
    const id = newClerkUserId();
    const delivery = signClerkWebhook(secret, clerkEvent('user.created', clerkUserJson({ id, email: 'twice@example.com' })));
    const answers = await Promise.all([deliver(delivery), deliver(delivery), deliver(delivery)]);
    for (const res of answers) expect(res.status).toBe(200);
    expect(await ts.rt.db.select().from(users).where(eq(users.clerkId, id))).toHaveLength(1);
  });

  it('refuses bad signatures, other secrets, tampered bodies, stale or future timestamps and missing headers with 401, writing nothing', async () => {
    const id = newClerkUserId();
    const event = clerkEvent('user.created', clerkUserJson({ id, email: 'forged@example.com' }));
    const genuine = signClerkWebhook(secret, event);
    const refused: [string, { body: string; headers: Record<string, string> }][] = [
      ['another secret', signClerkWebhook(createClerkWebhookSecret(), event)],
      ['a tampered body', { ...genuine, body: genuine.body.replace('forged@example.com', 'evil@example.com') }],
      ['a garbled signature', { ...genuine, headers: { ...genuine.headers, 'svix-signature': 'v1,AAAA' } }],
      ['a 10-minute-old timestamp', signClerkWebhook(secret, event, { timestamp: new Date(Date.now() - 10 * 60_000) })],
      ['a timestamp 10 minutes ahead', signClerkWebhook(secret, event, { timestamp: new Date(Date.now() + 10 * 60_000) })],
      ['no svix headers', { body: genuine.body, headers: { 'content-type': 'application/json' } }],
      ['no signature header', { body: genuine.body, headers: { ...genuine.headers, 'svix-signature': '' } }],
    ];
    const before = { users: await userCount(), events: await recorded() };
    for (const [what, delivery] of refused) {
      const res = await deliver(delivery);
      expect(res.status, what).toBe(401);
      expect(await res.json(), what).toMatchObject({ code: 'unauthorized', message: 'Invalid webhook signature.' });
    }
    expect(await userCount()).toBe(before.users);
    expect(await recorded()).toBe(before.events);
    expect(await rowOf(id)).toBeUndefined();
  });

  it('answers a signed body that is not a Clerk event with a clear 400, never a 500, writing nothing', async () => {
    const before = { users: await userCount(), events: await recorded() };
    const bodies: [string, unknown][] = [
      ['not JSON', '{"type": "user.created", "data": '],
      ['JSON null', 'null'],
      ['a JSON string', '"user.created"'],
      ['no type', { data: { id: newClerkUserId() } }],
      ['no data', { type: 'user.created' }],
      ['a user without an id', clerkEvent('user.created', { email_addresses: [] })],
      ['addresses of the wrong shape', clerkEvent('user.updated', { id: newClerkUserId(), email_addresses: 'someone@example.com' })],
      ['a deletion without an id', clerkEvent('user.deleted', { deleted: true, object: 'user' })],
    ];
    for (const [what, body] of bodies) {
      const res = await deliver(signClerkWebhook(secret, body));
      expect(res.status, what).toBe(400);
      expect(await res.json(), what).toMatchObject({ code: 'malformed_webhook', message: expect.stringMatching(/Clerk/) });
    }
    expect(await userCount()).toBe(before.users);
    expect(await recorded()).toBe(before.events);
  });

  it('acknowledges event types it does not use with 200, logs them and changes nothing', async () => {
    const info = vi.spyOn(ts.rt.logger, 'info');
    try {
      const before = await userCount();
      const res = await deliver(signClerkWebhook(secret, clerkEvent('session.created', { id: 'sess_1', user_id: newClerkUserId() })));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ received: true, outcome: 'ignored' });
      expect(info).toHaveBeenCalledWith({ type: 'session.created' }, expect.stringMatching(/does not use/));
      expect(await userCount()).toBe(before);
    } finally {
      info.mockRestore();
    }
  });

  it("user.deleted erases the person; the deleted account's token, a replay and a late user.updated change nothing", async () => {
    const id = newClerkUserId();
    const token = await clerk.mint({ sub: id, email: 'leaving@example.com', full_name: 'Leaving Soon' });
    const me = await (await hostedFetch(ts.url, token, '/api/me')).json();
    await ts.rt.credits.grant(me.id, 40, 'test grant', `test:${randomUUID()}`);

    const deleted = signClerkWebhook(secret, clerkEvent('user.deleted', { id, deleted: true, object: 'user' }));
    expect(await (await deliver(deleted)).json()).toEqual({ received: true, outcome: 'processed' });
    const erased = await rowOf(id);
    expect(erased).toMatchObject({ id: me.id, email: null, fullName: null, credits: 0, erasedAt: expect.any(Date) });
    expect(await ts.rt.credits.ledgerSum(me.id)).toBe(0);

    expect((await hostedFetch(ts.url, token, '/api/me')).status).toBe(401);
    expect(await (await deliver(deleted)).json()).toMatchObject({ outcome: 'duplicate' });
    const late = signClerkWebhook(
      secret,
      clerkEvent('user.updated', clerkUserJson({ id, email: 'leaving@example.com', firstName: 'Leaving' })),
    );
    expect(await (await deliver(late)).json()).toMatchObject({ outcome: 'ignored' });
    expect(await rowOf(id)).toEqual(erased);
  });

  it('user.deleted for someone who never reached the server still closes their account', async () => {
    const id = newClerkUserId();
    expect(
      await (await deliver(signClerkWebhook(secret, clerkEvent('user.deleted', { id, deleted: true, object: 'user' })))).json(),
    ).toMatchObject({
      outcome: 'processed',
    });
    expect((await hostedFetch(ts.url, await clerk.mint({ sub: id, email: 'ghost@example.com' }), '/api/me')).status).toBe(401);
    expect(await ts.rt.db.select().from(users).where(eq(users.clerkId, id))).toEqual([
      expect.objectContaining({ email: null, erasedAt: expect.any(Date) }),
    ]);
  });
});

describe('Clerk webhooks without a signing secret, and in local mode', () => {
  it('answers 503 in Clerk mode without CLERK_WEBHOOK_SIGNING_SECRET and 404 in local mode', async () => {
    const clerk = createClerkTestKeys();
    const hosted = await startTestServer({ env: { CLERK_JWT_KEY: clerk.publicKeyPem, ALLOWED_ORIGINS: TEST_SPA_ORIGIN } });
    const local = await startTestServer();
    try {
      const delivery = signClerkWebhook(createClerkWebhookSecret(), clerkEvent('user.created', clerkUserJson({ id: newClerkUserId() })));
      const unconfigured = await fetch(`${hosted.url}/api/webhooks/clerk`, {
        method: 'POST',
        body: delivery.body,
        headers: delivery.headers,
      });
      expect(unconfigured.status).toBe(503);
      expect(await unconfigured.json()).toMatchObject({ code: 'webhook_not_configured' });
      expect(
        (await fetch(`${local.url}/api/webhooks/clerk`, { method: 'POST', body: delivery.body, headers: delivery.headers })).status,
      ).toBe(404);
      expect(await local.rt.db.select().from(users)).toEqual([]);
    } finally {
      await hosted.stop();
      await local.stop();
    }
  });
});

describe('Clerk user.deleted with a Creem subscription', () => {
  const clerk = createClerkTestKeys();
  const secret = createClerkWebhookSecret();
  const apiKey = 'creem_test_0123456789';
  const products = { BASIC: 'prod_basic_1', STANDARD: 'prod_standard_1', PROFESSIONAL: 'prod_pro_1' };
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  let creem: FakeCreem;
  let ts: TestServer;
  beforeAll(async () => {
    creem = await startFakeCreem({ apiKey, products: Object.values(products) });
    ts = await startTestServer({
      env: {
        ...creemEnv({ url: creem.url, apiKey, webhookSecret, products }),
        CLERK_JWT_KEY: clerk.publicKeyPem,
        ALLOWED_ORIGINS: TEST_SPA_ORIGIN,
        CLERK_WEBHOOK_SIGNING_SECRET: secret,
      },
    });
  });
  afterAll(async () => {
    await ts?.stop();
    await creem?.stop();
  });

  it('cancels the subscription with Creem; a refusal erases anyway and answers 502, and the retry cancels', async () => {
    const id = newClerkUserId();
    const token = await clerk.mint({ sub: id, email: 'payer@example.com', full_name: 'Payer' });
    const me = await (await hostedFetch(ts.url, token, '/api/me')).json();
    const sub = { id: `sub_${randomUUID()}`, productId: products.STANDARD, customerId: `cust_${randomUUID()}`, userId: me.id };
    const paid = signedWebhook(webhookSecret, 'subscription.paid', creemSubscription({ ...sub, transactionId: `tran_${randomUUID()}` }));
    expect((await fetch(`${ts.url}/api/webhooks/creem`, { method: 'POST', body: paid.body, headers: paid.headers })).status).toBe(200);
    creem.addSubscription(sub);

    const deleted = signClerkWebhook(secret, clerkEvent('user.deleted', { id, deleted: true, object: 'user' }));
    const deliver = () => fetch(`${ts.url}/api/webhooks/clerk`, { method: 'POST', body: deleted.body, headers: deleted.headers });
    // A 4xx: the SDK does not retry it, so each delivery is one attempt.
    creem.refuseCancellations(400);
    const refused = await deliver();
    expect(refused.status).toBe(502);
    expect(await refused.json()).toMatchObject({ code: 'subscription_not_cancelled' });
    // The account is closed and erased all the same; the delivery is not recorded, so Clerk sends it again.
    expect((await ts.rt.db.select().from(users).where(eq(users.clerkId, id)))[0]).toMatchObject({
      email: null,
      erasedAt: expect.any(Date),
    });
    expect((await hostedFetch(ts.url, token, '/api/me')).status).toBe(401);

    creem.refuseCancellations(null);
    const retried = await deliver();
    expect(await retried.json()).toEqual({ received: true, outcome: 'processed' });
    expect(creem.cancellations.filter((c) => c.id === sub.id)).toEqual([
      { id: sub.id, body: { mode: 'immediate' } },
      { id: sub.id, body: { mode: 'immediate' } },
    ]);
    expect(await (await deliver()).json()).toMatchObject({ outcome: 'duplicate' });
    expect(creem.cancellations.filter((c) => c.id === sub.id)).toHaveLength(2);
  });
});
