import { PLAN_IDS, isPlanId } from '@common/plans.ts';
import { badRequest, conflict, forbidden } from '../domain/errors.ts';
import {
  sandboxIds,
  sandboxProduct,
  sandboxSubscriptionObject,
  type SandboxCheckout,
  type SandboxProvider,
  type SandboxSubscription,
} from '../providers/payments/sandbox.ts';
import type { SubscriptionRow } from '../repositories/subscriptions.repository.ts';
import { PaymentProviderError } from '../providers/payments/index.ts';
import { BILLING_REFUSALS } from '@common/billing.ts';
import { refusal, type BillingService } from './billing.service.ts';
import type { UserRow } from './users.service.ts';

export type SandboxPaymentsService = ReturnType<typeof createSandboxPaymentsService>;

/** Statuses the sandbox portal can still act on (the paid plan is in force). */
const MANAGEABLE = new Set(['active', 'scheduled_cancel', 'past_due']);

/** A renewal can be simulated once the current period has begun (a simulated one starts in the future). */
export function canSimulateRenewal(sub: Pick<SandboxSubscription, 'periodStart'>, now = new Date()): boolean {
  return sub.periodStart.getTime() <= now.getTime();
}

/** A day as the sandbox's messages and pages write it ('December 23, 2026'). */
export const longDate = (d: Date) => d.toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });

export const renewalOpensOn = (sub: Pick<SandboxSubscription, 'periodStart'>) => longDate(sub.periodStart);

function addMonth(d: Date): Date {
  const next = new Date(d);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return next;
}

/**
 * What the sandbox's pages do: each action becomes Creem-format events, signed and posted to the product's
 * webhook endpoint like a real provider would. The sandbox reads subscription state from the subscriptions
 * table (provider 'sandbox'), which only the webhook processing writes.
 */
export function createSandboxPaymentsService(deps: { sandbox: SandboxProvider; billing: BillingService }) {
  const { sandbox } = deps;

  async function send(webhookUrl: string, eventType: string, object: Record<string, unknown>, eventId?: string) {
    await sandbox.deliver(webhookUrl, sandbox.signedEvent(eventType, object, eventId));
  }

  function toSandbox(row: SubscriptionRow, user: UserRow): SandboxSubscription {
    if (!isPlanId(row.plan)) throw new Error(`sandbox subscription ${row.id} has unknown plan ${row.plan}`);
    const periodStart = row.currentPeriodStart ?? new Date();
    return {
      id: row.id,
      userId: user.id,
      customerId: row.customerId,
      email: user.email,
      plan: row.plan,
      status: row.status,
      periodStart,
      periodEnd: row.currentPeriodEnd ?? addMonth(periodStart),
      canceledAt: row.canceledAt,
      transactionId: null,
    };
  }

  /** The caller's subscription in force under this customer id; only its owner may see or change it. */
  async function current(user: UserRow, customerId: string): Promise<SandboxSubscription | undefined> {
    if (customerId !== sandbox.customerIdFor(user.id)) throw forbidden('This customer portal belongs to another account.');
    const rows = await deps.billing.subscriptionsForCustomer(user.id, customerId);
    const row = rows.find((r) => MANAGEABLE.has(r.status));
    return row && toSandbox(row, user);
  }

  async function requireCurrent(user: UserRow, customerId: string): Promise<SandboxSubscription> {
    const sub = await current(user, customerId);
    if (!sub) throw conflict('There is no active test subscription to change.', 'not_subscribed');
    return sub;
  }

  return {
    readCheckout(id: string, user: UserRow): SandboxCheckout | undefined {
      const checkout = sandbox.readCheckout(id);
      if (checkout && checkout.userId !== user.id) throw forbidden('This checkout belongs to another account.');
      return checkout;
    },

    /** The checkout a signed link stands for, whoever opens it (hosted mode: the link is the authority). */
    checkoutByLink: (id: string) => sandbox.readCheckout(id),

    /** What a hosted SPA's portal link grants (see SandboxProvider.readPortalAccess). */
    portalAccess: (token: string, customerId: string) => sandbox.readPortalAccess(token, customerId),

    current,

    /**
     * 'Pay': the first payment sends checkout.completed and subscription.paid, as Creem does. Ids derive from
     * the checkout, so paying the same checkout twice describes the same payment and grants once.
     */
    async pay(checkout: SandboxCheckout, user: UserRow, webhookUrl: string): Promise<void> {
      const ids = sandboxIds(checkout.id);
      const inForce = await current(user, sandbox.customerIdFor(user.id));
      // A quick refusal for the common case; the database's one-subscription index is what holds under races.
      if (inForce && inForce.id !== ids.subscription) throw refusal(BILLING_REFUSALS.alreadySubscribed);
      const now = new Date();
      const sub: SandboxSubscription = {
        id: ids.subscription,
        userId: checkout.userId,
        customerId: sandbox.customerIdFor(checkout.userId),
        email: checkout.email,
        plan: checkout.plan,
        status: 'active',
        periodStart: now,
        periodEnd: addMonth(now),
        canceledAt: null,
        transactionId: ids.transaction,
      };
      const product = sandboxProduct(sandbox, checkout.plan);
      // Another checkout of the account won the race: the product refused this one's events (409).
      const refusedAsSecond = (err: unknown) => {
        if (err instanceof PaymentProviderError && err.status === 409) throw refusal(BILLING_REFUSALS.alreadySubscribed);
        throw err;
      };
      await send(
        webhookUrl,
        'checkout.completed',
        {
          id: ids.checkout,
          object: 'checkout',
          mode: 'sandbox',
          status: 'completed',
          units: 1,
          product,
          order: {
            id: ids.order,
            object: 'order',
            customer: sub.customerId,
            product: product.id,
            amount: product.price,
            currency: 'USD',
            status: 'paid',
            type: 'recurring',
            transaction: ids.transaction,
            mode: 'sandbox',
          },
          customer: { id: sub.customerId, object: 'customer', email: checkout.email, mode: 'sandbox' },
          subscription: sandboxSubscriptionObject(sandbox, sub),
          success_url: checkout.successUrl,
          metadata: { userId: checkout.userId, plan: checkout.plan },
        },
        `${ids.event}_checkout`,
      ).catch(refusedAsSecond);
      await send(webhookUrl, 'subscription.paid', sandboxSubscriptionObject(sandbox, sub), `${ids.event}_paid`).catch(refusedAsSecond);
    },

    /**
     * Plan switch: the plan changes at once (subscription.update), within the current period, as Creem's
     * "prorate and charge immediately" does. An upgrade is charged the prorated difference at once: a
     * subscription.paid of the same period, which grants only the credits above what the period has granted
     * (billing.service). A downgrade costs nothing now and its lower credits arrive with the next renewal.
     */
    async switchPlan(user: UserRow, customerId: string, plan: string, webhookUrl: string): Promise<'upgraded' | 'downgraded'> {
      if (!isPlanId(plan)) throw badRequest('Unknown plan.', 'unknown_plan');
      const sub = await requireCurrent(user, customerId);
      if (plan === sub.plan) throw conflict('You are already on this plan.', 'same_plan');
      const upgrade = PLAN_IDS.indexOf(plan) > PLAN_IDS.indexOf(sub.plan);
      const changed: SandboxSubscription = { ...sub, plan, status: 'active', canceledAt: null };
      await send(webhookUrl, 'subscription.update', sandboxSubscriptionObject(sandbox, changed));
      if (upgrade) {
        // One payment per upgrade of a period: the same switch sent twice (a double click, two tabs) names the
        // same transaction, so it grants once.
        const ids = sandboxIds(`${sub.id}:upgrade:${sub.periodStart.toISOString()}:${plan}`);
        const paid = { ...changed, transactionId: ids.transaction };
        await send(webhookUrl, 'subscription.paid', sandboxSubscriptionObject(sandbox, paid), `${ids.event}_upgrade`);
      }
      return upgrade ? 'upgraded' : 'downgraded';
    },

    /**
     * 'Cancel subscription' in the portal: as the Terms promise, the plan stays in force to the end of the
     * paid period and then ends (scheduled_cancel, as Creem's portal does); it can be resumed until then.
     */
    async scheduleCancel(user: UserRow, customerId: string, webhookUrl: string): Promise<SandboxSubscription> {
      const sub = await requireCurrent(user, customerId);
      if (sub.status === 'scheduled_cancel')
        throw conflict(`This subscription already ends on ${longDate(sub.periodEnd)}.`, 'already_canceling');
      await send(
        webhookUrl,
        'subscription.scheduled_cancel',
        sandboxSubscriptionObject(sandbox, { ...sub, status: 'scheduled_cancel', canceledAt: new Date() }),
      );
      return sub;
    },

    /** Takes back a scheduled cancellation: the plan renews again as before. */
    async resume(user: UserRow, customerId: string, webhookUrl: string): Promise<void> {
      const sub = await requireCurrent(user, customerId);
      if (sub.status !== 'scheduled_cancel') throw conflict('This subscription is not set to cancel.', 'not_canceling');
      await send(webhookUrl, 'subscription.update', sandboxSubscriptionObject(sandbox, { ...sub, status: 'active', canceledAt: null }));
    },

    /**
     * 'Simulate the end of the period' for a subscription set to cancel: the date passes and the plan ends
     * (subscription.expired), the user is on the Free Plan and keeps the credits already granted.
     */
    async endPeriod(user: UserRow, customerId: string, webhookUrl: string): Promise<void> {
      const sub = await requireCurrent(user, customerId);
      if (sub.status !== 'scheduled_cancel')
        throw conflict('Only a subscription set to cancel ends with its period; cancel it first.', 'not_canceling');
      await send(webhookUrl, 'subscription.expired', sandboxSubscriptionObject(sandbox, { ...sub, status: 'expired' }));
    },

    /** Cancels at once: the user returns to the Free Plan and keeps the credits already granted. */
    async cancel(user: UserRow, customerId: string, webhookUrl: string): Promise<void> {
      const sub = await requireCurrent(user, customerId);
      await send(
        webhookUrl,
        'subscription.canceled',
        sandboxSubscriptionObject(sandbox, { ...sub, status: 'canceled', canceledAt: new Date() }),
      );
    },

    /**
     * 'Simulate next month's renewal': the next period is paid and grants the plan's credits again. At most
     * once per simulated period: while the current period is itself a simulated one that has not begun yet,
     * there is nothing to renew, so clicking again cannot mint credits.
     */
    async renew(user: UserRow, customerId: string, webhookUrl: string, now = new Date()): Promise<void> {
      const sub = await requireCurrent(user, customerId);
      if (sub.status === 'scheduled_cancel')
        throw conflict('This subscription is set to cancel and will not renew. Resume it first.', 'not_renewing');
      if (!canSimulateRenewal(sub, now)) {
        throw conflict(
          `The next renewal has already been simulated. The one after it can be simulated from ${renewalOpensOn(sub)}.`,
          'renewal_already_simulated',
        );
      }
      const periodStart = sub.periodEnd;
      const ids = sandboxIds(`${sub.id}:${periodStart.toISOString()}`);
      const renewed = { ...sub, status: 'active', periodStart, periodEnd: addMonth(periodStart), transactionId: ids.transaction };
      await send(webhookUrl, 'subscription.paid', sandboxSubscriptionObject(sandbox, renewed), `${ids.event}_renewal`);
    },
  };
}
