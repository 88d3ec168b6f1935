import { randomUUID } from 'node:crypto';
import { isTopUpPackId, topUpPackById, topUpReason, type TopUpPackId } from '@common/plans.ts';
import type { Db, Executor } from '../db/index.ts';
import { AppError, badRequest } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { PaymentEvent, PaymentProvider } from '../providers/payments/index.ts';
import { topUpsRepository as repo } from '../repositories/top-ups.repository.ts';
import type { CreditsService } from './credits.service.ts';
import { idOf, isObj, packCheckoutOf, startPackCheckout } from './pack-checkout.ts';
import type { UserRow } from './users.service.ts';

export type TopUpsService = ReturnType<typeof createTopUpsService>;

/** The messages a person sees (issue 50 item 2). */
export const TOP_UP_TEXTS = {
  unknownPack: 'Choose one of the credit packs.',
  unavailable: 'Credit packs are not on sale here yet.',
  badReturn: 'This payment confirmation could not be checked. If you paid, your credits arrive within a minute.',
  notYours: 'This payment confirmation belongs to another account.',
} as const;

/** The request id a top-up checkout carries: names the account, so the return page credits only its owner. */
const requestIdFor = (userId: string) => `top_${userId}_${randomUUID().slice(0, 8)}`;
const requestIdNames = (requestId: string | undefined, userId: string) => !!requestId && requestId.startsWith(`top_${userId}_`);

/**
 * One-off credit packs: a one-time checkout, credited exactly once per order whoever reports it first (the signed
 * webhook, replayed or not, or the signed return page), and a refund or chargeback of one takes back what is still
 * unspent, once, with a ledger line that says so.
 */
export function createTopUpsService(deps: { db: Db; credits: CreditsService; payments: PaymentProvider; logger: Logger }) {
  const { db, payments, logger } = deps;
  const provider = payments.name;
  const grantKey = (orderId: string) => `topup:${provider}:order:${orderId}`;
  const reversalKey = (orderId: string) => `topup:${provider}:refund-of:${orderId}`;

  /** Records the order and grants its pack, both once (the order's key); in the caller's transaction. */
  async function credit(tx: Executor, order: { userId: string; orderId: string; transactionId: string | null; pack: TopUpPackId }) {
    const pack = topUpPackById(order.pack);
    const row = await repo.record(tx, { provider, ...order, pack: pack.id, credits: pack.credits });
    if (row.userId !== order.userId || row.teamId) {
      logger.error({ orderId: order.orderId }, 'a top-up order reported for two accounts or a team; credited to the first only');
      return { applied: false };
    }
    return deps.credits.applyIn(tx, {
      userId: row.userId,
      delta: pack.credits,
      kind: 'grant',
      reason: topUpReason(pack),
      idempotencyKey: grantKey(order.orderId),
    });
  }

  return {
    /** POST /api/credits/top-ups: the one-time checkout of a pack. */
    async checkout(user: UserRow, pack: unknown, addresses: { successUrl: string; serverUrl: string }): Promise<{ checkout_url: string }> {
      if (!isTopUpPackId(pack)) throw badRequest(TOP_UP_TEXTS.unknownPack, 'unknown_pack');
      const url = await startPackCheckout(
        deps,
        { pack, userId: user.id, requestId: requestIdFor(user.id), ...addresses },
        { unavailable: TOP_UP_TEXTS.unavailable, failureLog: 'top-up checkout failed' },
      );
      return { checkout_url: url };
    },

    /**
     * checkout.completed of a one-time product that is one of our packs: credits it (once) and answers true;
     * false for anything else (a subscription's checkout), which billing handles.
     */
    async applyCheckout(tx: Executor, userId: string, event: PaymentEvent): Promise<boolean> {
      const checkout = packCheckoutOf(payments, event);
      if (!checkout?.pack) return false;
      const { pack, order, orderId } = checkout;
      if (!orderId || !checkout.paid) {
        logger.warn({ eventId: event.id, orderId }, 'a top-up checkout without a paid order; nothing credited');
        return true;
      }
      await credit(tx, { userId, orderId, transactionId: event.transactionId ?? idOf(order?.transaction) ?? null, pack });
      return true;
    },

    /**
     * The return page: the payer is back with a signed address naming the order. Credits it now if the webhook
     * has not yet (same key: once in all). The request id names the account that started the checkout.
     */
    async confirmReturn(
      user: UserRow,
      params: Record<string, string | undefined>,
    ): Promise<{ credited: boolean; credits: number; balance: number }> {
      const returned = payments.verifyReturn?.(params);
      const pack = returned && payments.packForProduct?.(returned.productId);
      if (!returned || !pack) throw badRequest(TOP_UP_TEXTS.badReturn, 'bad_return');
      if (!requestIdNames(returned.requestId, user.id)) throw new AppError(403, 'not_your_payment', TOP_UP_TEXTS.notYours);
      const result = await db.transaction((tx) => credit(tx, { userId: user.id, orderId: returned.orderId, transactionId: null, pack }));
      return { credited: result.applied, credits: topUpPackById(pack).credits, balance: await deps.credits.balance(user.id) };
    },

    /** Who paid for a refunded or disputed pack, a person's or a team's (billing resolves an event's user with it). */
    async userOfPayment(tx: Executor, event: PaymentEvent): Promise<string | undefined> {
      const object = isObj(event.payload.object) ? event.payload.object : undefined;
      const row = await repo.findForReversal(tx, provider, { transactionId: event.transactionId, orderId: idOf(object?.order) });
      return row?.userId;
    },

    /**
     * refund.created or dispute.created of a top-up: takes back what is left of its credits (never below zero),
     * once, and records it. True when the event was a top-up's; false leaves it to billing.
     */
    async applyReversal(tx: Executor, userId: string, event: PaymentEvent): Promise<boolean> {
      if (event.type !== 'refund.created' && event.type !== 'dispute.created') return false;
      const object = isObj(event.payload.object) ? event.payload.object : undefined;
      const row = await repo.findForReversal(tx, provider, { transactionId: event.transactionId, orderId: idOf(object?.order) });
      // A team's order (team-purchases.service.ts) is taken back from the team's balance, never the payer's.
      if (!row || row.userId !== userId || row.teamId) return false;
      if (row.reversedAt) return true;
      const amount = Math.min(row.credits, await repo.lockedBalance(tx, userId));
      if (amount > 0) {
        await deps.credits.applyIn(tx, {
          userId,
          delta: -amount,
          kind: 'adjustment',
          reason: `Top-up ${event.type === 'dispute.created' ? 'charged back' : 'refunded'}: ${amount.toLocaleString('en-US')} unspent credits removed`,
          idempotencyKey: reversalKey(row.orderId),
        });
      }
      await repo.markReversed(tx, provider, row.orderId, amount);
      if (amount < row.credits)
        logger.warn({ orderId: row.orderId, taken: amount, granted: row.credits }, 'a reversed top-up had been partly spent');
      return true;
    },
  };
}
