import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PlanId, TopUpPackId } from '@common/plans.ts';
import { isStorableText, TEXT_LIMITS } from '@common/text.ts';

export type PaymentProviderName = 'sandbox' | 'creem';

type CreemWebhooks = typeof import('creem/webhooks.js');
let creemWebhooksModule: Promise<CreemWebhooks> | undefined;
/**
 * Creem's webhook helpers, loaded with the first delivery rather than at start: their schemas hold 4 MB of heap
 * that every major GC would mark again (docs/decisions/014-generate-path.md, fifth pass).
 */
const creemWebhooks = () => (creemWebhooksModule ??= import('creem/webhooks.js'));

export interface CheckoutRequest {
  plan: PlanId;
  /** The users row id; carried in the checkout metadata and back in every webhook about it. */
  userId: string;
  email: string;
  /** Absolute address the payer returns to after paying (the SPA's, which may be on another origin). */
  successUrl: string;
  /** This server's address, where the sandbox's own pages live. */
  serverUrl: string;
}

/** A one-time checkout of a credit pack (issue 50 item 2). */
export interface TopUpCheckoutRequest {
  pack: TopUpPackId;
  userId: string;
  email: string;
  successUrl: string;
  serverUrl: string;
  /** Echoed, signed, in the return address: names the account the return page may credit. */
  requestId: string;
}

/** What a signed return address (the payer back from checkout) reports. */
export interface ReturnedOrder {
  orderId: string;
  productId: string;
  requestId: string | undefined;
}

/**
 * The signature of a return address as Creem makes it: hex HMAC-SHA256 keyed with `key` over the non-null
 * parameters but `signature`, sorted by name, as `k=v&…` (shared/contracts/creem.md).
 */
export function signReturnParams(params: Record<string, string | null | undefined>, key: string): string {
  const text = Object.keys(params)
    .filter((k) => k !== 'signature' && params[k] !== null && params[k] !== undefined && params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
  return createHmac('sha256', key).update(text).digest('hex');
}

/** The order a return address reports when its signature holds under `key`; undefined otherwise. */
export function verifyReturnParams(params: Record<string, string | undefined>, key: string): ReturnedOrder | undefined {
  const given = params.signature ?? '';
  const expected = signReturnParams(params, key);
  if (!/^[0-9a-f]{64}$/.test(given) || !timingSafeEqual(Buffer.from(given), Buffer.from(expected))) return undefined;
  if (!params.order_id || !params.product_id) return undefined;
  return { orderId: params.order_id, productId: params.product_id, requestId: params.request_id };
}

/**
 * Where a customer portal is opened from, when the SPA is on another origin than the server (hosted mode):
 * the sandbox's portal then needs its own signed access (the SPA's session is a bearer token its pages
 * never see) and a way back. Creem's portal is Creem's own page and needs neither.
 */
export interface PortalContext {
  serverUrl: string;
  returnUrl: string;
  /** The users row the portal acts for. */
  userId: string;
}

/**
 * A payment service as the product needs it. Both implementations speak Creem's webhook wire format, so
 * the billing service processes a sandbox payment exactly like a real one.
 */
export interface PaymentProvider {
  readonly name: PaymentProviderName;
  /** Starts a hosted checkout and returns the address to send the payer to. */
  createCheckout(request: CheckoutRequest): Promise<string>;
  /** A link to the provider's self-service page for this customer (change plan, cancel, invoices). */
  customerPortalLink(customerId: string, context?: PortalContext): Promise<string>;
  /**
   * Cancels a subscription at once, so nothing more is charged (deleting an account). Throws
   * PaymentProviderError when the provider refuses or cannot be reached. The sandbox has no API of its own:
   * its subscriptions are cancelled through its portal's action (SandboxPaymentsService.cancel).
   */
  cancelSubscription?(subscriptionId: string): Promise<void>;
  /** Checks the delivery's signature (either Creem scheme); the verdict says why when it fails. */
  verifyWebhook(rawBody: Buffer, headers: Headers): Promise<WebhookVerdict>;
  /** The plan a provider product id stands for, or undefined for a product this product does not sell. */
  planForProduct(productId: string): PlanId | undefined;
  /** One-off credit packs (issue 50): starts a one-time checkout. Absent where the provider is not set up for them. */
  createTopUpCheckout?(request: TopUpCheckoutRequest): Promise<string>;
  /** The pack a provider product id stands for, or undefined. */
  packForProduct?(productId: string): TopUpPackId | undefined;
  /** The order a return address reports, when its signature holds. */
  verifyReturn?(params: Record<string, string | undefined>): ReturnedOrder | undefined;
  /**
   * Asks the provider whether it accepts this configuration (readiness): a sentence naming what it refuses,
   * null when all is well; throws when the provider cannot be asked (which says nothing about the config).
   */
  configurationProblem?(): Promise<string | null>;
}

/** A provider failure the caller may retry later; its message is safe to show. */
export class PaymentProviderError extends Error {
  constructor(
    message: string,
    readonly cause?: unknown,
    /** The HTTP status the other side answered with, when it answered (the sandbox's webhook delivery). */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'PaymentProviderError';
  }
}

// ───────────────────────── Creem wire format (used by both providers) ─────────────────────────

/** The legacy scheme's header, which the sandbox signs with: hex HMAC-SHA256 of the raw body. */
export const SIGNATURE_HEADER = 'creem-signature';
/** Standard Webhooks deliveries older (or further ahead) than this are refused as replays. */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

export type WebhookVerdict = { ok: true } | { ok: false; reason: string };

/** Hex HMAC-SHA256 of the raw body keyed with the webhook secret: how the sandbox signs (legacy scheme). */
export function signWebhookBody(rawBody: Buffer | string, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * Verifies a delivery with the `creem` SDK, which accepts both of Creem's schemes: Standard Webhooks
 * (`webhook-id`, `webhook-timestamp` within the tolerance, `webhook-signature: v1,<base64>`, `whsec_` secret)
 * and the legacy hex `creem-signature`. Any failure (including a secret that is not base64 meeting Standard
 * headers, which the SDK reports as a DOMException) is a refusal, never a server error.
 */
export async function verifyWebhookDelivery(rawBody: Buffer, headers: Headers, secret: string): Promise<WebhookVerdict> {
  const { verifyWebhookSignature } = await creemWebhooks();
  try {
    await verifyWebhookSignature(new Uint8Array(rawBody), headers, { secret, toleranceInSeconds: WEBHOOK_TOLERANCE_SECONDS });
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** The event envelope Creem posts: `{id: 'evt_…', eventType, created_at (epoch ms), object}`. */
export interface WebhookEnvelope {
  id: string;
  eventType: string;
  created_at: number;
  object: Record<string, unknown>;
}

/** The subscription as an event describes it, in the product's terms. */
export interface SubscriptionSnapshot {
  id: string;
  customerId: string | undefined;
  /** The plan of the subscription's product; undefined when the product is not one of ours. */
  plan: PlanId | undefined;
  /** Creem's status: active | canceled | unpaid | paused | trialing | scheduled_cancel | past_due | expired. */
  status: string | undefined;
  currentPeriodStart: Date | undefined;
  currentPeriodEnd: Date | undefined;
  canceledAt: Date | undefined;
}

/** A webhook event in provider-neutral form. */
export interface PaymentEvent {
  provider: PaymentProviderName;
  id: string;
  type: string;
  createdAt: Date;
  /** From the checkout metadata, which Creem carries over to the subscription. */
  userId: string | undefined;
  customerId: string | undefined;
  email: string | undefined;
  subscription: SubscriptionSnapshot | undefined;
  /** The payment this event is about (first payment, renewal or the refunded one). */
  transactionId: string | undefined;
  /** refund.created: the refund's own id. */
  refundId: string | undefined;
  /** The body as received (checked storable: depth, text), kept with the event's record. */
  payload: Record<string, unknown>;
}

/** A verified delivery the product cannot read; it is recorded and acknowledged, never retried. */
export class MalformedWebhookError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A non-empty string short enough to be an id or status the product stores; a longer one is malformed. */
const str = (v: unknown): string | undefined => {
  if (typeof v !== 'string' || v === '') return undefined;
  if (v.length > TEXT_LIMITS.id) throw new MalformedWebhookError(`A field of the event is longer than ${TEXT_LIMITS.id} characters.`);
  return v;
};
/** A field that is either an expanded entity or its id. */
const idOf = (v: unknown): string | undefined => (isObj(v) ? str(v.id) : str(v));
/** Dates outside 1970–9999 are not Creem's (and some do not fit Postgres' timestamp range). */
const MAX_DATE_MS = Date.UTC(9999, 11, 31);
const date = (v: unknown): Date | undefined => {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const d = new Date(v);
  const t = d.getTime();
  return Number.isNaN(t) || t < 0 || t > MAX_DATE_MS ? undefined : d;
};

/** How deep a stored payload may nest; Creem's events are a few levels deep. */
const MAX_PAYLOAD_DEPTH = 32;

/** Throws when the payload could not be stored as jsonb: too deep, or text Postgres cannot hold. */
function checkStorable(value: unknown): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (!isStorableText(v))
        throw new MalformedWebhookError('The event contains text that cannot be stored (NUL or an unpaired surrogate).');
    } else if (typeof v === 'object' && v !== null) {
      if (depth >= MAX_PAYLOAD_DEPTH) throw new MalformedWebhookError(`The event is nested deeper than ${MAX_PAYLOAD_DEPTH} levels.`);
      for (const [key, child] of Object.entries(v)) {
        if (!isStorableText(key)) throw new MalformedWebhookError('The event contains a key that cannot be stored.');
        stack.push([child, depth + 1]);
      }
    }
  }
}
const metaUserId = (...sources: unknown[]): string | undefined => {
  for (const s of sources) if (isObj(s) && isObj(s.metadata) && str(s.metadata.userId)) return str(s.metadata.userId);
  return undefined;
};

function snapshot(sub: Obj, fallbackProduct: unknown, planForProduct: (id: string) => PlanId | undefined): SubscriptionSnapshot {
  const productId = idOf(sub.product) ?? idOf(fallbackProduct);
  return {
    id: str(sub.id)!,
    customerId: idOf(sub.customer),
    plan: productId ? planForProduct(productId) : undefined,
    status: str(sub.status),
    currentPeriodStart: date(sub.current_period_start_date),
    currentPeriodEnd: date(sub.current_period_end_date),
    canceledAt: date(sub.canceled_at),
  };
}

/**
 * Reads a verified Creem event: the envelope with the SDK (`{eventType, object}` or the newer `{type, data}`),
 * then the fields the product uses. Deliberately lenient about fields it does not use (Creem's samples carry
 * `mode: "local"`, which the SDK's strict schemas refuse), strict about the envelope and about anything it
 * stores. Throws MalformedWebhookError for a body it cannot read.
 */
export async function parseWebhookEvent(
  provider: PaymentProviderName,
  rawBody: Buffer,
  planForProduct: (productId: string) => PlanId | undefined,
): Promise<PaymentEvent> {
  const { parseWebhookEvent: parseEnvelope } = await creemWebhooks();
  let envelope: ReturnType<CreemWebhooks['parseWebhookEvent']>;
  try {
    // The SDK assumes a JSON object: `null` makes it throw a TypeError, a string a plain Error.
    envelope = parseEnvelope(new Uint8Array(rawBody));
  } catch {
    throw new MalformedWebhookError('The webhook body is not a Creem event.');
  }
  checkStorable(envelope.raw);
  const id = str(envelope.id);
  const type = str(envelope.type);
  const object = envelope.data;
  if (!isObj(envelope.raw) || !id || !type || !isObj(object))
    throw new MalformedWebhookError('The webhook body is not a Creem event envelope.');
  const kind = str(object.object);

  let subscription: SubscriptionSnapshot | undefined;
  let transactionId: string | undefined;
  let refundId: string | undefined;
  let customer: unknown = object.customer;
  let userId = metaUserId(object);

  if (kind === 'subscription' || type.startsWith('subscription.')) {
    if (str(object.id)) subscription = snapshot(object, undefined, planForProduct);
    transactionId = str(object.last_transaction_id) ?? idOf(object.last_transaction);
  } else if (kind === 'checkout' || type === 'checkout.completed') {
    const order = isObj(object.order) ? object.order : undefined;
    if (isObj(object.subscription) && str(object.subscription.id)) {
      subscription = snapshot(object.subscription, object.product, planForProduct);
      userId ??= metaUserId(object.subscription);
    } else if (str(object.subscription)) {
      subscription = snapshot({ id: object.subscription, customer: object.customer }, object.product, planForProduct);
    }
    transactionId = str(order?.transaction) ?? (isObj(object.subscription) ? str(object.subscription.last_transaction_id) : undefined);
  } else if (kind === 'refund' || kind === 'dispute' || type.startsWith('refund.') || type.startsWith('dispute.')) {
    refundId = str(object.id);
    transactionId = idOf(object.transaction);
    if (isObj(object.subscription) && str(object.subscription.id)) {
      subscription = snapshot(object.subscription, undefined, planForProduct);
      userId ??= metaUserId(object.subscription);
    }
    userId ??= metaUserId(object.checkout, object.order);
  }
  customer ??= subscription?.customerId;

  return {
    provider,
    id,
    type,
    createdAt: date(envelope.createdAt) ?? new Date(),
    userId,
    customerId: idOf(customer) ?? subscription?.customerId,
    email: isObj(customer) && typeof customer.email === 'string' ? customer.email : undefined,
    subscription,
    transactionId,
    refundId,
    payload: envelope.raw as Record<string, unknown>,
  };
}
