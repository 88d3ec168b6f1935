import { ApiError, serverMessage } from '@/backend/api-error';

/** The server's own message when it answered with one (a refused code, a bad return), else `fallback`. */
export function failureMessage(err: unknown, fallback: string): string {
  return (err instanceof ApiError && serverMessage(err)) || fallback;
}

export const CREDITS_TEXTS = {
  historyError: 'Your credit history could not be loaded.',
  spendError: 'Your spending could not be loaded.',
  topUpError: 'The checkout could not be started. Please try again later.',
  promoError: 'The promo code could not be redeemed. Please try again later.',
  returnError: 'Your payment could not be confirmed here. If you paid, your credits arrive within a minute.',
} as const;
