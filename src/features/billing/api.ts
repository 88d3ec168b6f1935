import { useCallback, useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { CheckoutRequestBody, CheckoutResponse, PortalResponse, SubscriptionInfo } from '@common/billing';
import type { PlanId } from '@common/plans';
import { TIMINGS } from '@common/product';
import { ApiError } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { SERVER_BILLING_ENDPOINTS, type ApiPort } from '@/backend/port';
import { BILLING_MESSAGES, CheckoutError, checkoutErrorMessage } from './lib/checkout-messages';
import { redirectTo } from '@/lib/redirect';

/** Every key starts with 'billing': a subscription event invalidates them all (see useLiveUserRecord). */
export const billingKeys = {
  subscription: ['billing', 'subscription'] as const,
  portal: (customerId: string) => ['billing', 'portal', customerId] as const,
};

// ---- The caller's subscription -------------------------------------------------------------------------

export function fetchSubscription(api: ApiPort, signal?: AbortSignal): Promise<SubscriptionInfo> {
  return api.request<SubscriptionInfo>('/api/billing/subscription', { signal });
}

export function useSubscription() {
  const { api } = useBackend();
  return useQuery({ queryKey: billingKeys.subscription, queryFn: ({ signal }) => fetchSubscription(api, signal) });
}

// ---- Checkout -------------------------------------------------------------------------------------------

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A 4xx answer says the request itself is wrong (another user's id, already subscribed…): asking again
 * cannot help, so only network failures and server errors use the remaining attempts.
 */
function worthRetrying(err: unknown): boolean {
  if (err instanceof CheckoutError) return false;
  if (err instanceof ApiError) return err.status >= 500 || err.status === 429;
  return true;
}

/**
 * Asks for a checkout address (product §7) at `endpoint` (our server's route or the checkout worker): up to
 * TIMINGS.checkoutAttempts attempts, waiting 2^attempt seconds between them (1 s, then 2 s). A non-OK answer is thrown
 * as an ApiError carrying its status and body text.
 */
export async function createCheckout(
  api: ApiPort,
  body: CheckoutRequestBody,
  endpoint: string = SERVER_BILLING_ENDPOINTS.checkout,
): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await api.request<Partial<CheckoutResponse> | null>(endpoint, { method: 'POST', body });
      if (!res?.checkout_url) throw new CheckoutError(BILLING_MESSAGES.missingUrl);
      return res.checkout_url;
    } catch (err) {
      if (attempt + 1 >= TIMINGS.checkoutAttempts || !worthRetrying(err)) throw err;
      console.warn(`Checkout attempt ${attempt + 1} failed; trying again`, err);
      await sleep(1000 * 2 ** attempt);
    }
  }
}

export interface CheckoutCustomer {
  userId: string | null | undefined;
  email: string | null | undefined;
}

/**
 * Starts checkout for an inactive user (product §4/§5). The chosen plan stays "processing" until the browser
 * has left for the checkout page; a failure shows its message and clears it.
 */
export function useCheckout() {
  const { api, billing = SERVER_BILLING_ENDPOINTS } = useBackend();
  const [processingPlan, setProcessingPlan] = useState<PlanId | null>(null);
  const [error, setError] = useState<string | null>(null);

  // Coming back with the Back button restores this page from the back-forward cache mid-"Processing...".
  useEffect(() => {
    const onPageShow = (e: PageTransitionEvent) => e.persisted && setProcessingPlan(null);
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, []);

  const start = useCallback(
    async (plan: PlanId, customer: CheckoutCustomer, online: boolean) => {
      setError(null);
      if (!online) return setError(BILLING_MESSAGES.offline);
      if (!customer.userId || !customer.email) return setError(BILLING_MESSAGES.missingEmail);
      setProcessingPlan(plan);
      try {
        redirectTo(await createCheckout(api, { plan, userId: customer.userId, email: customer.email }, billing.checkout));
      } catch (err) {
        console.error('Checkout failed', err);
        setError(checkoutErrorMessage(err));
        setProcessingPlan(null);
      }
    },
    [api, billing.checkout],
  );

  return { start, processingPlan, error, clearError: useCallback(() => setError(null), []) };
}

// ---- Customer portal ------------------------------------------------------------------------------------

export async function fetchPortalLink(
  api: ApiPort,
  customerId: string,
  signal?: AbortSignal,
  endpoint: string = SERVER_BILLING_ENDPOINTS.portal,
): Promise<string> {
  const res = await api.request<Partial<PortalResponse> | null>(endpoint, {
    method: 'POST',
    body: { customer_id: customerId },
    signal,
  });
  if (!res?.customer_portal_link) throw new Error('Invalid response from portal service: missing customer_portal_link');
  return res.customer_portal_link;
}

/**
 * The customer portal address, fetched only for an active subscription with a customer id (product §7).
 * A failure is only logged (product §8): the buttons that need the link stay disabled.
 */
export function usePortalLink(status: string | null | undefined, customerId: string | null | undefined): string | undefined {
  const { api, billing = SERVER_BILLING_ENDPOINTS } = useBackend();
  const enabled = status === 'active' && !!customerId;
  const query = useQuery({
    queryKey: billingKeys.portal(customerId ?? ''),
    enabled,
    staleTime: 5 * 60_000,
    queryFn: ({ signal }) => fetchPortalLink(api, customerId!, signal, billing.portal),
  });
  useEffect(() => {
    if (query.error) console.error('Could not load the customer portal link', query.error);
  }, [query.error]);
  return enabled ? query.data : undefined;
}

export function openPortal(link: string): void {
  redirectTo(link);
}
