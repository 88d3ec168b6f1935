import type { TopUpPackId } from '@common/plans.ts';
import { BILLING_REFUSALS, EMAIL_PATTERN } from '@common/billing.ts';
import type { Db } from '../db/index.ts';
import { AppError } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import { PaymentProviderError, type PaymentEvent, type PaymentProvider } from '../providers/payments/index.ts';
import { usersRepository } from '../repositories/users.repository.ts';

/**
 * The one-time checkout of a credit pack, shared by a person's top-ups (top-ups.service.ts) and a team's
 * purchases (team-purchases.service.ts): starting it, and reading the pack order a checkout.completed names.
 */
export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const idOf = (v: unknown): string | undefined => (isObj(v) ? idOf(v.id) : typeof v === 'string' && v !== '' ? v : undefined);

/** Starts the provider's checkout of `pack` for `userId`, who needs a verified address; a provider failure is a 502. */
export async function startPackCheckout(
  deps: { db: Db; payments: PaymentProvider; logger: Logger },
  order: { pack: TopUpPackId; userId: string; requestId: string; successUrl: string; serverUrl: string },
  texts: { unavailable: string; failureLog: string },
): Promise<string> {
  const { payments } = deps;
  if (!payments.createTopUpCheckout) throw new AppError(503, 'top_ups_unavailable', texts.unavailable);
  const email = await usersRepository.verifiedEmailOf(deps.db, order.userId);
  if (!email || !EMAIL_PATTERN.test(email))
    throw new AppError(400, BILLING_REFUSALS.emailRequired.code, BILLING_REFUSALS.emailRequired.message);
  try {
    return await payments.createTopUpCheckout({ ...order, email });
  } catch (err) {
    if (!(err instanceof PaymentProviderError)) throw err;
    deps.logger.error({ err: err.cause ?? err, provider: payments.name }, texts.failureLog);
    throw new AppError(502, 'payment_provider', err.message);
  }
}

/**
 * What a checkout.completed of a one-time product says: its checkout object, the order, the pack its product is
 * (undefined when it is none of ours) and whether the order is paid. Null for any other event.
 */
export function packCheckoutOf(payments: PaymentProvider, event: PaymentEvent) {
  if (event.type !== 'checkout.completed' || event.subscription || !payments.packForProduct) return null;
  const object = (isObj(event.payload.object) ? event.payload.object : event.payload.data) as Obj | undefined;
  const order = isObj(object?.order) ? object.order : undefined;
  const productId = idOf(object?.product) ?? idOf(order?.product);
  return {
    object,
    order,
    pack: productId ? payments.packForProduct(productId) : undefined,
    orderId: idOf(order),
    paid: !(typeof order?.status === 'string' && order.status !== 'paid'),
  };
}
