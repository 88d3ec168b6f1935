import { createHash } from 'node:crypto';
import { isPlanId, planById, planCreditsReason, planUpgradeReason, type PlanId } from '@common/plans.ts';
import { BILLING_REFUSALS } from '@common/billing.ts';
import type { Db, Executor } from '../db/index.ts';
import { unauthorized } from '../domain/errors.ts';
import { isUuid } from '@common/ids.ts';
import type { Logger } from '../logger.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import {
  MalformedWebhookError,
  PaymentProviderError,
  parseWebhookEvent,
  type PaymentEvent,
  type PaymentProvider,
} from '../providers/payments/index.ts';
import { billingRepository } from '../repositories/billing.repository.ts';
import { CANNOT_CHARGE, subscriptionsRepository as subs, type SubscriptionRow } from '../repositories/subscriptions.repository.ts';
import { ENTITLED, refusal } from './billing-rules.ts';
import type { CreditsService } from './credits.service.ts';
import type { TopUpsService } from './top-ups.service.ts';
import type { TeamPurchasesService } from './team-purchases.service.ts';

/** Statuses an event type implies when its object carries none. */
const STATUS_OF_EVENT: Record<string, string> = {
  'checkout.completed': 'active',
  'subscription.paid': 'active',
  'subscription.canceled': 'canceled',
  'subscription.expired': 'expired',
  'subscription.scheduled_cancel': 'scheduled_cancel',
  'subscription.past_due': 'past_due',
  'subscription.paused': 'paused',
  'subscription.trialing': 'trialing',
  'subscription.unpaid': 'unpaid',
};

/** `erased`: the event is an erased account's; recorded, nothing applied (and its subscription cancelled). */
export type WebhookOutcome = 'processed' | 'duplicate' | 'unmatched' | 'malformed' | 'erased';

const alreadySubscribed = () => refusal(BILLING_REFUSALS.alreadySubscribed);

/** The database refused a second subscription in force for one account (subscriptions_one_in_force_per_user). */
function isSecondSubscription(err: unknown): boolean {
  for (let e = err as { code?: unknown; constraint?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === '23505' && e.constraint === 'subscriptions_one_in_force_per_user') return true;
  }
  return false;
}

export type PaymentWebhooks = ReturnType<typeof createPaymentWebhooks>;

/**
 * The payment provider's webhook events applied to accounts: subscriptions stored and mirrored on the users
 * row, paid periods granting their plan's credits once, refunds taking back unspent credits, a second
 * subscription or an erased account's cancelled (docs/decisions/001-billing-events.md).
 */
export function createPaymentWebhooks(deps: {
  db: Db;
  events: EventBus;
  credits: CreditsService;
  payments: PaymentProvider;
  logger: Logger;
  /** One-off credit packs: their checkouts, refunds and chargebacks (issue 50). */
  topUps?: Pick<TopUpsService, 'applyCheckout' | 'applyReversal' | 'userOfPayment'>;
  /** Packs bought for a team (issue 49): granted to the team's ledger, taken back from it on a refund or chargeback. */
  teamPurchases?: Pick<TeamPurchasesService, 'applyCheckout' | 'applyReversal'>;
}) {
  const { db, payments, logger } = deps;
  const provider = payments.name;

  /** Ledger key of the credits one payment granted. */
  const paymentKey = (transactionId: string) => `payment:${provider}:tx:${transactionId}`;

  /** Ledger key of one paid period: the payment's transaction id, else subscription id + period start. */
  function periodKey(event: PaymentEvent): string | undefined {
    if (event.transactionId) return paymentKey(event.transactionId);
    const sub = event.subscription;
    if (sub?.currentPeriodStart) return `payment:${provider}:period:${sub.id}:${sub.currentPeriodStart.toISOString()}`;
    return undefined;
  }

  async function resolveUserId(tx: Executor, event: PaymentEvent): Promise<string | undefined> {
    if (event.userId && isUuid(event.userId)) {
      if (await billingRepository.userExists(tx, event.userId)) return event.userId;
    }
    if (event.subscription) {
      const known = await subs.findById(tx, event.subscription.id);
      if (known) return known.userId;
    }
    if (event.customerId) {
      const userId = await billingRepository.userIdOfCustomer(tx, event.customerId);
      if (userId) return userId;
    }
    if (event.transactionId) {
      // A refund names the payment it undoes; that payment's grant names the user.
      const userId = await billingRepository.userIdOfLedgerKey(tx, paymentKey(event.transactionId));
      if (userId) return userId;
    }
    return deps.topUps?.userOfPayment(tx, event);
  }

  /**
   * Writes what the event says about its subscription and returns the stored row. An event older than the
   * last one applied to the subscription changes nothing (decision 001): Creem may deliver out of order, and
   * an old `subscription.paid` retried after a cancel must not make the subscription active again.
   */
  async function saveSubscription(
    tx: Executor,
    userId: string,
    event: PaymentEvent,
    status?: string,
  ): Promise<SubscriptionRow | undefined> {
    const sub = event.subscription;
    if (!sub) return undefined;
    const existing = await subs.findById(tx, sub.id);
    const plan = sub.plan ?? existing?.plan;
    const customerId = sub.customerId ?? event.customerId ?? existing?.customerId;
    if (!plan || !customerId) {
      logger.warn({ eventId: event.id, subscription: sub.id }, 'payment event without a known plan or customer; subscription not stored');
      return existing;
    }
    const row = {
      id: sub.id,
      provider,
      userId: existing?.userId ?? userId,
      customerId,
      plan,
      status: status ?? sub.status ?? STATUS_OF_EVENT[event.type] ?? existing?.status ?? 'active',
      currentPeriodStart: sub.currentPeriodStart ?? existing?.currentPeriodStart ?? null,
      currentPeriodEnd: sub.currentPeriodEnd ?? existing?.currentPeriodEnd ?? null,
      canceledAt: sub.canceledAt ?? existing?.canceledAt ?? null,
      lastEventAt: event.createdAt,
    };
    if (!(await subs.upsert(tx, row))) {
      logger.info(
        { eventId: event.id, type: event.type, subscription: sub.id },
        'payment event older than the subscription it describes; not applied',
      );
      return subs.findById(tx, sub.id);
    }
    return { ...row, createdAt: existing?.createdAt ?? new Date(), updatedAt: new Date() };
  }

  /**
   * users.subscription_status/plan/creem_customer_id are derived from the user's subscriptions: active with
   * the plan of an entitled subscription (the newest period wins), else the latest subscription's status.
   */
  async function syncUser(tx: Executor, userId: string): Promise<void> {
    const rows = await subs.listForUser(tx, userId);
    if (rows.length === 0) return;
    const entitled = rows
      .filter((r) => ENTITLED.has(r.status))
      .sort((a, b) => (b.currentPeriodStart?.getTime() ?? 0) - (a.currentPeriodStart?.getTime() ?? 0))[0];
    const current = entitled ?? rows[0];
    const status = entitled ? 'active' : current.status;
    const before = await billingRepository.subscriptionOfUser(tx, userId);
    if (before && before.status === status && before.plan === current.plan && before.customer === current.customerId) return;
    await billingRepository.setSubscriptionOfUser(tx, userId, { status, plan: current.plan, customerId: current.customerId });
    await deps.events.publish(tx, userId, { type: 'subscription', status, plan: current.plan });
  }

  /**
   * A paid period's plan credits, once per payment (its key) and, within one period of a subscription, never more
   * than the monthly credits of the highest plan held in it: the period's first payment grants its plan's credits,
   * an upgrade's payment only the difference above what the period has granted, and a downgrade's or a
   * re-upgrade's nothing (decision 001, plan changes). A renewal is a new period and grants its plan's credits.
   */
  async function grantPeriod(tx: Executor, userId: string, event: PaymentEvent, plan: PlanId | undefined): Promise<void> {
    // checkout.completed grants under its payment's transaction id only. Without one, the subscription.paid that
    // follows grants, under its own transaction id: a period key here would grant that one payment twice.
    const key = event.type === 'checkout.completed' && !event.transactionId ? undefined : periodKey(event);
    if (!plan || !key) {
      if (event.type === 'subscription.paid')
        logger.warn({ eventId: event.id }, 'paid event without plan or period key; no credits granted');
      return;
    }
    const p = planById(plan);
    const sub = event.subscription;
    const periodStart = sub?.currentPeriodStart;
    const since = periodStart?.toISOString().slice(0, 10);
    if (!sub || !periodStart) {
      // Creem's checkout.completed carries no period: it is a first payment, and its subscription.paid (same
      // transaction, so same key) records the period when it comes.
      await deps.credits.applyIn(tx, { userId, delta: p.credits, kind: 'grant', reason: planCreditsReason(plan), idempotencyKey: key });
      return;
    }
    const period = { subscriptionId: sub.id, periodStart };
    const granted = await subs.lockPeriodGrant(tx, { ...period, userId });
    const delta = p.credits - (granted?.credits ?? 0);
    if (delta <= 0) {
      logger.info(
        { eventId: event.id, subscription: sub.id, plan, periodStart },
        'payment in a period that has already granted this plan’s credits; none granted',
      );
      return;
    }
    await deps.credits.applyIn(tx, {
      userId,
      delta,
      kind: 'grant',
      reason: granted && isPlanId(granted.plan) ? planUpgradeReason(plan, granted.plan, delta) : planCreditsReason(plan, since),
      // Without a transaction id the key names the period, which its first payment's grant already holds.
      idempotencyKey: granted && !event.transactionId ? `${key}:${plan}` : key,
    });
    // Also when the key was already used: that same payment granted these credits before (its checkout.completed).
    await subs.savePeriodGrant(tx, period, { plan, credits: p.credits });
  }

  /**
   * A refunded payment takes back what is left of the credits it granted (never below zero); credits
   * already spent stay spent. Once per refunded payment.
   */
  async function clawBack(tx: Executor, userId: string, event: PaymentEvent): Promise<void> {
    if (!event.transactionId) {
      logger.warn({ eventId: event.id }, 'refund without a transaction id; credits left unchanged');
      return;
    }
    const granted = await billingRepository.grantOf(tx, userId, paymentKey(event.transactionId));
    if (granted === undefined) {
      logger.warn({ eventId: event.id, transaction: event.transactionId }, 'refund of a payment that granted nothing');
      return;
    }
    const credits = await billingRepository.lockCredits(tx, userId);
    const amount = Math.min(granted, credits ?? 0);
    if (amount <= 0) return;
    await deps.credits.applyIn(tx, {
      userId,
      delta: -amount,
      kind: 'adjustment',
      reason: `Payment ${event.transactionId} refunded: unspent credits removed`,
      idempotencyKey: `payment:${provider}:refund-of:${event.transactionId}`,
    });
  }

  async function apply(tx: Executor, userId: string, event: PaymentEvent): Promise<void> {
    // A pack bought for a team, and its refund or chargeback, is the team's; a person's credit pack the top-ups service's.
    const { teamPurchases: team, topUps } = deps;
    if (team && ((await team.applyCheckout(tx, userId, event)) || (await team.applyReversal(tx, event)))) return;
    if (topUps && ((await topUps.applyCheckout(tx, userId, event)) || (await topUps.applyReversal(tx, userId, event)))) return;
    switch (event.type) {
      case 'checkout.completed':
      case 'subscription.paid': {
        const row = await saveSubscription(tx, userId, event, 'active');
        await grantPeriod(tx, userId, event, event.subscription?.plan ?? (row?.plan as PlanId | undefined));
        await syncUser(tx, userId);
        return;
      }
      case 'subscription.active': {
        // Sync only: access is granted by subscription.paid. Refresh a subscription we already know.
        const existing = event.subscription && (await subs.findById(tx, event.subscription.id));
        if (existing) {
          await saveSubscription(tx, userId, event, existing.status);
          await syncUser(tx, userId);
        }
        return;
      }
      case 'subscription.update':
      case 'subscription.canceled':
      case 'subscription.expired':
      case 'subscription.scheduled_cancel':
      case 'subscription.past_due':
      case 'subscription.paused':
      case 'subscription.trialing':
      case 'subscription.unpaid':
        await saveSubscription(tx, userId, event);
        await syncUser(tx, userId);
        return;
      case 'refund.created':
        await clawBack(tx, userId, event);
        return;
      default:
        // dispute.created and anything new: recorded for the operator, no automatic change.
        logger.info({ eventId: event.id, type: event.type }, 'payment event recorded without action');
    }
  }

  /**
   * A second subscription in force for one account, at a provider where the money has already moved (two
   * checkouts opened before either was paid, say in two tabs). What was paid is not lost: each paid period of
   * it grants its plan's credits like any payment. It is kept as `duplicate` (not in force: the account's plan
   * stays the first subscription's) and cancelled with the provider at once, so it charges no more; if the
   * provider cannot be reached, its next event (a renewal) lands here again and tries again, as does deleting the
   * account (subscription-cancellation.ts).
   */
  async function settleSecondSubscription(event: PaymentEvent): Promise<WebhookOutcome> {
    const outcome = await db.transaction(async (tx): Promise<WebhookOutcome> => {
      const fresh = await subs.recordEvent(tx, { provider, eventId: event.id, eventType: event.type, payload: event.payload });
      if (!fresh) return 'duplicate';
      const userId = await resolveUserId(tx, event);
      if (!userId) return 'unmatched';
      const row = await saveSubscription(tx, userId, event, 'duplicate');
      if (event.type === 'checkout.completed' || event.type === 'subscription.paid')
        await grantPeriod(tx, userId, event, event.subscription?.plan ?? (row?.plan as PlanId | undefined));
      return 'processed';
    });
    const subscription = event.subscription?.id;
    if (outcome !== 'processed' || !subscription) return outcome;
    try {
      await payments.cancelSubscription!(subscription);
      logger.warn({ eventId: event.id, type: event.type, subscription }, 'a second subscription of one account was cancelled');
    } catch (err) {
      logger.error(
        { err: err instanceof PaymentProviderError ? (err.cause ?? err) : err, eventId: event.id, subscription },
        'a second subscription of one account could not be cancelled; its next event tries again (or cancel it in the provider’s dashboard)',
      );
    }
    return outcome;
  }

  /**
   * A payment or subscription event of an erased account: a checkout paid in a tab left open, or a provider's
   * retry, after the deletion cancelled what it knew of. Nothing is granted or stored (the account is a tombstone
   * nobody can sign in to); a subscription that can still charge is cancelled with the provider, and if that
   * fails its next event lands here again and tries again.
   */
  async function endErasedAccountsSubscription(event: PaymentEvent): Promise<void> {
    const sub = event.subscription;
    const status = sub?.status ?? STATUS_OF_EVENT[event.type];
    if (!sub || CANNOT_CHARGE.has(status ?? '') || !payments.cancelSubscription) {
      logger.warn({ eventId: event.id, type: event.type }, 'payment event of an erased account; recorded, nothing applied');
      return;
    }
    try {
      await payments.cancelSubscription(sub.id);
      logger.warn({ eventId: event.id, type: event.type, subscription: sub.id }, 'a subscription of an erased account was cancelled');
    } catch (err) {
      logger.error(
        { err: err instanceof PaymentProviderError ? (err.cause ?? err) : err, eventId: event.id, subscription: sub.id },
        'a subscription of an erased account could not be cancelled; its next event tries again (or cancel it in the provider’s dashboard)',
      );
    }
  }

  /**
   * A signed body the product cannot read will not read better on a retry: it is recorded for the operator
   * (once, keyed by its hash) and acknowledged with 200 so the provider stops sending it.
   */
  async function recordMalformed(rawBody: Buffer, reason: string): Promise<WebhookOutcome> {
    const sha256 = createHash('sha256').update(rawBody).digest('hex');
    const fresh = await subs.recordEvent(db, {
      provider,
      eventId: `malformed:${sha256}`,
      eventType: 'malformed',
      payload: { reason, sha256, bytes: rawBody.length },
    });
    logger.error(
      { provider, reason, sha256, bytes: rawBody.length },
      'signed payment webhook could not be read; recorded and acknowledged',
    );
    return fresh ? 'malformed' : 'duplicate';
  }

  /**
   * Verifies and applies one webhook delivery. Everything happens in one transaction with the event's
   * record, so a failure leaves no trace and the provider's retry processes it afresh; a replay finds the
   * record and changes nothing.
   */
  async function handle(rawBody: Buffer, headers: Headers): Promise<WebhookOutcome> {
    const verdict = await payments.verifyWebhook(rawBody, headers);
    if (!verdict.ok) {
      logger.warn({ provider, reason: verdict.reason }, 'refused a webhook delivery');
      throw unauthorized('Invalid webhook signature.');
    }
    let event: PaymentEvent;
    try {
      event = await parseWebhookEvent(provider, rawBody, (id) => payments.planForProduct(id));
    } catch (err) {
      if (err instanceof MalformedWebhookError) return recordMalformed(rawBody, err.message);
      throw err;
    }
    const outcome = await db
      .transaction(async (tx): Promise<WebhookOutcome> => {
        const fresh = await subs.recordEvent(tx, { provider, eventId: event.id, eventType: event.type, payload: event.payload });
        if (!fresh) return 'duplicate';
        const userId = await resolveUserId(tx, event);
        if (!userId) return 'unmatched';
        if (await billingRepository.erasedAt(tx, userId)) return 'erased';
        await apply(tx, userId, event);
        return 'processed';
      })
      .catch((err: unknown) => {
        if (!isSecondSubscription(err)) throw err;
        if (payments.cancelSubscription) return settleSecondSubscription(event);
        // The sandbox refuses the payment itself (its Pay answers 409, no money moves): nothing of the event is
        // kept (no subscription, no grant, not even its record), and the sender is told.
        logger.warn(
          { eventId: event.id, type: event.type, subscription: event.subscription?.id },
          'refused a second subscription in force for one account',
        );
        throw alreadySubscribed();
      });
    if (outcome === 'unmatched') logger.warn({ eventId: event.id, type: event.type }, 'payment event matches no user');
    if (outcome === 'erased') await endErasedAccountsSubscription(event);
    logger.info({ eventId: event.id, type: event.type, outcome }, 'payment webhook');
    return outcome;
  }

  return { handle };
}
