import { createHmac, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Webhook } from 'standardwebhooks';
import { signWebhookBody } from '../../server/providers/payments/index.ts';

/**
 * Creem's checkout and customer-portal API on loopback, as strict as the real one about what it receives
 * (x-api-key, JSON bodies, required and unknown fields, known products and customers) and answering
 * bodies the `creem` SDK's response schemas accept. See shared/contracts/creem.md.
 */

/** A subscription the fake holds, as the product's calls change it. */
interface FakeSubscription {
  id: string;
  productId: string;
  customerId: string;
  status: string;
  canceledAt: string | null;
}

export interface FakeCreem {
  url: string;
  /** Checkout request bodies received, in order (snake_case, as sent on the wire). */
  checkouts: Record<string, unknown>[];
  portalRequests: Record<string, unknown>[];
  /** Makes a customer id known, as Creem knows customers after their first checkout. */
  addCustomer(id: string): void;
  /** Product ids looked up with GET /v1/products/{id}, in order. */
  productLookups: string[];
  /** Archives a product (it can no longer be bought). */
  archiveProduct(id: string): void;
  /** Makes a subscription known (active), as Creem knows it after its checkout. */
  addSubscription(sub: { id: string; productId: string; customerId: string }): void;
  /** Cancellation request bodies received, with the subscription id, in order. */
  cancellations: { id: string; body: Record<string, unknown> }[];
  /** While set, every cancellation is refused with this status (Creem answers 4xx/5xx with its error body). */
  refuseCancellations(status: number | null): void;
  /** With `webhook`: each Pay on a checkout page, and the webhook deliveries it made (event type and answer). */
  payments: { checkoutId: string; subscriptionId: string; customerId: string; deliveries: { type: string; status: number }[] }[];
  /**
   * With `webhook`: a plan change made in Creem's portal of a subscription paid on a checkout page, as Creem's
   * "prorate and charge immediately" reports it: `subscription.update` with the new product, and when `charged`
   * (an upgrade) a `subscription.paid` of the same period with a new transaction. Answers the webhook statuses.
   */
  changePlan(subscriptionId: string, productId: string, opts: { charged: boolean }): Promise<number[]>;
  stop(): Promise<void>;
}

/** Where the fake's checkout pages deliver what a payment sends (the server's Creem webhook endpoint); read at each Pay. */
export interface FakeCreemWebhook {
  url: string;
  /** CREEM_WEBHOOK_SECRET: deliveries are signed with the legacy `creem-signature` scheme. */
  secret: string;
}

/** The server's CREEM_* settings for a fake Creem at `url` that knows this key and these three products. */
export function creemEnv(opts: {
  url: string;
  apiKey: string;
  webhookSecret: string;
  products: { BASIC: string; STANDARD: string; PROFESSIONAL: string };
}): Record<string, string> {
  return {
    CREEM_API_KEY: opts.apiKey,
    CREEM_WEBHOOK_SECRET: opts.webhookSecret,
    CREEM_PRODUCT_BASIC: opts.products.BASIC,
    CREEM_PRODUCT_STANDARD: opts.products.STANDARD,
    CREEM_PRODUCT_PROFESSIONAL: opts.products.PROFESSIONAL,
    CREEM_SERVER_URL: opts.url,
  };
}

const CHECKOUT_FIELDS = new Set([
  'product_id',
  'request_id',
  'units',
  'custom_price',
  'discount_code',
  'affiliate_code',
  'customer',
  'custom_fields',
  'custom_field',
  'success_url',
  'metadata',
]);

function error(status: number, error: string, message: string): Response {
  return Response.json({ trace_id: randomBytes(8).toString('hex'), status, error, message: [message], timestamp: Date.now() }, { status });
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `webhook`: the checkout addresses it hands out are pages a browser can pay on (no money, no card): Pay makes the
 * customer and the subscription, delivers `checkout.completed` and `subscription.paid` for the one payment, then
 * `checkout.completed` again as Creem's retry would, and sends the browser to the checkout's success_url.
 */
/**
 * `oneTimeProducts`: products sold once (credit packs): paying one sends checkout.completed with a paid order and no
 * subscription (twice, as a replay would), and returns the payer to the success URL with the order's parameters
 * signed as Creem signs them (hex HMAC-SHA256 keyed with the API key over the sorted non-empty parameters).
 */
export async function startFakeCreem(opts: {
  apiKey: string;
  products: string[];
  oneTimeProducts?: string[];
  webhook?: FakeCreemWebhook;
}): Promise<FakeCreem> {
  const checkouts: Record<string, unknown>[] = [];
  const checkoutsById = new Map<string, Record<string, unknown>>();
  const payments: FakeCreem['payments'] = [];
  const portalRequests: Record<string, unknown>[] = [];
  const customers = new Set<string>();
  const archived = new Set<string>();
  const productLookups: string[] = [];
  const subscriptions = new Map<string, FakeSubscription>();
  /** What each subscription paid on a checkout page carries in its events (its product changes with a plan change). */
  const paidFixtures = new Map<string, SubscriptionFixture>();
  const cancellations: { id: string; body: Record<string, unknown> }[] = [];
  let refusal: number | null = null;
  let base = '';

  /** A subscription as Creem's API answers with it (GET /v1/subscriptions, POST …/cancel). */
  function subscriptionEntity(sub: FakeSubscription) {
    const now = new Date().toISOString();
    return {
      id: sub.id,
      mode: opts.apiKey.startsWith('creem_test_') ? 'test' : 'prod',
      object: 'subscription',
      product: sub.productId,
      customer: sub.customerId,
      collection_method: 'charge_automatically',
      status: sub.status,
      canceled_at: sub.canceledAt,
      created_at: now,
      updated_at: now,
    };
  }

  async function readBody(req: Request): Promise<Record<string, unknown> | Response> {
    if (!req.headers.get('content-type')?.startsWith('application/json'))
      return error(400, 'Bad Request', 'Content-Type must be application/json');
    try {
      const body: unknown = await req.json();
      return isObj(body) ? body : error(400, 'Bad Request', 'body must be an object');
    } catch {
      return error(400, 'Bad Request', 'body is not JSON');
    }
  }

  /** The checkout page a payer is sent to, and its Pay button (webhook mode only). */
  async function checkoutPage(req: Request, id: string, pay: boolean): Promise<Response> {
    const checkout = checkoutsById.get(id);
    if (!checkout || !opts.webhook) return new Response('No such checkout', { status: 404 });
    const productId = String(checkout.product_id);
    if (!pay) {
      const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test checkout</title></head><body>
<main><h1>Test checkout</h1><p>Product ${productId}, for ${String((checkout.customer as { email?: string } | undefined)?.email ?? '')}. No money moves.</p>
<form method="post" action="${new URL(req.url).pathname}/pay"><button type="submit">Pay</button></form></main></body></html>`;
      return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    }
    const email = String((checkout.customer as { email?: string } | undefined)?.email ?? 'buyer@example.com');
    const userId = isObj(checkout.metadata) && typeof checkout.metadata.userId === 'string' ? checkout.metadata.userId : undefined;
    if (opts.oneTimeProducts?.includes(productId)) return payOnce(id, checkout, email);
    const suffix = randomBytes(8).toString('hex');
    const fixture: SubscriptionFixture = {
      id: `sub_${suffix}`,
      productId,
      customerId: `cust_${randomBytes(8).toString('hex')}`,
      email,
      userId,
      transactionId: `tran_${suffix}`,
      periodStart: new Date(),
    };
    customers.add(fixture.customerId);
    subscriptions.set(fixture.id, { id: fixture.id, productId, customerId: fixture.customerId, status: 'active', canceledAt: null });
    paidFixtures.set(fixture.id, fixture);
    const completed = signedWebhook(opts.webhook.secret, 'checkout.completed', creemCheckoutCompleted(fixture));
    const paid = signedWebhook(opts.webhook.secret, 'subscription.paid', creemSubscription(fixture));
    const payment = {
      checkoutId: id,
      subscriptionId: fixture.id,
      customerId: fixture.customerId,
      deliveries: [] as { type: string; status: number }[],
    };
    payments.push(payment);
    for (const [type, delivery] of [
      ['checkout.completed', completed],
      ['subscription.paid', paid],
      ['checkout.completed', completed],
    ] as const) {
      const res = await fetch(opts.webhook.url, { method: 'POST', headers: delivery.headers, body: delivery.body });
      await res.arrayBuffer();
      payment.deliveries.push({ type, status: res.status });
      if (res.status !== 200) return new Response(`The webhook endpoint answered ${res.status}`, { status: 502 });
    }
    return new Response(null, { status: 303, headers: { location: String(checkout.success_url) } });
  }

  /** A one-time product paid: its order's checkout.completed (sent twice), then the signed success redirect. */
  async function payOnce(checkoutId: string, checkout: Record<string, unknown>, email: string): Promise<Response> {
    const webhook = opts.webhook!;
    const suffix = randomBytes(8).toString('hex');
    const productId = String(checkout.product_id);
    const customerId = `cust_${suffix}`;
    const orderId = `ord_${suffix}`;
    customers.add(customerId);
    const completed = signedWebhook(webhook.secret, 'checkout.completed', {
      id: checkoutId,
      object: 'checkout',
      request_id: checkout.request_id,
      status: 'completed',
      units: 1,
      order: {
        id: orderId,
        object: 'order',
        customer: customerId,
        product: productId,
        amount: 900,
        currency: 'USD',
        status: 'paid',
        type: 'onetime',
        transaction: `tran_${suffix}`,
        mode: 'test',
      },
      product: { id: productId, object: 'product', billing_type: 'onetime', status: 'active' },
      customer: { id: customerId, object: 'customer', email },
      metadata: checkout.metadata,
    });
    const payment = { checkoutId, subscriptionId: '', customerId, deliveries: [] as { type: string; status: number }[] };
    payments.push(payment);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(webhook.url, { method: 'POST', headers: completed.headers, body: completed.body });
      await res.arrayBuffer();
      payment.deliveries.push({ type: 'checkout.completed', status: res.status });
      if (res.status !== 200) return new Response(`The webhook endpoint answered ${res.status}`, { status: 502 });
    }
    const params: Record<string, string> = {
      checkout_id: checkoutId,
      order_id: orderId,
      customer_id: customerId,
      product_id: productId,
      request_id: String(checkout.request_id ?? ''),
    };
    const signed = Object.keys(params)
      .filter((k) => params[k] !== '')
      .sort()
      .map((k) => `${k}=${params[k]}`)
      .join('&');
    const back = new URL(String(checkout.success_url));
    for (const [k, v] of Object.entries(params)) if (v !== '') back.searchParams.set(k, v);
    back.searchParams.set('signature', createHmac('sha256', opts.apiKey).update(signed).digest('hex'));
    return new Response(null, { status: 303, headers: { location: back.toString() } });
  }

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const path = url.pathname;
    const page = /^\/test\/checkout\/[^/]+\/([^/]+?)(\/pay)?$/.exec(path);
    if (page && (req.method === 'GET' || (req.method === 'POST' && page[2]))) return checkoutPage(req, page[1], Boolean(page[2]));
    if (req.headers.get('x-api-key') !== opts.apiKey) return error(403, 'Forbidden', 'Invalid API key');

    if (path === '/v1/checkouts' && req.method === 'POST') {
      const body = await readBody(req);
      if (body instanceof Response) return body;
      const unknown = Object.keys(body).filter((k) => !CHECKOUT_FIELDS.has(k));
      if (unknown.length) return error(400, 'Bad Request', `property ${unknown[0]} should not exist`);
      if (typeof body.product_id !== 'string' || !body.product_id) return error(400, 'Bad Request', 'product_id must be a string');
      if (!opts.products.includes(body.product_id)) return error(404, 'Not Found', 'Product not found');
      if (body.success_url !== undefined && (typeof body.success_url !== 'string' || !URL.canParse(body.success_url))) {
        return error(400, 'Bad Request', 'success_url must be a URL address');
      }
      if (body.request_id !== undefined && typeof body.request_id !== 'string')
        return error(400, 'Bad Request', 'request_id must be a string');
      if (body.metadata !== undefined && !isObj(body.metadata)) return error(400, 'Bad Request', 'metadata must be an object');
      if (
        body.customer !== undefined &&
        (!isObj(body.customer) || (body.customer.email !== undefined && typeof body.customer.email !== 'string'))
      ) {
        return error(400, 'Bad Request', 'customer.email must be an email');
      }
      checkouts.push(body);
      const id = `ch_${randomBytes(10).toString('hex')}`;
      checkoutsById.set(id, body);
      return Response.json({
        id,
        mode: opts.apiKey.startsWith('creem_test_') ? 'test' : 'prod',
        object: 'checkout',
        status: 'pending',
        product: body.product_id,
        units: 1,
        request_id: body.request_id,
        checkout_url: `${base}/test/checkout/${body.product_id}/${id}`,
        success_url: body.success_url ?? null,
        metadata: body.metadata,
      });
    }

    const product = /^\/v1\/products\/([^/]+)$/.exec(path);
    if (product && req.method === 'GET') {
      const id = decodeURIComponent(product[1]);
      productLookups.push(id);
      if (!opts.products.includes(id)) return error(404, 'Not Found', 'Product not found');
      const now = new Date().toISOString();
      return Response.json({
        id,
        mode: opts.apiKey.startsWith('creem_test_') ? 'test' : 'prod',
        object: 'product',
        name: `Plan ${id}`,
        description: 'Monthly subscription',
        price: 1900,
        currency: 'USD',
        billing_type: 'recurring',
        billing_period: 'every-month',
        status: archived.has(id) ? 'archived' : 'active',
        tax_mode: 'exclusive',
        tax_category: 'saas',
        created_at: now,
        updated_at: now,
      });
    }

    if (path === '/v1/customers/billing' && req.method === 'POST') {
      const body = await readBody(req);
      if (body instanceof Response) return body;
      if (typeof body.customer_id !== 'string' || !body.customer_id) return error(400, 'Bad Request', 'customer_id must be a string');
      portalRequests.push(body);
      if (!customers.has(body.customer_id)) return error(404, 'Not Found', 'Customer not found');
      return Response.json({ customer_portal_link: `${base}/my-orders/login/${randomBytes(8).toString('hex')}` });
    }

    if (path === '/v1/subscriptions' && req.method === 'GET') {
      const sub = subscriptions.get(url.searchParams.get('subscription_id') ?? '');
      if (!sub) return error(404, 'Not Found', 'Subscription not found');
      return Response.json(subscriptionEntity(sub));
    }

    const cancel = /^\/v1\/subscriptions\/([^/]+)\/cancel$/.exec(path);
    if (cancel && req.method === 'POST') {
      const id = decodeURIComponent(cancel[1]);
      const body = await readBody(req);
      if (body instanceof Response) return body;
      const unknown = Object.keys(body).filter((k) => k !== 'mode' && k !== 'onExecute');
      if (unknown.length) return error(400, 'Bad Request', `property ${unknown[0]} should not exist`);
      if (body.mode !== undefined && body.mode !== 'immediate' && body.mode !== 'scheduled')
        return error(400, 'Bad Request', 'mode must be immediate or scheduled');
      cancellations.push({ id, body });
      if (refusal !== null)
        return error(refusal, refusal >= 500 ? 'Internal Server Error' : 'Bad Request', 'Subscription cannot be canceled right now');
      const sub = subscriptions.get(id);
      if (!sub) return error(404, 'Not Found', 'Subscription not found');
      if (sub.status === 'canceled') return error(400, 'Bad Request', 'Subscription is already canceled');
      sub.status = body.mode === 'scheduled' ? 'scheduled_cancel' : 'canceled';
      sub.canceledAt = new Date().toISOString();
      return Response.json(subscriptionEntity(sub));
    }

    return error(404, 'Not Found', `Cannot ${req.method} ${path}`);
  }

  async function deliver(type: string, object: Record<string, unknown>): Promise<number> {
    if (!opts.webhook) throw new Error('the fake Creem delivers webhooks only when started with `webhook`');
    const delivery = signedWebhook(opts.webhook.secret, type, object);
    const res = await fetch(opts.webhook.url, { method: 'POST', headers: delivery.headers, body: delivery.body });
    await res.arrayBuffer();
    return res.status;
  }

  async function changePlan(subscriptionId: string, productId: string, change: { charged: boolean }): Promise<number[]> {
    const fixture = paidFixtures.get(subscriptionId);
    const sub = subscriptions.get(subscriptionId);
    if (!fixture || !sub) throw new Error(`the fake Creem has no paid subscription ${subscriptionId}`);
    if (!opts.products.includes(productId)) throw new Error(`the fake Creem has no product ${productId}`);
    // The period stays; only a charged change is a new transaction.
    const changed: SubscriptionFixture = { ...fixture, productId };
    paidFixtures.set(subscriptionId, changed);
    sub.productId = productId;
    const statuses = [await deliver('subscription.update', creemSubscription(changed))];
    if (change.charged)
      statuses.push(
        await deliver('subscription.paid', creemSubscription({ ...changed, transactionId: `tran_${randomBytes(8).toString('hex')}` })),
      );
    return statuses;
  }

  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: handle, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    checkouts,
    portalRequests,
    addCustomer: (id) => customers.add(id),
    productLookups,
    archiveProduct: (id) => archived.add(id),
    addSubscription: (sub) => subscriptions.set(sub.id, { ...sub, status: 'active', canceledAt: null }),
    cancellations,
    refuseCancellations: (status) => {
      refusal = status;
    },
    payments,
    changePlan,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ───────────────────────── Webhook bodies ─────────────────────────

export interface SubscriptionFixture {
  id: string;
  productId: string;
  customerId: string;
  email?: string;
  userId?: string;
  status?: string;
  transactionId?: string;
  periodStart?: Date;
  periodEnd?: Date;
  canceledAt?: Date | null;
}

/** A subscription object as Creem sends it in subscription.* events (expanded product and customer). */
export function creemSubscription(f: SubscriptionFixture): Record<string, unknown> {
  const start = f.periodStart ?? new Date('2026-11-01T00:00:00.000Z');
  const end = f.periodEnd ?? new Date(start.getTime() + 30 * 86_400_000);
  return {
    id: f.id,
    object: 'subscription',
    product: {
      id: f.productId,
      object: 'product',
      name: 'Plan',
      price: 4900,
      currency: 'USD',
      billing_type: 'recurring',
      billing_period: 'every-month',
      mode: 'test',
    },
    customer: { id: f.customerId, object: 'customer', email: f.email ?? 'buyer@example.com', name: 'Buyer', country: 'GR', mode: 'test' },
    collection_method: 'charge_automatically',
    status: f.status ?? 'active',
    last_transaction_id: f.transactionId,
    last_transaction_date: start.toISOString(),
    next_transaction_date: end.toISOString(),
    current_period_start_date: start.toISOString(),
    current_period_end_date: end.toISOString(),
    canceled_at: f.canceledAt ? f.canceledAt.toISOString() : null,
    created_at: start.toISOString(),
    updated_at: start.toISOString(),
    metadata: f.userId ? { userId: f.userId } : {},
    mode: 'local',
  };
}

/** A checkout.completed object for a subscription's first payment (the order carries its transaction). */
export function creemCheckoutCompleted(f: SubscriptionFixture & { orderId?: string }): Record<string, unknown> {
  const sub = creemSubscription(f);
  return {
    id: `ch_${randomBytes(6).toString('hex')}`,
    object: 'checkout',
    request_id: 'chk_test',
    order: {
      id: f.orderId ?? `ord_${randomBytes(6).toString('hex')}`,
      customer: f.customerId,
      product: f.productId,
      amount: 4900,
      currency: 'USD',
      status: 'paid',
      type: 'recurring',
      transaction: f.transactionId,
      mode: 'test',
    },
    product: sub.product,
    customer: sub.customer,
    // Creem's checkout.completed carries the subscription without period dates or last transaction.
    subscription: {
      id: f.id,
      object: 'subscription',
      product: f.productId,
      customer: f.customerId,
      collection_method: 'charge_automatically',
      status: 'active',
      canceled_at: null,
      metadata: sub.metadata,
      mode: 'test',
    },
    custom_fields: [],
    status: 'completed',
    metadata: sub.metadata,
    mode: 'test',
  };
}

/** A webhook delivery signed like Creem signs it: creem-signature = hex HMAC-SHA256 of the raw body. */
export function signedWebhook(
  secret: string,
  eventType: string,
  object: Record<string, unknown>,
  id = `evt_${randomBytes(10).toString('hex')}`,
  createdAt = Date.now(),
) {
  const body = JSON.stringify({ id, eventType, created_at: createdAt, object });
  return { id, body, headers: { 'content-type': 'application/json', 'creem-signature': signWebhookBody(body, secret) } };
}

/**
 * A delivery signed with Standard Webhooks, as Creem sends when an endpoint uses that scheme (signed by the
 * `standardwebhooks` reference library, not by the code under test). `envelope: 'type-data'` uses the newer
 * `{type, data}` body; `sentAt` moves the signed timestamp (a stale or future delivery).
 */
export function standardSignedWebhook(
  secret: string,
  eventType: string,
  object: Record<string, unknown>,
  opts: { id?: string; sentAt?: Date; envelope?: 'eventType-object' | 'type-data' } = {},
) {
  const id = opts.id ?? `evt_${randomBytes(10).toString('hex')}`;
  const body = JSON.stringify(
    opts.envelope === 'type-data'
      ? { id, type: eventType, created_at: Date.now(), data: object }
      : { id, eventType, created_at: Date.now(), object },
  );
  return { id, body, headers: signStandard(secret, id, body, opts.sentAt) };
}

/** Standard Webhooks headers for any body (also one that is not an event at all). */
export function signStandard(secret: string, id: string, body: string, sentAt = new Date()): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, sentAt, body),
  };
}
