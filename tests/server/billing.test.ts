import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { asc, count, eq } from 'drizzle-orm';
import { CHECKOUT_EMAIL_MESSAGE } from '@common/billing.ts';
import { creditLedger, paymentEvents, subscriptions, users } from '../../server/db/schema.ts';
import { createCreemProvider } from '../../server/providers/payments/creem.ts';
import { PaymentProviderError } from '../../server/providers/payments/index.ts';
import {
  creemCheckoutCompleted,
  creemEnv,
  creemSubscription,
  signStandard,
  signedWebhook,
  standardSignedWebhook,
  startFakeCreem,
  type FakeCreem,
} from '../fakes/creem-server.ts';
import { startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';

const SANDBOX_SECRET = 'sandbox-test-secret-0123456789abcdef';
const uid = () => randomBytes(6).toString('hex');

async function me(client: TestClient) {
  return (await client.get('/api/me')).json() as Promise<{
    id: string;
    credits: number;
    subscription_status: string | null;
    subscription_plan: string | null;
    creem_customer_id: string | null;
  }>;
}

/** Posts a form the way a browser on the site does (same-origin Origin header, urlencoded body). */
function postForm(client: TestClient, path: string, fields: Record<string, string> = {}) {
  return client.fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

describe.each(testDatabases())('billing (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database, env: { SANDBOX_WEBHOOK_SECRET: SANDBOX_SECRET } });
  });
  afterAll(() => ts?.stop());

  const post = (body: string, headers: Record<string, string>) =>
    fetch(`${ts.url}/api/webhooks/sandbox`, { method: 'POST', body, headers });
  const eventCount = async (eventId: string) =>
    (await ts.rt.db.select({ n: count() }).from(paymentEvents).where(eq(paymentEvents.eventId, eventId)))[0].n;

  function paidEvent(userId: string, over: { transactionId?: string; periodStart?: Date; product?: string } = {}) {
    return creemSubscription({
      id: `sub_${uid()}`,
      productId: over.product ?? 'prod_sandbox_standard',
      customerId: `cust_${uid()}`,
      userId,
      transactionId: over.transactionId ?? `tran_${uid()}`,
      periodStart: over.periodStart,
    });
  }

  describe('checkout and portal requests', () => {
    it('refuses anonymous callers, other users’ ids, unknown plans and a malformed email', async () => {
      const { client, userId, email } = await ts.signUp();
      const other = await ts.signUp();
      expect((await ts.client().post('/api/billing/checkout', { plan: 'BASIC', userId, email })).status).toBe(401);

      const foreign = await client.post('/api/billing/checkout', { plan: 'BASIC', userId: other.userId, email });
      expect(foreign.status).toBe(403);

      const unknown = await client.post('/api/billing/checkout', { plan: 'GOLD', userId, email });
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toMatchObject({ code: 'unknown_plan' });

      const badEmail = await client.post('/api/billing/checkout', { plan: 'BASIC', userId, email: 'not an address' });
      expect(badEmail.status).toBe(400);
      expect(await badEmail.json()).toMatchObject({ message: CHECKOUT_EMAIL_MESSAGE });

      const ok = await client.post('/api/billing/checkout', { plan: 'BASIC', userId, email });
      expect(ok.status).toBe(200);
      expect((await ok.json()).checkout_url).toMatch(new RegExp(`^${ts.url}/sandbox/checkout/`));
    });

    it('opens the portal only for the caller’s own customer id and only while active', async () => {
      const a = await ts.signUp();
      const b = await ts.signUp();
      // No subscription yet: there is no customer id of the caller's to open.
      expect((await a.client.post('/api/billing/portal', { customer_id: 'cust_anything' })).status).toBe(403);

      const paid = signedWebhook(SANDBOX_SECRET, 'subscription.paid', paidEvent(a.userId));
      expect((await post(paid.body, paid.headers)).status).toBe(200);
      const { creem_customer_id: customerA } = await me(a.client);
      expect(customerA).toBeTruthy();

      expect((await b.client.post('/api/billing/portal', { customer_id: customerA })).status).toBe(403);
      const own = await a.client.post('/api/billing/portal', { customer_id: customerA });
      expect(own.status).toBe(200);
      expect((await own.json()).customer_portal_link).toBe(`/sandbox/portal/${customerA}`);

      const subId = (paid.body.match(/"id":"(sub_[0-9a-f]+)"/) ?? [])[1];
      const canceled = signedWebhook(SANDBOX_SECRET, 'subscription.canceled', {
        ...JSON.parse(paid.body).object,
        id: subId,
        status: 'canceled',
        canceled_at: new Date().toISOString(),
      });
      expect((await post(canceled.body, canceled.headers)).status).toBe(200);
      expect(await me(a.client)).toMatchObject({ subscription_status: 'canceled', credits: 4500 });
      const inactive = await a.client.post('/api/billing/portal', { customer_id: customerA });
      expect(inactive.status).toBe(409);
    });
  });

  describe('webhooks', () => {
    it('grants once when the same event is delivered 10 times', async () => {
      const { client, userId } = await ts.signUp();
      const event = signedWebhook(SANDBOX_SECRET, 'subscription.paid', paidEvent(userId));
      const answers = await Promise.all(Array.from({ length: 5 }, () => post(event.body, event.headers)));
      for (let i = 0; i < 5; i++) answers.push(await post(event.body, event.headers));
      expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(await me(client)).toMatchObject({ credits: 4500, subscription_status: 'active', subscription_plan: 'STANDARD' });
      expect(await ts.rt.credits.ledgerSum(userId)).toBe(4500);
      expect(await eventCount(event.id)).toBe(1);
    });

    it('grants once for checkout.completed and subscription.paid of the same first payment', async () => {
      const { client, userId } = await ts.signUp();
      const fixture = {
        id: `sub_${uid()}`,
        productId: 'prod_sandbox_basic',
        customerId: `cust_${uid()}`,
        userId,
        transactionId: `tran_${uid()}`,
      };
      const completed = signedWebhook(SANDBOX_SECRET, 'checkout.completed', creemCheckoutCompleted(fixture));
      const paid = signedWebhook(SANDBOX_SECRET, 'subscription.paid', creemSubscription(fixture));
      expect((await post(completed.body, completed.headers)).status).toBe(200);
      expect((await post(paid.body, paid.headers)).status).toBe(200);
      expect(await me(client)).toMatchObject({
        credits: 1500,
        subscription_status: 'active',
        subscription_plan: 'BASIC',
        creem_customer_id: fixture.customerId,
      });
      expect(await ts.rt.credits.ledgerSum(userId)).toBe(1500);
    });

    it('keys a paid period by subscription and period start when there is no transaction id', async () => {
      const { client, userId } = await ts.signUp();
      const base = { id: `sub_${uid()}`, productId: 'prod_sandbox_basic', customerId: `cust_${uid()}`, userId };
      const first = creemSubscription({ ...base, periodStart: new Date('2026-10-01T00:00:00Z') });
      const next = creemSubscription({ ...base, periodStart: new Date('2026-11-01T00:00:00Z') });
      for (const object of [first, first, next]) {
        const e = signedWebhook(SANDBOX_SECRET, 'subscription.paid', object);
        expect((await post(e.body, e.headers)).status).toBe(200);
      }
      expect((await me(client)).credits).toBe(3000);
    });

    it('grants a first payment once when its checkout.completed has period dates but no transaction id', async () => {
      const { client, userId } = await ts.signUp();
      const fixture = {
        id: `sub_${uid()}`,
        productId: 'prod_sandbox_basic',
        customerId: `cust_${uid()}`,
        userId,
        transactionId: `tran_${uid()}`,
      };
      const completed = creemCheckoutCompleted({ ...fixture, transactionId: undefined });
      const withPeriod = {
        ...completed,
        subscription: { ...(completed.subscription as object), current_period_start_date: '2026-11-01T00:00:00.000Z' },
      };
      for (const [type, object] of [
        ['checkout.completed', withPeriod],
        ['subscription.paid', creemSubscription({ ...fixture, periodStart: new Date('2026-11-01T00:00:00Z') })],
      ] as const) {
        const e = signedWebhook(SANDBOX_SECRET, type, object);
        expect((await post(e.body, e.headers)).status).toBe(200);
      }
      expect(await me(client)).toMatchObject({ credits: 1500, subscription_plan: 'BASIC' });
    });

    it('applies payment events in the order they happened, whatever order they arrive in', async () => {
      const { client, userId } = await ts.signUp();
      const sub = { id: `sub_${uid()}`, customerId: `cust_${uid()}`, userId };
      const t0 = Date.now() - 60_000;
      const send = async (type: string, object: Record<string, unknown>, at: number) => {
        const e = signedWebhook(SANDBOX_SECRET, type, object, undefined, at);
        expect((await post(e.body, e.headers)).status).toBe(200);
      };
      const paid = creemSubscription({ ...sub, productId: 'prod_sandbox_basic', transactionId: `tran_${uid()}` });
      const upgraded = creemSubscription({ ...sub, productId: 'prod_sandbox_standard' });
      const canceled = creemSubscription({
        ...sub,
        productId: 'prod_sandbox_standard',
        status: 'canceled',
        canceledAt: new Date(t0 + 20_000),
      });

      // Newest first: the cancel, the plan change before it, and the first payment whose delivery had failed.
      await send('subscription.canceled', canceled, t0 + 20_000);
      await send('subscription.update', upgraded, t0 + 10_000);
      await send('subscription.paid', paid, t0);
      // The old events did not reactivate or re-plan the subscription; the paid period's credits were granted.
      expect(await me(client)).toMatchObject({ subscription_status: 'canceled', subscription_plan: 'STANDARD', credits: 1500 });
      const [row] = await ts.rt.db.select().from(subscriptions).where(eq(subscriptions.id, sub.id));
      expect(row).toMatchObject({ status: 'canceled', plan: 'STANDARD' });
      expect(row.lastEventAt?.getTime()).toBe(t0 + 20_000);

      // A newer event applies as usual: the subscription is paid again.
      const renewed = creemSubscription({
        ...sub,
        productId: 'prod_sandbox_standard',
        transactionId: `tran_${uid()}`,
        periodStart: new Date(t0 + 30_000),
      });
      await send('subscription.paid', renewed, t0 + 30_000);
      expect(await me(client)).toMatchObject({ subscription_status: 'active', subscription_plan: 'STANDARD', credits: 6000 });
      expect(await ts.rt.credits.ledgerSum(userId)).toBe(6000);
    });

    it('answers 401 to a forged or missing signature and changes nothing', async () => {
      const { client, userId } = await ts.signUp();
      const forged = signedWebhook('not-the-sandbox-secret-0123456789abcdef', 'subscription.paid', paidEvent(userId));
      expect((await post(forged.body, forged.headers)).status).toBe(401);
      const genuine = signedWebhook(SANDBOX_SECRET, 'subscription.paid', paidEvent(userId));
      const tampered = genuine.body.replace('prod_sandbox_standard', 'prod_sandbox_professional');
      expect((await post(tampered, genuine.headers)).status).toBe(401);
      expect((await post(genuine.body, { 'content-type': 'application/json' })).status).toBe(401);
      expect(await me(client)).toMatchObject({ credits: 0, subscription_status: null });
      expect(await eventCount(forged.id)).toBe(0);
      expect(await eventCount(genuine.id)).toBe(0);
    });

    it('answers 404 on the endpoint of a provider that is not configured', async () => {
      const e = signedWebhook(SANDBOX_SECRET, 'subscription.paid', paidEvent(randomBytes(4).toString('hex')));
      expect((await fetch(`${ts.url}/api/webhooks/creem`, { method: 'POST', body: e.body, headers: e.headers })).status).toBe(404);
    });

    it('takes back the unspent credits of a refunded payment, never below zero', async () => {
      const { client, userId } = await ts.signUp();
      const transactionId = `tran_${uid()}`;
      const paid = signedWebhook(SANDBOX_SECRET, 'subscription.paid', paidEvent(userId, { transactionId, product: 'prod_sandbox_basic' }));
      await post(paid.body, paid.headers);
      await ts.rt.credits.debit(userId, 1000, 'spent in test', `test:${uid()}`);
      const refund = {
        id: `ref_${uid()}`,
        object: 'refund',
        status: 'succeeded',
        refund_amount: 1900,
        transaction: { id: transactionId },
        customer: { id: 'c' },
      };
      for (let i = 0; i < 2; i++) {
        const e = signedWebhook(SANDBOX_SECRET, 'refund.created', refund);
        expect((await post(e.body, e.headers)).status).toBe(200);
      }
      expect((await me(client)).credits).toBe(0);
      expect(await ts.rt.credits.ledgerSum(userId)).toBe(0);
    });
  });

  describe('plan changes mint nothing', () => {
    const CREDITS: Record<string, number> = { BASIC: 1500, STANDARD: 4500, PROFESSIONAL: 10000 };
    const grantReasons = async (userId: string) =>
      (await ts.rt.db.select().from(creditLedger).where(eq(creditLedger.userId, userId)).orderBy(asc(creditLedger.createdAt))).map((r) => [
        r.delta,
        r.reason,
      ]);

    it('upgrade → downgrade → upgrade cycles in the sandbox portal grant at most the highest plan held in the period', async () => {
      const { client, userId, email } = await ts.signUp();
      const { checkout_url } = await (await client.post('/api/billing/checkout', { plan: 'BASIC', userId, email })).json();
      expect((await postForm(client, `${new URL(checkout_url).pathname}/pay`)).status).toBe(303);
      const { creem_customer_id } = await me(client);
      const { customer_portal_link: portal } = await (await client.post('/api/billing/portal', { customer_id: creem_customer_id })).json();
      const switchTo = async (plan: string) => {
        const res = await postForm(client, `${portal}/plan`, { plan });
        expect(res.status, await res.clone().text()).toBe(303);
        return res.headers.get('location') ?? '';
      };
      const [{ currentPeriodStart: paidFrom }] = await ts.rt.db.select().from(subscriptions).where(eq(subscriptions.userId, userId));

      // Three cycles of plan changes in one paid period: credits never pass the highest plan held in it.
      let highest = CREDITS.BASIC;
      for (let cycle = 0; cycle < 3; cycle++) {
        for (const plan of ['STANDARD', 'BASIC', 'PROFESSIONAL', 'STANDARD', 'BASIC']) {
          const upgrade = CREDITS[plan] > CREDITS[(await me(client)).subscription_plan ?? ''];
          expect(await switchTo(plan)).toContain(upgrade ? 'done=upgraded' : 'done=downgraded');
          highest = Math.max(highest, CREDITS[plan]);
          expect(await me(client), `cycle ${cycle}, ${plan}`).toMatchObject({ credits: highest, subscription_plan: plan });
        }
      }
      expect(highest).toBe(CREDITS.PROFESSIONAL);
      // The upgrade keeps the period, as Creem's prorated charge does.
      const [row] = await ts.rt.db.select().from(subscriptions).where(eq(subscriptions.userId, userId));
      expect(row.currentPeriodStart).toEqual(paidFrom);
      const page = await (await client.get(`${portal}?done=upgraded`)).text();
      expect(page).toContain('Only the credits above what this period already granted were added.');
      expect(page).toContain('Upgrades apply at once within this period and add only the credits above what it has already granted');

      // The renewal after the downgrade grants the lower plan; an upgrade in the new period grants the difference.
      expect((await postForm(client, `${portal}/renew`)).status).toBe(303);
      expect((await me(client)).credits).toBe(CREDITS.PROFESSIONAL + CREDITS.BASIC);
      expect(await switchTo('STANDARD')).toContain('done=upgraded');
      expect(await switchTo('BASIC')).toContain('done=downgraded');
      expect(await switchTo('STANDARD')).toContain('done=upgraded');
      expect((await me(client)).credits).toBe(CREDITS.PROFESSIONAL + CREDITS.STANDARD);

      // Cancelling keeps what was paid for.
      expect((await postForm(client, `${portal}/cancel`)).status).toBe(303);
      expect((await postForm(client, `${portal}/end`)).status).toBe(303);
      expect(await me(client)).toMatchObject({ credits: 14500, subscription_status: 'expired' });
      expect(await ts.rt.credits.ledgerSum(userId)).toBe(14500);

      const day = (d: Date) => d.toISOString().slice(0, 10);
      const renewedFrom = new Date(paidFrom!);
      renewedFrom.setUTCMonth(renewedFrom.getUTCMonth() + 1);
      expect(await grantReasons(userId)).toEqual([
        [1500, `Basic plan credits for the period from ${day(paidFrom!)}`],
        [3000, 'Standard plan upgrade: 3,000 credits (difference from Basic)'],
        [5500, 'Professional plan upgrade: 5,500 credits (difference from Standard)'],
        [1500, `Basic plan credits for the period from ${day(renewedFrom)}`],
        [3000, 'Standard plan upgrade: 3,000 credits (difference from Basic)'],
      ]);
    });

    it('replayed and parallel payments of one period grant at most its highest plan, each payment once', async () => {
      const { client, userId } = await ts.signUp();
      const sub = { id: `sub_${uid()}`, customerId: `cust_${uid()}`, userId, periodStart: new Date('2026-11-01T00:00:00Z') };
      const product = (plan: string) => `prod_sandbox_${plan.toLowerCase()}`;
      const first = signedWebhook(
        SANDBOX_SECRET,
        'subscription.paid',
        creemSubscription({ ...sub, productId: product('BASIC'), transactionId: `tran_${uid()}` }),
      );
      expect((await post(first.body, first.headers)).status).toBe(200);
      // Eight upgrade payments of the period (each its own transaction), each delivered twice (a replay, and the
      // same payment under a new event id), all at once.
      const upgrades = ['STANDARD', 'PROFESSIONAL', 'STANDARD', 'PROFESSIONAL', 'STANDARD', 'PROFESSIONAL', 'STANDARD', 'PROFESSIONAL'].map(
        (plan) => creemSubscription({ ...sub, productId: product(plan), transactionId: `tran_${uid()}` }),
      );
      const deliveries = upgrades.flatMap((object) => {
        const e = signedWebhook(SANDBOX_SECRET, 'subscription.paid', object);
        return [e, e, signedWebhook(SANDBOX_SECRET, 'subscription.paid', object)];
      });
      const answers = await Promise.all(deliveries.map((e) => post(e.body, e.headers)));
      expect(answers.map((r) => r.status)).toEqual(Array(deliveries.length).fill(200));
      expect((await me(client)).credits).toBe(CREDITS.PROFESSIONAL);
      expect(await ts.rt.credits.ledgerSum(userId)).toBe(CREDITS.PROFESSIONAL);

      // A payment without a transaction id (keyed by its period) upgrades once too.
      const base = { id: `sub_${uid()}`, customerId: `cust_${uid()}`, userId: (await ts.signUp()).userId, periodStart: sub.periodStart };
      for (const plan of ['BASIC', 'STANDARD', 'STANDARD', 'BASIC', 'PROFESSIONAL', 'PROFESSIONAL']) {
        const e = signedWebhook(SANDBOX_SECRET, 'subscription.paid', creemSubscription({ ...base, productId: product(plan) }));
        expect((await post(e.body, e.headers)).status).toBe(200);
      }
      expect(await ts.rt.credits.ledgerSum(base.userId)).toBe(CREDITS.PROFESSIONAL);
    });
  });

  describe('sandbox payments end to end over HTTP', () => {
    it('subscribes, switches plan, renews and cancels through signed webhooks', async () => {
      const { client, userId, email } = await ts.signUp();
      const { checkout_url } = await (await client.post('/api/billing/checkout', { plan: 'STANDARD', userId, email })).json();
      const path = new URL(checkout_url).pathname;
      const earlier = await (await client.post('/api/billing/checkout', { plan: 'BASIC', userId, email })).json();

      const page = await client.get(path);
      expect(page.status).toBe(200);
      const html = await page.text();
      for (const text of [
        'Test payment page — no real money',
        'Likeness',
        'Standard',
        '$49',
        '/month',
        '4,500 credits',
        '>Pay<',
        '>Cancel<',
      ]) {
        expect(html).toContain(text);
      }
      expect(html).not.toContain('<script');
      expect(html).toContain('href="/app/subscription?checkout=cancelled"');

      // Another account cannot use this checkout.
      const stranger = await ts.signUp();
      expect((await stranger.client.get(path)).status).toBe(403);

      const pay = await postForm(client, `${path}/pay`);
      expect(pay.status).toBe(303);
      expect(pay.headers.get('location')).toBe(`${ts.url}/app/subscription?checkout=success`);
      const subscribed = await me(client);
      expect(subscribed).toMatchObject({ credits: 4500, subscription_status: 'active', subscription_plan: 'STANDARD' });
      const [row] = await ts.rt.db.select().from(subscriptions).where(eq(subscriptions.userId, userId));
      expect(row).toMatchObject({ provider: 'sandbox', status: 'active', plan: 'STANDARD' });

      // Paying the same checkout again is the same payment.
      expect((await postForm(client, `${path}/pay`)).status).toBe(303);
      expect((await me(client)).credits).toBe(4500);

      // Once subscribed, neither a new checkout nor one opened earlier starts a second subscription.
      const again = await client.post('/api/billing/checkout', { plan: 'BASIC', userId, email });
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ code: 'already_subscribed' });
      const stalePay = await postForm(client, `${new URL(earlier.checkout_url).pathname}/pay`);
      expect(stalePay.status).toBe(409);
      expect(await stalePay.text()).toContain('already have an active subscription');
      expect(await me(client)).toMatchObject({ credits: 4500, subscription_plan: 'STANDARD' });
      const info = await (await client.get('/api/billing/subscription')).json();
      expect(info).toMatchObject({
        status: 'active',
        plan: 'STANDARD',
        customer_id: subscribed.creem_customer_id,
        cancel_at_period_end: false,
      });
      expect(new Date(info.current_period_end).getTime()).toBeGreaterThan(Date.now());

      const { customer_portal_link } = await (
        await client.post('/api/billing/portal', { customer_id: subscribed.creem_customer_id })
      ).json();
      const portal = await client.get(customer_portal_link);
      expect(portal.status).toBe(200);
      const portalHtml = await portal.text();
      expect(portalHtml).toContain('Test payment page — no real money');
      expect(portalHtml).toContain('Switch to Professional');
      expect(portalHtml).toContain('Simulate next month’s renewal');
      expect((await stranger.client.get(customer_portal_link)).status).toBe(403);
      expect((await postForm(stranger.client, `${customer_portal_link}/cancel`)).status).toBe(403);

      // A body that is not a form (a broken multipart) names no plan.
      const broken = await client.fetch(`${customer_portal_link}/plan`, {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=zz' },
        body: '--zz\r\nbroken',
      });
      expect(broken.status).toBe(400);
      expect(await broken.text()).toContain('Unknown plan.');
      // The same switch sent three times at once (a double click, two tabs) is one payment.
      const upgrades = await Promise.all(
        Array.from({ length: 3 }, () => postForm(client, `${customer_portal_link}/plan`, { plan: 'PROFESSIONAL' })),
      );
      expect(upgrades.map((r) => r.status)).toContain(303);
      for (const r of upgrades) expect([303, 409]).toContain(r.status);
      expect(await me(client)).toMatchObject({ credits: 10000, subscription_status: 'active', subscription_plan: 'PROFESSIONAL' });

      expect((await postForm(client, `${customer_portal_link}/renew`)).status).toBe(303);
      expect((await me(client)).credits).toBe(20000);
      // At most once per simulated period: the renewed period has not begun, so there is nothing to renew.
      const renewAgain = await postForm(client, `${customer_portal_link}/renew`);
      expect(renewAgain.status).toBe(409);
      expect(await renewAgain.text()).toContain('The next renewal has already been simulated.');
      expect((await me(client)).credits).toBe(20000);
      const renewedPortal = await (await client.get(customer_portal_link)).text();
      expect(renewedPortal).not.toContain('Simulate next month’s renewal');
      expect(renewedPortal).toContain('Next month’s renewal has been simulated.');

      const downgrade = await postForm(client, `${customer_portal_link}/plan`, { plan: 'BASIC' });
      expect(downgrade.headers.get('location')).toContain('done=downgraded');
      expect(await me(client)).toMatchObject({ credits: 20000, subscription_plan: 'BASIC' });

      // Cancelling asks first, then keeps the plan in force until the paid period ends.
      const confirm = await (await client.get(`${customer_portal_link}/cancel`)).text();
      expect(confirm).toContain('Cancel your Basic plan?');
      expect(confirm).toMatch(/Your plan stays active until \w+ \d+, \d{4}/);
      const cancel = await postForm(client, `${customer_portal_link}/cancel`);
      expect(cancel.status).toBe(303);
      expect(cancel.headers.get('location')).toContain('done=canceled');
      expect(await me(client)).toMatchObject({ credits: 20000, subscription_status: 'active', subscription_plan: 'BASIC' });
      const canceling = await (await client.get('/api/billing/subscription')).json();
      expect(canceling).toMatchObject({ status: 'active', cancel_at_period_end: true });
      expect(canceling.current_period_end).not.toBeNull();
      expect((await postForm(client, `${customer_portal_link}/cancel`)).status).toBe(409);
      expect((await postForm(client, `${customer_portal_link}/renew`)).status).toBe(409);
      expect(await (await client.get(customer_portal_link)).text()).toContain('Cancels on');

      // Resumed, it renews again; an end of period needs a cancellation first.
      expect((await postForm(client, `${customer_portal_link}/resume`)).headers.get('location')).toContain('done=resumed');
      expect(await (await client.get('/api/billing/subscription')).json()).toMatchObject({ status: 'active', cancel_at_period_end: false });
      expect((await postForm(client, `${customer_portal_link}/resume`)).status).toBe(409);
      expect((await postForm(client, `${customer_portal_link}/end`)).status).toBe(409);

      // Cancelled again, the plan ends with its period: the Free Plan, credits kept.
      await postForm(client, `${customer_portal_link}/cancel`);
      expect((await postForm(client, `${customer_portal_link}/end`)).headers.get('location')).toContain('done=ended');
      expect(await me(client)).toMatchObject({ credits: 20000, subscription_status: 'expired' });
      expect((await client.post('/api/billing/portal', { customer_id: subscribed.creem_customer_id })).status).toBe(409);
      expect((await postForm(client, `${customer_portal_link}/renew`)).status).toBe(409);
      expect(await ts.rt.credits.ledgerSum(userId)).toBe(20000);

      // Back on the Free Plan, a new checkout is allowed again.
      expect((await client.post('/api/billing/checkout', { plan: 'BASIC', userId, email })).status).toBe(200);
    });

    it('refuses a cross-site form post and a forged checkout address', async () => {
      const { client, userId, email } = await ts.signUp();
      const { checkout_url } = await (await client.post('/api/billing/checkout', { plan: 'BASIC', userId, email })).json();
      const path = new URL(checkout_url).pathname;
      const crossSite = await client.fetch(`${path}/pay`, { method: 'POST', headers: { origin: 'https://evil.example' } });
      expect(crossSite.status).toBe(403);
      const forged = await postForm(client, `${path.slice(0, -4)}AAAA/pay`);
      expect(forged.status).toBe(404);
      expect((await me(client)).credits).toBe(0);
    });
  });
});

describe('creem provider', () => {
  const apiKey = 'creem_test_0123456789';
  const products = { BASIC: 'prod_basic_1', STANDARD: 'prod_standard_1', PROFESSIONAL: 'prod_pro_1' };
  // Creem's secrets are Standard Webhooks secrets: whsec_ and base64; the legacy scheme keys with the whole string.
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  let creem: FakeCreem;
  let ts: TestServer;
  beforeAll(async () => {
    creem = await startFakeCreem({ apiKey, products: Object.values(products) });
    ts = await startTestServer({
      env: creemEnv({ url: creem.url, apiKey, webhookSecret, products }),
    });
  });
  afterAll(async () => {
    await ts?.stop();
    await creem?.stop();
  });

  it('creates a checkout with the plan’s product, the email, success URL and the user id in metadata', async () => {
    const { client, userId, email } = await ts.signUp();
    const res = await client.post('/api/billing/checkout', { plan: 'PROFESSIONAL', userId, email });
    expect(res.status).toBe(200);
    expect((await res.json()).checkout_url).toMatch(new RegExp(`^${creem.url}/test/checkout/prod_pro_1/ch_`));
    expect(creem.checkouts.at(-1)).toMatchObject({
      product_id: 'prod_pro_1',
      customer: { email },
      success_url: `${ts.url}/app/subscription?checkout=success`,
      metadata: { userId },
    });
    expect(creem.checkouts.at(-1)?.request_id).toMatch(/^chk_/);
  });

  it('passes the sign-in address, never one the browser sends nor the users row’s display copy', async () => {
    const { client, userId, email } = await ts.signUp();
    const victim = await ts.signUp();
    await ts.rt.db.update(users).set({ email: 'someone.else@example.com' }).where(eq(users.id, userId));
    for (const body of [
      { plan: 'BASIC', userId },
      { plan: 'BASIC', userId, email: '' },
      { plan: 'BASIC', userId, email: null },
      // Creem keys its customers by address: paying as another person's would make theirs the customer whose
      // portal this account opens.
      { plan: 'BASIC', userId, email: victim.email },
    ]) {
      expect((await client.post('/api/billing/checkout', body)).status).toBe(200);
      expect(creem.checkouts.at(-1)).toMatchObject({ customer: { email }, metadata: { userId } });
    }
  });

  it('processes Creem-signed webhooks and opens the Creem portal for the active customer', async () => {
    const { client, userId } = await ts.signUp();
    const fixture = {
      id: `sub_${uid()}`,
      productId: products.STANDARD,
      customerId: `cust_${uid()}`,
      userId,
      transactionId: `tran_${uid()}`,
    };
    const e = signedWebhook(webhookSecret, 'subscription.paid', creemSubscription(fixture));
    const res = await fetch(`${ts.url}/api/webhooks/creem`, { method: 'POST', body: e.body, headers: e.headers });
    expect(res.status).toBe(200);
    expect(await me(client)).toMatchObject({ credits: 4500, subscription_plan: 'STANDARD', creem_customer_id: fixture.customerId });

    const sandboxSigned = signedWebhook(
      SANDBOX_SECRET,
      'subscription.paid',
      creemSubscription({ ...fixture, transactionId: `tran_${uid()}` }),
    );
    expect(
      (await fetch(`${ts.url}/api/webhooks/creem`, { method: 'POST', body: sandboxSigned.body, headers: sandboxSigned.headers })).status,
    ).toBe(401);
    expect((await fetch(`${ts.url}/api/webhooks/sandbox`, { method: 'POST', body: e.body, headers: e.headers })).status).toBe(404);
    expect((await client.get('/sandbox/portal/anything')).status).not.toBe(200);

    creem.addCustomer(fixture.customerId);
    const portal = await client.post('/api/billing/portal', { customer_id: fixture.customerId });
    expect(portal.status).toBe(200);
    expect((await portal.json()).customer_portal_link).toMatch(new RegExp(`^${creem.url}/my-orders/login/`));
    expect(creem.portalRequests.at(-1)).toEqual({ customer_id: fixture.customerId });
  });

  const postCreem = (body: string, headers: Record<string, string>) =>
    fetch(`${ts.url}/api/webhooks/creem`, { method: 'POST', body, headers });
  const eventsNamed = async (eventId: string) => ts.rt.db.select().from(paymentEvents).where(eq(paymentEvents.eventId, eventId));

  it('verifies Standard Webhooks deliveries with the SDK, in both envelopes, and each event once', async () => {
    const { client, userId } = await ts.signUp();
    const sub = { id: `sub_${uid()}`, productId: products.BASIC, customerId: `cust_${uid()}`, userId };
    const first = standardSignedWebhook(webhookSecret, 'subscription.paid', creemSubscription({ ...sub, transactionId: `tran_${uid()}` }), {
      envelope: 'type-data',
    });
    for (let i = 0; i < 2; i++) expect((await postCreem(first.body, first.headers)).status).toBe(200);
    expect(await me(client)).toMatchObject({ credits: 1500, subscription_plan: 'BASIC' });
    const renewal = standardSignedWebhook(
      webhookSecret,
      'subscription.paid',
      creemSubscription({ ...sub, transactionId: `tran_${uid()}`, periodStart: new Date('2026-12-01T00:00:00Z') }),
    );
    expect((await postCreem(renewal.body, renewal.headers)).status).toBe(200);
    expect((await me(client)).credits).toBe(3000);
    expect(await eventsNamed(first.id)).toHaveLength(1);
  });

  it('refuses a stale, a future or a forged Standard Webhooks delivery and changes nothing', async () => {
    const { client, userId } = await ts.signUp();
    const object = creemSubscription({
      id: `sub_${uid()}`,
      productId: products.BASIC,
      customerId: `cust_${uid()}`,
      userId,
      transactionId: `tran_${uid()}`,
    });
    const stale = standardSignedWebhook(webhookSecret, 'subscription.paid', object, { sentAt: new Date(Date.now() - 6 * 60_000) });
    const future = standardSignedWebhook(webhookSecret, 'subscription.paid', object, { sentAt: new Date(Date.now() + 6 * 60_000) });
    const forged = standardSignedWebhook(`whsec_${randomBytes(24).toString('base64')}`, 'subscription.paid', object);
    for (const e of [stale, future, forged]) {
      const res = await postCreem(e.body, e.headers);
      expect(res.status).toBe(401);
      expect(await eventsNamed(e.id)).toHaveLength(0);
    }
    // A Standard signature with a bad secret does not fall back to a forged legacy header either.
    const legacyForged = { ...forged.headers, 'creem-signature': 'f'.repeat(64) };
    expect((await postCreem(forged.body, legacyForged)).status).toBe(401);
    expect(await me(client)).toMatchObject({ credits: 0, subscription_status: null });
  });

  it('accepts the legacy scheme with a sha256= prefix', async () => {
    const { client, userId } = await ts.signUp();
    const e = signedWebhook(
      webhookSecret,
      'subscription.paid',
      creemSubscription({
        id: `sub_${uid()}`,
        productId: products.BASIC,
        customerId: `cust_${uid()}`,
        userId,
        transactionId: `tran_${uid()}`,
      }),
    );
    const res = await postCreem(e.body, { ...e.headers, 'creem-signature': `sha256=${e.headers['creem-signature']}` });
    expect(res.status).toBe(200);
    expect((await me(client)).credits).toBe(1500);
  });

  it('a payment that arrives after the account was erased grants nothing and its subscription is cancelled at Creem', async () => {
    const { client, userId, email } = await ts.signUp();
    expect((await client.post('/api/billing/checkout', { plan: 'STANDARD', userId, email })).status).toBe(200);
    // The person deletes the account with the checkout tab still open, then pays in it.
    await ts.rt.erasure.erase(userId);
    const sub = { id: `sub_${uid()}`, productId: products.STANDARD, customerId: `cust_${uid()}`, userId, transactionId: `tran_${uid()}` };
    creem.addSubscription(sub);
    for (const [type, object] of [
      ['checkout.completed', creemCheckoutCompleted(sub)],
      ['subscription.paid', creemSubscription(sub)],
    ] as const) {
      const e = signedWebhook(webhookSecret, type, object);
      const res = await postCreem(e.body, e.headers);
      expect(res.status).toBe(200);
      expect((await res.json()).outcome).toBe('erased');
    }
    const [row] = await ts.rt.db.select().from(users).where(eq(users.id, userId));
    expect(row).toMatchObject({ credits: 0, subscriptionStatus: null, creemCustomerId: null });
    expect(await ts.rt.db.select().from(subscriptions).where(eq(subscriptions.userId, userId))).toEqual([]);
    expect(creem.cancellations.filter((c) => c.id === sub.id)[0]).toEqual({ id: sub.id, body: { mode: 'immediate' } });
  });

  it('a second subscription paid at Creem (two checkouts, two tabs) is granted what was paid, kept apart and cancelled at once', async () => {
    const { client, userId, email } = await ts.signUp();
    // Both checkouts are opened on the Free Plan, so both can be paid.
    for (const plan of ['BASIC', 'STANDARD'])
      expect((await client.post('/api/billing/checkout', { plan, userId, email })).status).toBe(200);
    const customerId = `cust_${uid()}`;
    const first = { id: `sub_${uid()}`, productId: products.BASIC, customerId, userId, transactionId: `tran_${uid()}` };
    const second = { id: `sub_${uid()}`, productId: products.STANDARD, customerId, userId, transactionId: `tran_${uid()}` };
    creem.addSubscription(second);
    const deliver = async (type: string, object: Record<string, unknown>) => {
      const e = signedWebhook(webhookSecret, type, object);
      const res = await postCreem(e.body, e.headers);
      expect(res.status, `${type}: ${await res.clone().text()}`).toBe(200);
      return (await res.json()).outcome as string;
    };
    for (const sub of [first, second]) {
      await deliver('checkout.completed', creemCheckoutCompleted(sub));
      await deliver('subscription.paid', creemSubscription(sub));
    }
    // The plan stays the first one's; both payments' credits are the person's.
    expect(await me(client)).toMatchObject({ credits: 1500 + 4500, subscription_status: 'active', subscription_plan: 'BASIC' });
    const stored = await ts.rt.db.select().from(subscriptions).where(eq(subscriptions.userId, userId));
    expect(Object.fromEntries(stored.map((r) => [r.id, r.status]))).toEqual({ [first.id]: 'active', [second.id]: 'duplicate' });
    expect(creem.cancellations.filter((c) => c.id === second.id)[0]).toEqual({ id: second.id, body: { mode: 'immediate' } });
    expect(creem.cancellations.some((c) => c.id === first.id)).toBe(false);

    // A replay grants nothing more; the provider's cancellation lands on the duplicate and changes nothing else.
    const replay = signedWebhook(webhookSecret, 'subscription.paid', creemSubscription(second));
    expect((await postCreem(replay.body, replay.headers)).status).toBe(200);
    expect(await deliver('subscription.canceled', { ...creemSubscription(second), status: 'canceled' })).toBe('processed');
    expect(await me(client)).toMatchObject({ credits: 6000, subscription_status: 'active', subscription_plan: 'BASIC' });
  });

  it('records a signed but unreadable body once and answers 200, never 500', async () => {
    const deep = `{"id":"evt_deep_${uid()}","eventType":"subscription.paid","object":{"object":"subscription","nested":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`;
    const bodies = [
      'null',
      '"just a string"',
      '{"id":"evt_x","eventType":"subscription.paid"}',
      `{"id":"evt_nul_${uid()}","eventType":"subscription.paid","object":{"id":"sub_\u0000"}}`,
      `{"id":"evt_long_${uid()}","eventType":"subscription.paid","object":{"object":"subscription","id":"${'s'.repeat(5000)}"}}`,
      `{"id":"evt_date_${uid()}","eventType":"subscription.paid","object":{"object":"subscription","id":"sub_d","current_period_start_date":-8640000000000000}}`,
      deep,
      'not json at all',
    ];
    for (const body of bodies) {
      const id = `msg_${uid()}`;
      const res = await postCreem(body, signStandard(webhookSecret, id, body));
      expect(res.status, body.slice(0, 60)).toBe(200);
      const outcome = (await res.json()).outcome;
      expect(['malformed', 'unmatched'], body.slice(0, 60)).toContain(outcome);
      const again = await postCreem(body, signStandard(webhookSecret, id, body));
      expect(again.status).toBe(200);
    }
    const recorded = await ts.rt.db.select().from(paymentEvents).where(eq(paymentEvents.eventType, 'malformed'));
    expect(recorded.length).toBeGreaterThanOrEqual(6);
    expect(recorded[0].payload).toMatchObject({ reason: expect.any(String), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('turns a refused API key into a provider error the user can retry', async () => {
    const bad = createCreemProvider({ apiKey: 'creem_test_wrong', webhookSecret, products, serverUrl: creem.url });
    const attempt = bad.createCheckout({
      plan: 'BASIC',
      userId: 'u1',
      email: 'a@example.com',
      successUrl: 'http://localhost/x',
      serverUrl: 'http://localhost',
    });
    await expect(attempt).rejects.toBeInstanceOf(PaymentProviderError);
    await expect(bad.customerPortalLink('cust_1')).rejects.toBeInstanceOf(PaymentProviderError);
    expect(creem.checkouts.filter((c) => c.customer && (c.customer as { email?: string }).email === 'a@example.com')).toHaveLength(0);
  });
});

describe.each(testDatabases())('plan changes at Creem (%s)', (database) => {
  const apiKey = 'creem_test_plan_changes';
  const products = { BASIC: 'prod_basic_pc', STANDARD: 'prod_standard_pc', PROFESSIONAL: 'prod_pro_pc' };
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  // The fake's checkout pages and portal deliver here; the address is read at each delivery.
  const hook = { url: '', secret: webhookSecret };
  let creem: FakeCreem;
  let ts: TestServer;
  beforeAll(async () => {
    creem = await startFakeCreem({ apiKey, products: Object.values(products), webhook: hook });
    ts = await startTestServer({ database, env: creemEnv({ url: creem.url, apiKey, webhookSecret, products }) });
    hook.url = `${ts.url}/api/webhooks/creem`;
  });
  afterAll(async () => {
    await ts?.stop();
    await creem?.stop();
  });

  it('upgrade → downgrade → upgrade cycles in Creem’s portal grant the difference once per period; a renewal after a downgrade grants the lower plan', async () => {
    const { client, userId, email } = await ts.signUp();
    const { checkout_url } = await (await client.post('/api/billing/checkout', { plan: 'BASIC', userId, email })).json();
    // Pay on Creem's checkout page: checkout.completed (no period), subscription.paid, checkout.completed again.
    const paid = await fetch(`${checkout_url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    const { subscriptionId, customerId } = creem.payments.at(-1)!;
    expect(await me(client)).toMatchObject({ credits: 1500, subscription_plan: 'BASIC' });

    const credits = { [products.BASIC]: 1500, [products.STANDARD]: 4500, [products.PROFESSIONAL]: 10000 };
    let current = products.BASIC;
    let highest = 1500;
    for (let cycle = 0; cycle < 3; cycle++) {
      for (const product of [products.STANDARD, products.BASIC, products.PROFESSIONAL, products.STANDARD, products.BASIC]) {
        const charged = credits[product] > credits[current];
        expect(await creem.changePlan(subscriptionId, product, { charged })).toEqual(charged ? [200, 200] : [200]);
        current = product;
        highest = Math.max(highest, credits[product]);
        expect((await me(client)).credits, `cycle ${cycle}, ${product}`).toBe(highest);
      }
    }
    expect(await me(client)).toMatchObject({ credits: 10000, subscription_plan: 'BASIC' });

    // The next month's renewal (a new period, on the Basic plan since the downgrade) grants Basic's credits, once.
    const [row] = await ts.rt.db.select().from(subscriptions).where(eq(subscriptions.id, subscriptionId));
    const renewal = signedWebhook(
      webhookSecret,
      'subscription.paid',
      creemSubscription({
        id: subscriptionId,
        productId: products.BASIC,
        customerId,
        userId,
        transactionId: `tran_${uid()}`,
        periodStart: row.currentPeriodEnd!,
      }),
    );
    for (let i = 0; i < 2; i++)
      expect((await fetch(hook.url, { method: 'POST', body: renewal.body, headers: renewal.headers })).status).toBe(200);
    expect((await me(client)).credits).toBe(11500);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(11500);

    // Cancelling keeps what was paid for.
    const canceled = signedWebhook(webhookSecret, 'subscription.canceled', {
      ...creemSubscription({ id: subscriptionId, productId: products.BASIC, customerId, userId, periodStart: row.currentPeriodEnd! }),
      status: 'canceled',
    });
    expect((await fetch(hook.url, { method: 'POST', body: canceled.body, headers: canceled.headers })).status).toBe(200);
    expect(await me(client)).toMatchObject({ credits: 11500, subscription_status: 'canceled' });
  });
});
