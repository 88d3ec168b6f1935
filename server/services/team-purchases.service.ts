import { randomUUID } from 'node:crypto';
import { topUpPackById, type TopUpPackId } from '@common/plans.ts';
import { BILLING_REFUSALS, EMAIL_PATTERN } from '@common/billing.ts';
import { TEAM_TEXTS } from '@common/teams.ts';
import type { Db, Executor } from '../db/index.ts';
import { AppError } from '../domain/errors.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import type { Logger } from '../logger.ts';
import { PaymentProviderError, type PaymentEvent, type PaymentProvider } from '../providers/payments/index.ts';
import { usersRepository } from '../repositories/users.repository.ts';
import { teamsRepository } from '../repositories/teams.repository.ts';
import { requireMembership } from './team-access.ts';
import { applyTeamChange } from './team-credits.service.ts';

export type TeamPurchasesService = ReturnType<typeof createTeamPurchasesService>;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const idOf = (v: unknown): string | undefined => (isObj(v) ? idOf(v.id) : typeof v === 'string' && v !== '' ? v : undefined);

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

  return {
    /** POST /api/teams/:id/credits/checkout: the owner's one-time checkout of a pack for the team. */
    async checkout(
      userId: string,
      teamId: string,
      pack: TopUpPackId,
      addresses: { successUrl: string; serverUrl: string },
    ): Promise<{ checkout_url: string }> {
      await requireMembership(db, userId, teamId, 'owner');
      if (!payments.createTopUpCheckout) throw new AppError(503, 'top_ups_unavailable', TEAM_TEXTS.purchaseUnavailable);
      const email = await usersRepository.verifiedEmailOf(db, userId);
      if (!email || !EMAIL_PATTERN.test(email))
        throw new AppError(400, BILLING_REFUSALS.emailRequired.code, BILLING_REFUSALS.emailRequired.message);
      try {
        const url = await payments.createTopUpCheckout({ pack, userId, email, requestId: requestIdFor(teamId), ...addresses });
        logger.info({ userId, teamId, pack }, 'team credits checkout started');
        return { checkout_url: url };
      } catch (err) {
        if (!(err instanceof PaymentProviderError)) throw err;
        logger.error({ err: err.cause ?? err, provider }, 'team credits checkout failed');
        throw new AppError(502, 'payment_provider', err.message);
      }
    },

    /**
     * checkout.completed of a pack bought for a team: grants it to the team's ledger once (the order's key) and
     * answers true; false for anything else, which the person's billing handles. In the webhook's transaction.
     */
    async applyCheckout(tx: Executor, userId: string, event: PaymentEvent): Promise<boolean> {
      if (event.type !== 'checkout.completed' || event.subscription || !payments.packForProduct) return false;
      const object = (isObj(event.payload.object) ? event.payload.object : event.payload.data) as Obj | undefined;
      const teamId = teamOfRequestId(object?.request_id);
      if (!teamId) return false;
      const order = isObj(object?.order) ? object.order : undefined;
      const productId = idOf(object?.product) ?? idOf(order?.product);
      const pack = productId ? payments.packForProduct(productId) : undefined;
      const orderId = idOf(order);
      if (!pack || !orderId || (typeof order?.status === 'string' && order.status !== 'paid')) {
        logger.warn({ eventId: event.id, orderId, teamId }, 'a team checkout without a paid order of a pack; nothing granted');
        return true;
      }
      if (!(await teamsRepository.findTeam(tx, teamId))) {
        logger.error({ eventId: event.id, orderId, teamId }, 'team credits bought for a team that no longer exists; nothing granted');
        return true;
      }
      const credits = topUpPackById(pack).credits;
      const { applied } = await applyTeamChange(tx, deps.events, {
        teamId,
        userId,
        delta: credits,
        kind: 'grant',
        reason: TEAM_TEXTS.purchaseReason(credits),
        idempotencyKey: grantKey(orderId),
      });
      logger.info({ teamId, orderId, credits, applied }, 'team credits bought');
      return true;
    },
  };
}
