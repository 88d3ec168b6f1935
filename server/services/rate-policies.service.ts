import { EXPORT_INTERVAL_MINUTES, EXPORT_RATE_LIMITED } from '@common/account.ts';
import type { Db } from '../db/index.ts';
import { tooManyRequests } from '../domain/errors.ts';
import { hitRateLimit } from '../repositories/rate-limits.repository.ts';

/** Free, so bounded: enough to check a full training's photos several times over in 10 minutes. */
const CHECKS_PER_WINDOW = 300;
/**
 * The same work from one client address (TRUST_PROXY rules), whatever the accounts: sign-up is free, so a
 * per-account limit alone lets one client run many accounts. Three accounts' worth, for a shared address.
 */
const CHECKS_PER_ADDRESS_WINDOW = 3 * CHECKS_PER_WINDOW;
const CHECK_WINDOW_S = 600;
const TOO_MANY_CHECKS = 'Too many photos checked in a short time. Please wait a few minutes and try again.';

export type RatePolicies = ReturnType<typeof createRatePolicies>;

/** How often free but costly requests may come (counters shared by every instance); past it, 429. */
export function createRatePolicies(deps: { db: Db }) {
  const { db } = deps;
  return {
    /** One photo check of the account from the client address (POST /api/trainings/check-photo). */
    async admitPhotoCheck(userId: string, address: string): Promise<void> {
      const byAccount = await hitRateLimit(db, `photo-check:${userId}`, CHECK_WINDOW_S);
      const byAddress = await hitRateLimit(db, `photo-check-address:${address}`, CHECK_WINDOW_S);
      if (byAccount > CHECKS_PER_WINDOW || byAddress > CHECKS_PER_ADDRESS_WINDOW) throw tooManyRequests(TOO_MANY_CHECKS);
    },

    /** 'Download my data': at most one per account per EXPORT_INTERVAL_MINUTES. */
    async admitExport(userId: string): Promise<void> {
      if ((await hitRateLimit(db, `export:${userId}`, EXPORT_INTERVAL_MINUTES * 60)) > 1) throw tooManyRequests(EXPORT_RATE_LIMITED);
    },
  };
}
