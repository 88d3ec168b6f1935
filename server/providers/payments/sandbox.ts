import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isPlanId, isTopUpPackId, planById, topUpPackById, type PlanId, type TopUpPackId } from '@common/plans.ts';
import {
  PaymentProviderError,
  SIGNATURE_HEADER,
  signReturnParams,
  signWebhookBody,
  verifyReturnParams,
  verifyWebhookDelivery,
  type CheckoutRequest,
  type PaymentProvider,
  type WebhookEnvelope,
} from './provider.ts';

/**
 * The built-in test payment service (the default with no Creem key). Its checkout and portal are pages of
 * the product itself (server/routes/sandbox.routes.ts); what they do reaches the product only as signed
 * Creem-format webhooks posted over HTTP, so a sandbox payment runs through the same code as a real one.
 * No money moves.
 */
export interface SandboxProvider extends PaymentProvider {
  readonly name: 'sandbox';
  /** The checkout a /sandbox/checkout/<id> address stands for, or undefined when forged or expired. */
  readCheckout(id: string): SandboxCheckout | undefined;
  /** What a portal link's `access` token grants (hosted mode), or undefined when forged, expired or for another customer. */
  readPortalAccess(token: string, customerId: string): SandboxPortalAccess | undefined;
  /** The stable, unguessable sandbox customer id of a user. */
  customerIdFor(userId: string): string;
  productIdFor(plan: PlanId): string;
  /** Wraps an object in a signed Creem event envelope. */
  /** The top-up checkout a /sandbox/top-up/<id> address stands for, or undefined when forged or expired. */
  readTopUpCheckout(id: string): SandboxTopUpCheckout | undefined;
  /** The signed return address of a paid top-up, as Creem's success redirect is. */
  signedReturnUrl(successUrl: string, params: Record<string, string>): string;
  signedEvent(eventType: string, object: Record<string, unknown>, eventId?: string): { body: string; signature: string };
  /** Posts a signed event to a webhook endpoint and fails unless it answers 200. */
  deliver(webhookUrl: string, event: { body: string; signature: string }): Promise<void>;
}

export interface SandboxCheckout {
  id: string;
  plan: PlanId;
  userId: string;
  email: string;
  successUrl: string;
}

export interface SandboxTopUpCheckout {
  id: string;
  pack: TopUpPackId;
  userId: string;
  email: string;
  successUrl: string;
  requestId: string;
}

/** What the sandbox knows about a subscription when it writes an event about it. */
export interface SandboxSubscription {
  id: string;
  userId: string;
  customerId: string;
  email: string | null;
  plan: PlanId;
  status: string;
  periodStart: Date;
  periodEnd: Date;
  canceledAt: Date | null;
  transactionId: string | null;
}

/** A hosted SPA's portal link lets its holder act for the customer without a cookie session, briefly. */
export interface SandboxPortalAccess {
  userId: string;
  /** Where 'Return to Likeness' leads (the SPA's subscription page). */
  returnUrl: string;
}

const CHECKOUT_TTL_MS = 24 * 60 * 60 * 1000;
const PORTAL_ACCESS_TTL_MS = 60 * 60 * 1000;
const PRODUCT_PREFIX = 'prod_sandbox_';
const PACK_PREFIX = 'prod_sandbox_topup_';

export function createSandboxProvider(opts: { webhookSecret: string; publicUrl?: string }): SandboxProvider {
  // Checkout addresses are signed with a key derived from the webhook secret, so they need no storage.
  const tokenKey = createHmac('sha256', opts.webhookSecret).update('sandbox-checkout-token').digest();
  const customerKey = createHmac('sha256', opts.webhookSecret).update('sandbox-customer-id').digest();
  const returnKey = createHmac('sha256', opts.webhookSecret).update('sandbox-return-signature').digest('hex');
  const tokenMac = (payload: string) => createHmac('sha256', tokenKey).update(payload).digest('base64url');

  /** A signed, expiring token carrying `data` (the sandbox keeps no state for its links). */
  const seal = (data: Record<string, unknown>, ttlMs: number) => {
    const payload = Buffer.from(JSON.stringify({ ...data, x: Date.now() + ttlMs, n: randomBytes(6).toString('base64url') })).toString(
      'base64url',
    );
    return `${payload}.${tokenMac(payload)}`;
  };
  /** The data of a token this sandbox sealed and that has not expired; undefined otherwise. */
  const unseal = (token: string): Record<string, unknown> | undefined => {
    const [payload, mac] = token.split('.');
    if (!payload || !mac) return undefined;
    const expected = Buffer.from(tokenMac(payload));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return undefined;
    }
    return typeof data.x === 'number' && data.x >= Date.now() ? data : undefined;
  };

  return {
    name: 'sandbox',

    async createCheckout(request: CheckoutRequest) {
      const id = seal({ p: request.plan, u: request.userId, e: request.email, s: request.successUrl }, CHECKOUT_TTL_MS);
      return `${request.serverUrl}/sandbox/checkout/${id}`;
    },

    async customerPortalLink(customerId, context) {
      const path = `/sandbox/portal/${encodeURIComponent(customerId)}`;
      if (!context) return `${opts.publicUrl?.replace(/\/$/, '') ?? ''}${path}`;
      const access = seal({ c: customerId, u: context.userId, r: context.returnUrl }, PORTAL_ACCESS_TTL_MS);
      return `${context.serverUrl}${path}?access=${access}`;
    },

    readPortalAccess(token, customerId) {
      const data = unseal(token);
      if (!data || data.c !== customerId || typeof data.u !== 'string' || typeof data.r !== 'string') return undefined;
      return { userId: data.u, returnUrl: data.r };
    },

    verifyWebhook(rawBody, headers) {
      return verifyWebhookDelivery(rawBody, headers, opts.webhookSecret);
    },

    planForProduct(productId) {
      const plan = productId.startsWith(PRODUCT_PREFIX) ? productId.slice(PRODUCT_PREFIX.length).toUpperCase() : '';
      return isPlanId(plan) ? plan : undefined;
    },

    productIdFor(plan) {
      return PRODUCT_PREFIX + plan.toLowerCase();
    },

    async createTopUpCheckout(request) {
      const id = seal(
        { k: request.pack, u: request.userId, e: request.email, s: request.successUrl, r: request.requestId },
        CHECKOUT_TTL_MS,
      );
      return `${request.serverUrl}/sandbox/top-up/${id}`;
    },

    packForProduct(productId) {
      const pack = productId.startsWith(PACK_PREFIX) ? productId.slice(PACK_PREFIX.length).toUpperCase() : '';
      return isTopUpPackId(pack) ? pack : undefined;
    },

    verifyReturn(params) {
      return verifyReturnParams(params, returnKey);
    },

    signedReturnUrl(successUrl, params) {
      const url = new URL(successUrl, 'http://placeholder');
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      // Over the order's own fields only, as Creem signs its redirect: the success address's own query (the team
      // page's `purchase=done`) is the product's, and the return endpoints read only the signed fields.
      url.searchParams.set('signature', signReturnParams(params, returnKey));
      return /^https?:/.test(successUrl) ? url.toString() : `${url.pathname}${url.search}`;
    },

    readTopUpCheckout(id) {
      const data = unseal(id);
      if (!data || !isTopUpPackId(data.k)) return undefined;
      return { id, pack: data.k, userId: String(data.u), email: String(data.e), successUrl: String(data.s), requestId: String(data.r) };
    },

    readCheckout(id) {
      const data = unseal(id);
      if (!data || !isPlanId(data.p)) return undefined;
      return { id, plan: data.p, userId: String(data.u), email: String(data.e), successUrl: String(data.s) };
    },

    customerIdFor(userId) {
      return `cust_sbx_${createHmac('sha256', customerKey).update(userId).digest('hex').slice(0, 24)}`;
    },

    signedEvent(eventType, object, eventId) {
      const envelope: WebhookEnvelope = {
        id: eventId ?? `evt_sbx_${randomBytes(12).toString('hex')}`,
        eventType,
        created_at: Date.now(),
        object,
      };
      const body = JSON.stringify(envelope);
      return { body, signature: signWebhookBody(body, opts.webhookSecret) };
    },

    async deliver(webhookUrl, event) {
      let res: Response;
      try {
        res = await fetch(webhookUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: event.signature },
          body: event.body,
          signal: AbortSignal.timeout(15_000),
        });
      } catch (err) {
        throw new PaymentProviderError('The test payment service could not reach the webhook endpoint.', err);
      }
      if (res.status !== 200) {
        throw new PaymentProviderError(`The webhook endpoint refused the test payment event (HTTP ${res.status}).`, undefined, res.status);
      }
    },
  };
}

export function isSandboxProvider(provider: PaymentProvider): provider is SandboxProvider {
  return provider.name === 'sandbox' && 'readCheckout' in provider;
}

/** Short stable ids derived from a seed, so a repeated sandbox action describes the same payment. */
export function sandboxIds(seed: string) {
  const h = createHash('sha256').update(seed).digest('hex').slice(0, 24);
  return {
    subscription: `sub_sbx_${h}`,
    transaction: `tran_sbx_${h}`,
    order: `ord_sbx_${h}`,
    checkout: `ch_sbx_${h}`,
    event: `evt_sbx_${h}`,
  };
}

export function sandboxProduct(sandbox: SandboxProvider, plan: PlanId) {
  const p = planById(plan);
  return {
    id: sandbox.productIdFor(plan),
    object: 'product',
    name: p.name,
    price: p.priceUsd * 100,
    currency: 'USD',
    billing_type: 'recurring',
    billing_period: 'every-month',
    mode: 'sandbox',
  };
}

/** A subscription object shaped like Creem's (expanded product and customer, checkout metadata carried over). */
export function sandboxSubscriptionObject(sandbox: SandboxProvider, sub: SandboxSubscription) {
  return {
    id: sub.id,
    object: 'subscription',
    mode: 'sandbox',
    product: sandboxProduct(sandbox, sub.plan),
    customer: { id: sub.customerId, object: 'customer', email: sub.email, mode: 'sandbox' },
    collection_method: 'charge_automatically',
    status: sub.status,
    last_transaction_id: sub.transactionId ?? undefined,
    current_period_start_date: sub.periodStart.toISOString(),
    current_period_end_date: sub.periodEnd.toISOString(),
    canceled_at: sub.canceledAt?.toISOString() ?? null,
    metadata: { userId: sub.userId, plan: sub.plan },
  };
}

/** A one-time product shaped like Creem's (`billing_type: onetime`). */
export function sandboxTopUpProduct(pack: TopUpPackId) {
  const p = topUpPackById(pack);
  return {
    id: PACK_PREFIX + pack.toLowerCase(),
    object: 'product',
    name: `Likeness ${p.label}`,
    price: p.priceUsd * 100,
    currency: 'USD',
    billing_type: 'onetime',
    mode: 'sandbox',
  };
}
