/**
 * What the product asks Creem, in one place for the server's payment provider (server/providers/payments/creem.ts)
 * and the Cloudflare checkout and portal workers (workers/): the client, and the shape of each request. Both go
 * through Creem's own SDK (fetch-based, so it runs in Node and in workerd alike); neither builds a request body
 * of its own. See shared/contracts/creem.md.
 */
import { Creem } from 'creem';
import type { CreateCheckoutRequest } from 'creem/models/components';
import type { PlanId } from './plans.ts';

export interface CreemClientOptions {
  apiKey: string;
  /** Another API address (tests point it at a fake Creem); else Creem's test API for `creem_test_` keys, else production. */
  serverUrl?: string;
  /** How long one call may take. */
  timeoutMs: number;
  /** Total time the SDK may spend retrying failed connections and 5xx answers; 0: one attempt only. */
  retryForMs: number;
}

export function createCreemClient(opts: CreemClientOptions): Creem {
  return new Creem({
    apiKey: opts.apiKey,
    ...(opts.serverUrl ? { serverURL: opts.serverUrl } : { server: opts.apiKey.startsWith('creem_test_') ? 'test' : 'prod' }),
    timeoutMs: opts.timeoutMs,
    retryConfig:
      opts.retryForMs > 0
        ? {
            strategy: 'backoff',
            backoff: { initialInterval: 500, maxInterval: 4_000, exponent: 2, maxElapsedTime: opts.retryForMs },
            retryConnectionErrors: true,
          }
        : { strategy: 'none' },
  });
}

/** The environment variable holding each plan's Creem product id (the server's and the checkout worker's). */
export const creemProductVariable = (plan: PlanId) => `CREEM_PRODUCT_${plan}` as const;

export interface CheckoutFor {
  /** The Creem product of the plan bought. */
  productId: string;
  plan: PlanId;
  /** The users row id. The webhook handler finds the account by it (metadata.userId, carried to the subscription). */
  userId: string;
  /** The account's verified address, never one the browser sent: Creem keys its customer by it. */
  email: string;
  /** Where the payer returns after paying. */
  successUrl: string;
}

/**
 * `POST /v1/checkouts` for one monthly plan. The metadata is what server/services/billing.service.ts reads back
 * from checkout.completed and every subscription event: `userId` (the users row id) and `plan`. Each checkout has
 * its own request id (Creem echoes it; the product's once-only rule is keyed by event and transaction ids).
 */
export function creemCheckoutRequest(checkout: CheckoutFor): CreateCheckoutRequest {
  return {
    productId: checkout.productId,
    requestId: `chk_${crypto.randomUUID()}`,
    customer: { email: checkout.email },
    successUrl: checkout.successUrl,
    metadata: { userId: checkout.userId, plan: checkout.plan },
  };
}
