import type { Db, Executor } from '../db/index.ts';
import { tryAgainIn } from '@common/auth.ts';
import { RateLimitedError, tooManyRequests } from '../domain/errors.ts';
import {
  forgetRateLimits,
  hitRateLimit,
  hitRateLimitWindow,
  releaseRateLimit,
  resetRateLimit,
  signInAddressesRepository as addresses,
} from '../repositories/rate-limits.repository.ts';

/**
 * Limits password guessing on the built-in accounts without letting anyone lock a person out of their own
 * account. Every attempt is counted up front (atomically, so parallel guesses each see a higher count) and
 * taken back when it succeeds, so only failures ever count:
 *
 * - per e-mail **and** address: `limit` failures per window, then 429 — this only stops that address;
 * - per address: `5 × limit` failures per window over all e-mails (one address trying many accounts);
 * - per e-mail from everywhere: past `limit` failures, attempts from an address the account has never
 *   signed in from are slowed down (never refused), and the account's usual addresses are not affected.
 *
 * So the owner with the right password from their usual address always gets in, from a new address gets in
 * a few seconds later, and a guesser gets `limit` tries per window and address, each slower than the last.
 */
export interface SignInGuardOptions {
  db: Db;
  /** Failures allowed per e-mail and address per window (AUTH_RATE_LIMIT). */
  limit: number;
  /** Sign-up attempts allowed per address per hour (SIGN_UP_RATE_LIMIT). */
  signUpLimit?: number;
  windowSeconds?: number;
  /** Waits `ms` milliseconds (tests replace it to observe the slowdown without waiting). */
  sleep?: (ms: number) => Promise<void>;
}

export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
export const SIGN_UP_WINDOW_SECONDS = 60 * 60;
export const DEFAULT_SIGN_UP_LIMIT = 30;
/** Wrong current passwords allowed per account per SIGN_IN_WINDOW_SECONDS ('Change password'). */
export const PASSWORD_CHECK_LIMIT = 10;
/** Extra wait per failure past the limit, for an address new to the account, and its ceiling. */
export const SLOWDOWN_STEP_MS = 250;
export const SLOWDOWN_MAX_MS = 5_000;
/** An address stays "usual" this long after the account's last successful sign-in from it. */
const USUAL_ADDRESS_DAYS = 90;

const TOO_MANY = 'Too many sign-in attempts. Please wait a few minutes and try again.';
const TOO_MANY_MAIL = 'Too many requests. Please wait a few minutes and try again.';

export type SignInGuard = ReturnType<typeof createSignInGuard>;

const signInKeys = (email: string, address: string) => ({
  pair: `sign-in:pair:${email}|${address}`,
  address: `sign-in:address:${address}`,
  email: `sign-in:email:${email}`,
});

/**
 * Forgets what the guard keeps about an e-mail (its counters and the addresses it signed in from: personal
 * data), as an account erasure must. `email` as the sign-in form sends it; it is normalised like the guard's.
 */
export async function forgetSignIns(tx: Executor, email: string): Promise<void> {
  const normalised = email.trim().toLowerCase();
  const { email: emailKey, pair } = signInKeys(normalised, '');
  await forgetRateLimits(tx, [emailKey, `mail:email:${normalised}`], [pair, `mail:pair:${normalised}|`]);
  await addresses.forget(tx, normalised);
}

export function createSignInGuard(opts: SignInGuardOptions) {
  const { db, limit } = opts;
  const windowSeconds = opts.windowSeconds ?? SIGN_IN_WINDOW_SECONDS;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const keys = signInKeys;

  async function isUsualAddress(email: string, address: string): Promise<boolean> {
    return addresses.isRecent(db, email, address, USUAL_ADDRESS_DAYS);
  }

  return {
    /**
     * Counts an attempt before the password is checked. Refuses (429) when this address has used up its
     * tries for this account or for all accounts; otherwise returns once any slowdown has been waited out.
     */
    async admit(email: string, address: string): Promise<void> {
      const k = keys(email, address);
      const [pair, byAddress] = [await hitRateLimit(db, k.pair, windowSeconds), await hitRateLimit(db, k.address, windowSeconds)];
      if (pair > limit || byAddress > limit * 5) {
        // A refused attempt never reached the password, so it is not a guess either.
        await releaseRateLimit(db, k.pair);
        await releaseRateLimit(db, k.address);
        throw tooManyRequests(TOO_MANY);
      }
      const byEmail = await hitRateLimit(db, k.email, windowSeconds);
      if (byEmail > limit && !(await isUsualAddress(email, address))) {
        await sleep(Math.min(SLOWDOWN_MAX_MS, (byEmail - limit) * SLOWDOWN_STEP_MS));
      }
    },

    /**
     * After the password check: a success takes its own count back, forgets this address's earlier
     * failures for the account and remembers the address as usual. A failure stays counted.
     */
    async settle(email: string, address: string, succeeded: boolean): Promise<void> {
      if (!succeeded) return;
      const k = keys(email, address);
      await resetRateLimit(db, k.pair);
      await releaseRateLimit(db, k.address);
      await releaseRateLimit(db, k.email);
      await addresses.remember(db, email, address);
    },

    /**
     * Requests that send account mail (password reset, verification again), counted like sign-ins: `limit` per
     * e-mail and address and `5 × limit` per address in a window, then 429. Every request counts, whether or not
     * the address has an account, so the answer tells nothing about accounts.
     */
    async admitMailRequest(email: string, address: string): Promise<void> {
      const pair = await hitRateLimit(db, `mail:pair:${email}|${address}`, windowSeconds);
      const byAddress = await hitRateLimit(db, `mail:address:${address}`, windowSeconds);
      if (pair > limit || byAddress > limit * 5) throw tooManyRequests(TOO_MANY_MAIL);
    },

    /**
     * Whether one more account mail may go to `email` in this window (`limit` from all addresses together). Past
     * it the request is answered as usual but sends nothing: the links already sent still work, and nobody can
     * bury an inbox under mail from many addresses. Counted in `executor`, the mail's own transaction when it
     * has one (a sign-up that rolls back counts nothing).
     */
    async mayMail(email: string, executor: Executor = db): Promise<boolean> {
      return (await hitRateLimit(executor, `mail:email:${email.trim().toLowerCase()}`, windowSeconds)) <= limit;
    },

    /**
     * A signed-in person's current password is about to be checked ('Change password'): counted up front per
     * account, so parallel guesses each see a higher count, and refused (429, with the wait) past
     * PASSWORD_CHECK_LIMIT wrong ones in the window. `passwordCheckPassed` takes a right one back.
     */
    async admitPasswordCheck(accountId: string): Promise<void> {
      const key = `password-check:account:${accountId}`;
      const { count, secondsLeft } = await hitRateLimitWindow(db, key, windowSeconds);
      if (count > PASSWORD_CHECK_LIMIT) {
        await releaseRateLimit(db, key);
        throw new RateLimitedError(`Too many wrong passwords. Please try again ${tryAgainIn(secondsLeft)}.`, secondsLeft);
      }
    },

    async passwordCheckPassed(accountId: string): Promise<void> {
      await releaseRateLimit(db, `password-check:account:${accountId}`);
    },

    /**
     * Sign-ups per address per hour. Every attempt counts, whatever its answer (a taken address, a weak
     * password, a malformed body): sign-up says when an address is taken, so this bounds how many addresses
     * one caller can test, and how many accounts it can make.
     */
    async admitSignUp(address: string): Promise<void> {
      const { count, secondsLeft } = await hitRateLimitWindow(db, `sign-up:address:${address}`, SIGN_UP_WINDOW_SECONDS);
      if (count > (opts.signUpLimit ?? DEFAULT_SIGN_UP_LIMIT)) {
        throw new RateLimitedError(
          `Too many sign-up attempts from your network. Please try again ${tryAgainIn(secondsLeft)}.`,
          secondsLeft,
        );
      }
    },
  };
}
