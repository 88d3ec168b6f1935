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

/** REQUIRE_VERIFIED_EMAIL: a plan is bought with a confirmed address (built-in accounts). */
export const CONFIRM_EMAIL_TO_BUY_MESSAGE =
  'Confirm your e-mail address before buying a plan: open the link we sent you, or use Send again.';
export const CONFIRM_EMAIL_TO_BUY_CODE = 'email_not_verified';
