import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PlanId } from '@common/plans.ts';

export type PaymentProviderName = 'sandbox' | 'creem';

export interface CheckoutRequest {
  plan: PlanId;
  /** The users row id; carried in the checkout metadata and back in every webhook about it. */
  userId: string;
  email: string;
  /** Absolute address the payer returns to after paying. */
  successUrl: string;
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
  customerPortalLink(customerId: string): Promise<string>;
  /** True when the body carries this provider's signature; compares in constant time. */
  verifyWebhook(rawBody: Buffer, headers: Headers): boolean;
  /** The plan a provider product id stands for, or undefined for a product this product does not sell. */
  planForProduct(productId: string): PlanId | undefined;
}

/** A provider failure the caller may retry later; its message is safe to show. */
export class PaymentProviderError extends Error {
  constructor(
    message: string,
    readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'PaymentProviderError';
  }
}

// ───────────────────────── Creem wire format (used by both providers) ─────────────────────────

export const SIGNATURE_HEADER = 'creem-signature';

/** Hex HMAC-SHA256 of the raw body keyed with the webhook secret (no timestamp, no prefix). */
export function signWebhookBody(rawBody: Buffer | string, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

export function verifyWebhookSignature(rawBody: Buffer, signature: string | null | undefined, secret: string): boolean {
  if (!signature || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = Buffer.from(signWebhookBody(rawBody, secret), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
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
  payload: WebhookEnvelope;
}

export class MalformedWebhookError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
/** A field that is either an expanded entity or its id. */
const idOf = (v: unknown): string | undefined => (isObj(v) ? str(v.id) : str(v));
const date = (v: unknown): Date | undefined => {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
};
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
 * Reads a Creem-format event. Deliberately lenient about fields it does not use (Creem's samples carry
 * `mode: "local"`, which the SDK's strict schemas refuse), strict about the envelope.
 */
export function parseWebhookEvent(
  provider: PaymentProviderName,
  rawBody: Buffer,
  planForProduct: (productId: string) => PlanId | undefined,
): PaymentEvent {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new MalformedWebhookError('The webhook body is not JSON.');
  }
  if (!isObj(body) || !str(body.id) || !str(body.eventType) || !isObj(body.object)) {
    throw new MalformedWebhookError('The webhook body is not a Creem event envelope.');
  }
  const envelope = body as unknown as WebhookEnvelope;
  const object = envelope.object;
  const kind = str(object.object);

  let subscription: SubscriptionSnapshot | undefined;
  let transactionId: string | undefined;
  let refundId: string | undefined;
  let customer: unknown = object.customer;
  let userId = metaUserId(object);

  if (kind === 'subscription' || envelope.eventType.startsWith('subscription.')) {
    if (str(object.id)) subscription = snapshot(object, undefined, planForProduct);
    transactionId = str(object.last_transaction_id) ?? idOf(object.last_transaction);
  } else if (kind === 'checkout' || envelope.eventType === 'checkout.completed') {
    const order = isObj(object.order) ? object.order : undefined;
    if (isObj(object.subscription) && str(object.subscription.id)) {
      subscription = snapshot(object.subscription, object.product, planForProduct);
      userId ??= metaUserId(object.subscription);
    } else if (str(object.subscription)) {
      subscription = snapshot({ id: object.subscription, customer: object.customer }, object.product, planForProduct);
    }
    transactionId = str(order?.transaction) ?? (isObj(object.subscription) ? str(object.subscription.last_transaction_id) : undefined);
  } else if (kind === 'refund' || kind === 'dispute' || envelope.eventType.startsWith('refund.') || envelope.eventType.startsWith('dispute.')) {
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
    id: envelope.id,
    type: envelope.eventType,
    createdAt: date(envelope.created_at) ?? new Date(),
    userId,
    customerId: idOf(customer) ?? subscription?.customerId,
    email: isObj(customer) ? str(customer.email) : undefined,
    subscription,
    transactionId,
    refundId,
    payload: envelope,
  };
}
