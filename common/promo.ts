/** Promo codes (issue 50 item 3): the rules both the admin command and the credits page use. */
import { z } from 'zod';

export const PROMO_TEXTS = {
  unknown: 'This promo code does not exist.',
  expired: 'This promo code has expired.',
  usedUp: 'This promo code has been used up.',
  alreadyRedeemed: 'You have already redeemed this promo code.',
  tooMany: 'Too many promo code attempts. Please try again in an hour.',
  invalid: 'Enter a promo code of 3 to 40 letters, digits, dashes or underscores.',
} as const;

/** At most this many attempts an hour, per account and per client address. */
export const PROMO_ATTEMPTS_PER_HOUR = 10;
/** The most one code may grant, and how many times it may be redeemed (an operator's typo stays bounded). */
export const PROMO_MAX_CREDITS = 100_000;
export const PROMO_MAX_REDEMPTIONS = 1_000_000;

/** Codes are compared without spaces and in capitals: ' launch 2026 ' is LAUNCH2026. */
export function normalizePromoCode(raw: string): string {
  return raw.replace(/\s+/g, '').toUpperCase();
}

export const PROMO_CODE_PATTERN = /^[A-Z0-9_-]{3,40}$/;

/** POST /api/credits/promo { code } */
export const promoRedeemSchema = z.object({
  code: z
    .string({ error: PROMO_TEXTS.invalid })
    .max(200, PROMO_TEXTS.invalid)
    .transform((v, ctx) => {
      const code = normalizePromoCode(v);
      if (!PROMO_CODE_PATTERN.test(code)) {
        ctx.addIssue({ code: 'custom', message: PROMO_TEXTS.invalid });
        return z.NEVER;
      }
      return code;
    }),
});
