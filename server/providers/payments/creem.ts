import { CreemError } from 'creem/models/errors';
import { BILLING_REFUSALS } from '@common/billing.ts';
import { createCreemClient, creemCheckoutRequest, creemProductVariable } from '@common/creem.ts';
import { PLAN_IDS, TOP_UP_PACK_IDS, type PlanId, type TopUpPackId } from '@common/plans.ts';
import {
  PaymentProviderError,
  verifyReturnParams,
  verifyWebhookDelivery,
  type CheckoutRequest,
  type PaymentProvider,
  type TopUpCheckoutRequest,
} from './provider.ts';

export interface CreemOptions {
  apiKey: string;
  webhookSecret: string;
  /** Creem product id of each plan's monthly subscription. */
  products: Record<PlanId, string>;
  /** Creem product id of each credit pack's one-time product; without them packs are not on sale. */
  packs?: Record<TopUpPackId, string>;
  /** Overrides the API address (tests point it at a fake Creem). */
  serverUrl?: string;
}

/** Creem (creem.io) through its official SDK; test keys (`creem_test_…`) talk to Creem's test API. */
export function createCreemProvider(opts: CreemOptions): PaymentProvider {
  const creem = createCreemClient({ apiKey: opts.apiKey, serverUrl: opts.serverUrl, timeoutMs: 15_000, retryForMs: 10_000 });
  const planByProduct = new Map(PLAN_IDS.map((plan) => [opts.products[plan], plan] as const));
  const packs = opts.packs;
  const packByProduct = new Map(packs ? TOP_UP_PACK_IDS.map((pack) => [packs[pack], pack] as const) : []);

  /**
   * A pack's one-time checkout. The request id (it names the account) comes back in the success redirect, which
   * Creem signs with the API key; the metadata names the account and pack for the webhook's checkout.completed.
   */
  async function createTopUpCheckout(request: TopUpCheckoutRequest): Promise<string> {
    try {
      const checkout = await creem.checkouts.create({
        productId: packs![request.pack],
        requestId: request.requestId,
        customer: { email: request.email },
        successUrl: request.successUrl,
        metadata: { userId: request.userId, pack: request.pack },
      });
      if (!checkout.checkoutUrl) throw new Error('Creem answered without checkout_url');
      return checkout.checkoutUrl;
    } catch (err) {
      throw new PaymentProviderError(BILLING_REFUSALS.checkoutFailed.message, err);
    }
  }

  return {
    name: 'creem',

    async createCheckout(request: CheckoutRequest) {
      try {
        const checkout = await creem.checkouts.create(
          creemCheckoutRequest({
            productId: opts.products[request.plan],
            plan: request.plan,
            userId: request.userId,
            email: request.email,
            successUrl: request.successUrl,
          }),
        );
        if (!checkout.checkoutUrl) throw new Error('Creem answered without checkout_url');
        return checkout.checkoutUrl;
      } catch (err) {
        throw new PaymentProviderError(BILLING_REFUSALS.checkoutFailed.message, err);
      }
    },

    async customerPortalLink(customerId) {
      try {
        const links = await creem.customers.generateBillingLinks({ customerId });
        return links.customerPortalLink;
      } catch (err) {
        throw new PaymentProviderError(BILLING_REFUSALS.portalFailed.message, err);
      }
    },

    async cancelSubscription(subscriptionId) {
      try {
        await creem.subscriptions.cancel(subscriptionId, { mode: 'immediate' });
      } catch (err) {
        // Creem refuses to cancel a subscription that is cancelled already (an earlier attempt that succeeded
        // while its webhook is still on the way): that is the outcome asked for, not a failure.
        const current = await creem.subscriptions.get(subscriptionId).catch(() => null);
        if (current?.status === 'canceled') return;
        throw new PaymentProviderError('The payment provider did not cancel the subscription. Please try again later.', err);
      }
    },

    verifyWebhook(rawBody, headers) {
      return verifyWebhookDelivery(rawBody, headers, opts.webhookSecret);
    },

    planForProduct(productId) {
      return planByProduct.get(productId);
    },

    ...(packs && {
      createTopUpCheckout,
      packForProduct: (productId: string) => packByProduct.get(productId),
      // Creem's success redirect: hex HMAC-SHA256 keyed with the API key (shared/contracts/creem.md).
      verifyReturn: (params: Record<string, string | undefined>) => verifyReturnParams(params, opts.apiKey),
    }),

    /** The key and the three plan products as Creem sees them; a network failure throws instead. */
    async configurationProblem() {
      for (const plan of PLAN_IDS) {
        const variable = creemProductVariable(plan);
        try {
          const product = await creem.products.get(opts.products[plan]);
          if (product.status !== 'active') return `${variable} is archived at Creem and can no longer be bought`;
          if (product.billingType !== 'recurring' || product.billingPeriod !== 'every-month') {
            return `${variable} is not a monthly subscription at Creem`;
          }
        } catch (err) {
          if (err instanceof CreemError && (err.statusCode === 401 || err.statusCode === 403)) return 'Creem refuses CREEM_API_KEY';
          if (err instanceof CreemError && err.statusCode === 404) return `Creem does not know ${variable}`;
          throw err;
        }
      }
      return null;
    },
  };
}
