import { CHECKOUT_EMAIL_MESSAGE } from '@common/billing';
import { ApiError } from '@/backend/api-error';

/** The subscription page's messages (product §8), word for word. */
export const BILLING_MESSAGES = {
  offline: 'No internet connection. Please check your network and try again.',
  offlineBanner: 'You are currently offline. Please check your internet connection.',
  missingEmail: CHECKOUT_EMAIL_MESSAGE,
  httpError: 'Unable to create checkout session. Please try again later.',
  missingUrl: 'Invalid response from checkout service: missing checkout URL',
  fallback: 'Failed to create checkout session. Please try again later.',
  unexpected: 'An unexpected error occurred. Please try again later.',
  userLookup: 'Unable to load user data. Please refresh the page.',
} as const;

/** A checkout refused or answered in a way whose message is already the one to show. */
export class CheckoutError extends Error {
  override name = 'CheckoutError';
}

/** What the person reads after a failed checkout. Server-side texts are not shown (product §8 rules). */
export function checkoutErrorMessage(err: unknown): string {
  if (err instanceof CheckoutError) return err.message;
  if (err instanceof ApiError) return err.code === 'email_required' ? BILLING_MESSAGES.missingEmail : BILLING_MESSAGES.httpError;
  if (err instanceof Error) return BILLING_MESSAGES.fallback;
  return BILLING_MESSAGES.unexpected;
}
