import { isPlanId } from '@common/plans.ts';
import { BILLING_REFUSALS, EMAIL_PATTERN, type CheckoutRequestBody, type SubscriptionInfo } from '@common/billing.ts';
import type { Db } from '../db/index.ts';
import { AppError } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { PaymentProviderError, type PaymentProvider } from '../providers/payments/index.ts';
import { subscriptionsRepository as subs } from '../repositories/subscriptions.repository.ts';
import { usersRepository } from '../repositories/users.repository.ts';
import { ENTITLED, refusal } from './billing-rules.ts';
import type { CreditsService } from './credits.service.ts';
import { createPaymentWebhooks, type WebhookOutcome } from './payment-webhooks.service.ts';
import type { TopUpsService } from './top-ups.service.ts';
import type { TeamPurchasesService } from './team-purchases.service.ts';
import type { UserRow } from './users.service.ts';

export type BillingService = ReturnType<typeof createBillingService>;
export type { WebhookOutcome };
export { refusal };

const alreadySubscribed = () => refusal(BILLING_REFUSALS.alreadySubscribed);

/**
 * Paid plans for the account: checkout, the customer portal, the subscription's summary, and the payment
 * provider's webhook (payment-webhooks.service.ts applies its events).
 */
export function createBillingService(deps: {
  db: Db;
  events: EventBus;
  credits: CreditsService;
  payments: PaymentProvider;
  logger: Logger;
  /** One-off credit packs: their checkouts, refunds and chargebacks (issue 50). */
  topUps?: Pick<TopUpsService, 'applyCheckout' | 'applyReversal' | 'userOfPayment'>;
  /** Packs bought for a team (issue 49). */
  teamPurchases?: Pick<TeamPurchasesService, 'applyCheckout' | 'applyReversal'>;
}) {
  const { db, payments, logger } = deps;
  const provider = payments.name;
  const webhooks = createPaymentWebhooks(deps);

  function providerFailure(err: unknown): never {
    if (err instanceof PaymentProviderError) {
      logger.error({ err: err.cause ?? err, provider }, 'payment provider call failed');
      throw new AppError(502, 'payment_provider', err.message);
    }
    throw err;
  }

  return {
    provider,

    /** `addresses`: where the payer returns (the SPA) and where this server's own pages are. */
    async checkout(
      user: UserRow,
      body: CheckoutRequestBody,
      addresses: { successUrl: string; serverUrl: string },
    ): Promise<{ checkout_url: string }> {
      if (body.userId !== user.id) throw refusal(BILLING_REFUSALS.notYourAccount);
      if (!isPlanId(body.plan)) throw refusal(BILLING_REFUSALS.unknownPlan);
      // The payment provider keys its customer by this address, and the portal opens whatever customer a payment
      // names: so it is the account's verified address (built-in: sign-in address; Clerk: verified_email), never
      // one the browser sends (product §3's checkout request carries one, checked but not used) nor users.email.
      // With the browser's, anyone could pay as another person's address and open that person's portal.
      const sent = body.email?.trim();
      const email = await usersRepository.verifiedEmailOf(db, user.id);
      if ((sent && !EMAIL_PATTERN.test(sent)) || !email || !EMAIL_PATTERN.test(email)) throw refusal(BILLING_REFUSALS.emailRequired);
      if (user.subscriptionStatus === 'active') throw alreadySubscribed();
      const url = await payments.createCheckout({ plan: body.plan, userId: user.id, email, ...addresses }).catch(providerFailure);
      return { checkout_url: url };
    },

    /** `from`: set when the SPA is on another origin than the server (see PortalContext). */
    async portal(
      user: UserRow,
      customerId: string,
      from?: { serverUrl: string; returnUrl: string },
    ): Promise<{ customer_portal_link: string }> {
      if (!user.creemCustomerId || customerId !== user.creemCustomerId) {
        throw refusal(BILLING_REFUSALS.notYourCustomer);
      }
      if (user.subscriptionStatus !== 'active') {
        throw refusal(BILLING_REFUSALS.notSubscribed);
      }
      const link = await payments.customerPortalLink(customerId, from && { ...from, userId: user.id }).catch(providerFailure);
      return { customer_portal_link: link };
    },

    async subscriptionOf(user: UserRow): Promise<SubscriptionInfo> {
      const rows = await subs.listForUser(db, user.id);
      const current = rows.find((r) => r.customerId === user.creemCustomerId && ENTITLED.has(r.status)) ?? rows[0];
      return {
        status: user.subscriptionStatus,
        plan: user.subscriptionPlan,
        customer_id: user.creemCustomerId,
        current_period_end: current?.currentPeriodEnd?.toISOString() ?? null,
        cancel_at_period_end: current?.status === 'scheduled_cancel',
      };
    },

    /** The user's subscriptions with a customer id (the sandbox portal shows the entitled one). */
    subscriptionsForCustomer(userId: string, customerId: string) {
      return subs.findForCustomer(db, provider, userId, customerId);
    },

    /**
     * Verifies and applies one webhook delivery. Everything happens in one transaction with the event's
     * record, so a failure leaves no trace and the provider's retry processes it afresh; a replay finds the
     * record and changes nothing.
     */
    handleWebhook: webhooks.handle,
  };
}
