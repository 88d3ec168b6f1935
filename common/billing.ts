import { z } from 'zod';
import { storableText, TEXT_LIMITS } from './text.ts';

/** Spec §3 Checkout request. Plan, owner and email are checked by the server with their own messages. */
export const checkoutRequestSchema = z.object({
  plan: storableText(TEXT_LIMITS.id),
  userId: storableText(TEXT_LIMITS.id),
  email: storableText(TEXT_LIMITS.email).nullish(),
});
export type CheckoutRequestBody = z.infer<typeof checkoutRequestSchema>;
export interface CheckoutResponse {
  checkout_url: string;
}

/** Spec §3 Portal request. */
export const portalRequestSchema = z.object({ customer_id: storableText(TEXT_LIMITS.id).min(1, 'is required') });
export interface PortalResponse {
  customer_portal_link: string;
}

/** GET /api/billing/subscription: the caller's subscription as the subscription and profile pages show it. */
export interface SubscriptionInfo {
  /** 'active' while a paid plan is in force; anything else (or null) is the Free Plan. */
  status: string | null;
  plan: string | null;
  customer_id: string | null;
  /** End of the paid period (ISO), when known. */
  current_period_end: string | null;
  /** True when the subscription ends at the period end instead of renewing. */
  cancel_at_period_end: boolean;
}

/** Shown when a checkout lacks an email or user id (product §8). */
export const CHECKOUT_EMAIL_MESSAGE = 'Unable to process subscription. Please ensure you have a valid email address.';

/** What an address must look like to be handed to the payment provider. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Where the payer returns after paying, on the SPA's origin. */
export const CHECKOUT_SUCCESS_PATH = '/app/subscription?checkout=success';

export interface BillingRefusal {
  status: 400 | 403 | 409 | 502;
  code: string;
  message: string;
}

/**
 * The refusals of a checkout or portal request, as our server and the Cloudflare checkout and portal workers
 * (workers/) answer them: the same status, code and words, whichever of them the SPA calls.
 */
export const BILLING_REFUSALS = {
  notYourAccount: { status: 403, code: 'forbidden', message: 'You can only start a checkout for your own account.' },
  unknownPlan: { status: 400, code: 'unknown_plan', message: 'Unknown plan. Choose Basic, Standard or Professional.' },
  emailRequired: { status: 400, code: 'email_required', message: CHECKOUT_EMAIL_MESSAGE },
  alreadySubscribed: {
    status: 409,
    code: 'already_subscribed',
    message: 'You already have an active subscription. Change your plan from the customer portal.',
  },
  notYourCustomer: { status: 403, code: 'forbidden', message: 'This customer account does not belong to you.' },
  notSubscribed: { status: 409, code: 'not_subscribed', message: 'You have no active subscription to manage. Choose a plan first.' },
  checkoutFailed: {
    status: 502,
    code: 'payment_provider',
    message: 'The payment provider could not start the checkout. Please try again.',
  },
  portalFailed: {
    status: 502,
    code: 'payment_provider',
    message: 'The payment provider could not open the customer portal. Please try again.',
  },
} as const satisfies Record<string, BillingRefusal>;

/** REQUIRE_VERIFIED_EMAIL: a plan is bought with a confirmed address (built-in accounts). */
export const CONFIRM_EMAIL_TO_BUY_MESSAGE =
  'Confirm your e-mail address before buying a plan: open the link we sent you, or use Send again.';
export const CONFIRM_EMAIL_TO_BUY_CODE = 'email_not_verified';
