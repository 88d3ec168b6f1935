import { randomUUID } from 'node:crypto';
import { topUpPackById, type TopUpPackId } from '@common/plans.ts';
import { TEAM_TEXTS } from '@common/teams.ts';
import type { Db, Executor } from '../db/index.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import type { Logger } from '../logger.ts';
import type { PaymentEvent, PaymentProvider } from '../providers/payments/index.ts';
import { AppError, badRequest } from '../domain/errors.ts';
import { teamCreditsRepository } from '../repositories/team-credits.repository.ts';
import { teamsRepository } from '../repositories/teams.repository.ts';
import { topUpsRepository } from '../repositories/top-ups.repository.ts';
import { requireMembership } from './team-access.ts';
import { idOf, isObj, packCheckoutOf, startPackCheckout } from './pack-checkout.ts';
import { applyTeamChange } from './team-credits.service.ts';

export type TeamPurchasesService = ReturnType<typeof createTeamPurchasesService>;

/**
 * The checkout's request id names the team (issue 49 item 2): set by this server when the owner starts the
 * checkout, echoed by the provider in the signed checkout.completed (Creem's `request_id`; the sandbox's too),
 * so the webhook knows whose ledger to credit without trusting anything the payer sent.
 */
const REQUEST_ID = /^team_([0-9a-f]{32})_[0-9a-f]{8}$/;
const requestIdFor = (teamId: string) => `team_${teamId.replace(/-/g, '')}_${randomUUID().slice(0, 8)}`;
const teamOfRequestId = (requestId: unknown): string | undefined => {
  const hex = typeof requestId === 'string' ? REQUEST_ID.exec(requestId)?.[1] : undefined;
  return hex && `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/**
 * Team credits (issue 49 item 2, docs/decisions/025-team-spaces-and-purchases.md): the owner buys one of the
 * credit packs for the team through the same one-time checkout as a person's (sandbox or Creem), and the
 * signed webhook grants the pack to the team's ledger, once per order. Nothing reaches the buyer's own balance.
 */
export function createTeamPurchasesService(deps: { db: Db; events: EventBus; payments: PaymentProvider; logger: Logger }) {
  const { db, payments, logger } = deps;
  const provider = payments.name;
  const grantKey = (orderId: string) => `team-topup:${provider}:order:${orderId}`;

  const reversalKey = (orderId: string) => `team-topup:${provider}:refund-of:${orderId}`;

  /** Records the team's order and grants its pack to the team's ledger, both once (the order's key). */
  async function credit(
    tx: Executor,
    order: { teamId: string; userId: string; orderId: string; transactionId: string | null; pack: TopUpPackId },
  ): Promise<{ applied: boolean; balance: number }> {
    const credits = topUpPackById(order.pack).credits;
    const row = await topUpsRepository.record(tx, { provider, ...order, credits });
    if (row.teamId !== order.teamId) {
      logger.error({ orderId: order.orderId, teamId: order.teamId }, 'a pack order reported for two owners; granted to the first only');
      return { applied: false, balance: (await teamCreditsRepository.balance(tx, order.teamId)) ?? 0 };
    }
    const result = await applyTeamChange(tx, deps.events, {
      teamId: order.teamId,
      userId: order.userId,
      delta: credits,
      kind: 'grant',
      reason: TEAM_TEXTS.purchaseReason(credits),
      idempotencyKey: grantKey(order.orderId),
    });
    logger.info({ teamId: order.teamId, orderId: order.orderId, credits, applied: result.applied }, 'team credits bought');
    return result;
  }

  return {
    /** POST /api/teams/:id/credits/checkout: the owner's one-time checkout of a pack for the team. */
    async checkout(
      userId: string,
      teamId: string,
      pack: TopUpPackId,
      addresses: { successUrl: string; serverUrl: string },
    ): Promise<{ checkout_url: string }> {
      await requireMembership(db, userId, teamId, 'owner');
      const url = await startPackCheckout(
        deps,
        { pack, userId, requestId: requestIdFor(teamId), ...addresses },
        { unavailable: TEAM_TEXTS.purchaseUnavailable, failureLog: 'team credits checkout failed' },
      );
      logger.info({ userId, teamId, pack }, 'team credits checkout started');
      return { checkout_url: url };
    },

    /**
     * checkout.completed of a pack bought for a team: grants it to the team's ledger once (the order's key) and
     * answers true; false for anything else, which the person's billing handles. In the webhook's transaction.
     */
    async applyCheckout(tx: Executor, userId: string, event: PaymentEvent): Promise<boolean> {
      const checkout = packCheckoutOf(payments, event);
      const teamId = teamOfRequestId(checkout?.object?.request_id);
      if (!checkout || !teamId) return false;
      const { pack, orderId } = checkout;
      if (!pack || !orderId || !checkout.paid) {
        logger.warn({ eventId: event.id, orderId, teamId }, 'a team checkout without a paid order of a pack; nothing granted');
        return true;
      }
      if (!(await teamsRepository.findTeam(tx, teamId))) {
        logger.error({ eventId: event.id, orderId, teamId }, 'team credits bought for a team that no longer exists; nothing granted');
        return true;
      }
      await credit(tx, { teamId, userId, orderId, transactionId: event.transactionId ?? idOf(checkout.order?.transaction) ?? null, pack });
      return true;
    },

    /**
     * The owner is back on the team page with the provider's signed return address: grants the order now if its
     * webhook has not yet (same key: once in all). The request id must name this team (the server set it).
     */
    async confirmReturn(
      userId: string,
      teamId: string,
      params: Record<string, string | undefined>,
    ): Promise<{ credited: boolean; credits: number; balance: number }> {
      await requireMembership(db, userId, teamId, 'owner');
      const returned = payments.verifyReturn?.(params);
      const pack = returned && payments.packForProduct?.(returned.productId);
      if (!returned || !pack) throw badRequest(TEAM_TEXTS.purchaseBadReturn, 'bad_return');
      if (teamOfRequestId(returned.requestId) !== teamId) throw new AppError(403, 'not_this_team', TEAM_TEXTS.purchaseOtherTeam);
      const result = await db.transaction((tx) => credit(tx, { teamId, userId, orderId: returned.orderId, transactionId: null, pack }));
      return { credited: result.applied, credits: topUpPackById(pack).credits, balance: result.balance };
    },

    /**
     * refund.created or dispute.created of a team's pack: takes back from the team's balance what is left of it
     * (min(pack, balance), never below zero), once, and records it on the order. False when the event is not about
     * a team's order (the person's top-ups and billing handle it).
     */
    async applyReversal(tx: Executor, event: PaymentEvent): Promise<boolean> {
      if (event.type !== 'refund.created' && event.type !== 'dispute.created') return false;
      const object = isObj(event.payload.object) ? event.payload.object : undefined;
      const row = await topUpsRepository.findForReversal(tx, provider, {
        transactionId: event.transactionId,
        orderId: idOf(object?.order),
      });
      if (!row?.teamId) return false;
      if (row.reversedAt) return true;
      const amount = Math.min(row.credits, (await teamCreditsRepository.lockBalance(tx, row.teamId)) ?? 0);
      if (amount > 0)
        await applyTeamChange(tx, deps.events, {
          teamId: row.teamId,
          userId: row.userId,
          delta: -amount,
          kind: 'adjustment',
          reason: TEAM_TEXTS.purchaseReversed(event.type === 'dispute.created' ? 'charged back' : 'refunded', amount),
          idempotencyKey: reversalKey(row.orderId),
        });
      await topUpsRepository.markReversed(tx, provider, row.orderId, amount);
      if (amount < row.credits)
        logger.warn(
          { orderId: row.orderId, teamId: row.teamId, taken: amount, granted: row.credits },
          'a reversed team pack had been partly spent',
        );
      return true;
    },
  };
}
