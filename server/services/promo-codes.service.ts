import {
  PROMO_ATTEMPTS_PER_HOUR,
  PROMO_CODE_PATTERN,
  PROMO_MAX_CREDITS,
  PROMO_MAX_REDEMPTIONS,
  PROMO_TEXTS,
  normalizePromoCode,
} from '@common/promo.ts';
import type { Db } from '../db/index.ts';
import { AppError, badRequest, conflict, notFound, tooManyRequests } from '../domain/errors.ts';
import { promoCodesRepository as repo, type PromoCodeRow } from '../repositories/promo-codes.repository.ts';
import { hitRateLimit } from '../repositories/rate-limits.repository.ts';
import type { CreditsService } from './credits.service.ts';

export type PromoCodesService = ReturnType<typeof createPromoCodesService>;

const HOUR_SECONDS = 60 * 60;

/** An operator's input for a new code; each field checked with a message that names it. */
export interface NewPromoCode {
  code: string;
  credits: number;
  maxRedemptions: number;
  expiresAt: Date | null;
  accountId: string | null;
}

const wholeIn = (n: number, max: number) => Number.isSafeInteger(n) && n >= 1 && n <= max;

/**
 * Promo codes: an operator creates, lists and disables them; a person redeems one on the credits page, once per
 * account per code, the code's use counted in the same transaction as the grant (so the last use is taken once).
 */
export function createPromoCodesService(deps: { db: Db; credits: CreditsService }) {
  const { db } = deps;

  /** Why a code the account could not use is refused (read after the failed take, for the message only). */
  function refusalFor(row: PromoCodeRow | undefined, userId: string): AppError {
    if (!row || row.disabledAt || (row.accountId && row.accountId !== userId)) return notFound(PROMO_TEXTS.unknown);
    if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) return new AppError(410, 'promo_expired', PROMO_TEXTS.expired);
    return conflict(PROMO_TEXTS.usedUp, 'promo_used_up');
  }

  return {
    async create(input: NewPromoCode): Promise<PromoCodeRow> {
      const code = normalizePromoCode(input.code);
      if (!PROMO_CODE_PATTERN.test(code)) throw badRequest(`code: ${PROMO_TEXTS.invalid}`);
      if (!wholeIn(input.credits, PROMO_MAX_CREDITS))
        throw badRequest(`credits: must be a whole number from 1 to ${PROMO_MAX_CREDITS.toLocaleString('en-US')}`);
      if (!wholeIn(input.maxRedemptions, PROMO_MAX_REDEMPTIONS))
        throw badRequest(`max redemptions: must be a whole number from 1 to ${PROMO_MAX_REDEMPTIONS.toLocaleString('en-US')}`);
      if (input.expiresAt && (Number.isNaN(input.expiresAt.getTime()) || input.expiresAt.getTime() <= Date.now()))
        throw badRequest('expires: must be a date in the future');
      const created = await repo.create(db, { ...input, code });
      if (!created) throw conflict(`A promo code ${code} exists already.`, 'promo_exists');
      return created;
    },

    list: () => repo.list(db),

    async disable(code: string): Promise<PromoCodeRow> {
      const row = await repo.disable(db, normalizePromoCode(code));
      if (!row) throw notFound(PROMO_TEXTS.unknown);
      return row;
    },

    /**
     * Redeems `code` (already normalised) for the account: at most PROMO_ATTEMPTS_PER_HOUR attempts an hour per
     * account and per client address, counted before anything is looked up, so guessing codes stays slow.
     */
    async redeem(userId: string, code: string, clientAddress: string): Promise<{ credits: number; balance: number }> {
      const [byAccount, byAddress] = await Promise.all([
        hitRateLimit(db, `promo:user:${userId}`, HOUR_SECONDS),
        hitRateLimit(db, `promo:addr:${clientAddress}`, HOUR_SECONDS),
      ]);
      if (byAccount > PROMO_ATTEMPTS_PER_HOUR || byAddress > PROMO_ATTEMPTS_PER_HOUR) throw tooManyRequests(PROMO_TEXTS.tooMany);
      return db.transaction(async (tx) => {
        const known = await repo.find(tx, code);
        if (!known || known.disabledAt || (known.accountId && known.accountId !== userId)) throw notFound(PROMO_TEXTS.unknown);
        // The redemption row next: a second redemption by the account waits on it, then finds it and stops.
        if (!(await repo.addRedemption(tx, code, userId))) throw conflict(PROMO_TEXTS.alreadyRedeemed, 'promo_already_redeemed');
        const credits = await repo.takeUse(tx, code, userId);
        if (credits === undefined) throw refusalFor(await repo.find(tx, code), userId);
        const { balance } = await deps.credits.applyIn(tx, {
          userId,
          delta: credits,
          kind: 'grant',
          reason: `Promo code ${code}`,
          idempotencyKey: `promo:${code}:${userId}`,
        });
        return { credits, balance };
      });
    },
  };
}
