import { and, eq, gt, like, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { rateLimits, signInAddresses } from '../db/schema.ts';

/**
 * Fixed-window counters in the database, so every instance shares them. `hitRateLimit` counts one hit and
 * returns the count within the current window of `windowSeconds`; the counting is one atomic statement, so
 * concurrent requests each see a different count.
 */
export async function hitRateLimit(db: Executor, key: string, windowSeconds: number): Promise<number> {
  return (await hitRateLimitWindow(db, key, windowSeconds)).count;
}

/** `hitRateLimit`, also answering how many seconds are left of the current window (a 429's wait). */
export async function hitRateLimitWindow(
  db: Executor,
  key: string,
  windowSeconds: number,
): Promise<{ count: number; secondsLeft: number }> {
  const expired = sql`${rateLimits.windowStart} < now() - make_interval(secs => ${windowSeconds})`;
  const [row] = await db
    .insert(rateLimits)
    .values({ key, count: 1, windowStart: sql`now()` })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: {
        count: sql`case when ${expired} then 1 else ${rateLimits.count} + 1 end`,
        windowStart: sql`case when ${expired} then now() else ${rateLimits.windowStart} end`,
      },
    })
    .returning({
      count: rateLimits.count,
      secondsLeft: sql<number>`ceil(extract(epoch from ${rateLimits.windowStart} + make_interval(secs => ${windowSeconds}) - now()))::int`,
    });
  return { count: row.count, secondsLeft: Math.max(1, Number(row.secondsLeft)) };
}

/** Takes back one hit (a request that turned out not to count); never below zero. */
export async function releaseRateLimit(db: Executor, key: string): Promise<void> {
  await db
    .update(rateLimits)
    .set({ count: sql`${rateLimits.count} - 1` })
    .where(and(eq(rateLimits.key, key), gt(rateLimits.count, 0)));
}

/** Forgets every hit of a key. */
export async function resetRateLimit(db: Executor, key: string): Promise<void> {
  await db.delete(rateLimits).where(eq(rateLimits.key, key));
}

/** LIKE's own characters in `text` escaped, so it matches as itself. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Deletes the counters named `keys` and those whose key starts with one of `prefixes`. */
export async function forgetRateLimits(db: Executor, keys: string[], prefixes: string[]): Promise<void> {
  await db
    .delete(rateLimits)
    .where(or(...keys.map((key) => eq(rateLimits.key, key)), ...prefixes.map((prefix) => like(rateLimits.key, `${escapeLike(prefix)}%`))));
}

/** Addresses an account has signed in from (the sign-in guard's usual addresses). */
export const signInAddressesRepository = {
  /** Whether the account signed in from `address` within the last `days` days. */
  async isRecent(db: Executor, email: string, address: string, days: number): Promise<boolean> {
    const [row] = await db
      .select({ email: signInAddresses.email })
      .from(signInAddresses)
      .where(
        and(
          eq(signInAddresses.email, email),
          eq(signInAddresses.address, address),
          gt(signInAddresses.lastSignInAt, sql`now() - make_interval(days => ${days})`),
        ),
      );
    return Boolean(row);
  },

  /** Records a successful sign-in of the account from `address` now. */
  async remember(db: Executor, email: string, address: string): Promise<void> {
    await db
      .insert(signInAddresses)
      .values({ email, address })
      .onConflictDoUpdate({ target: [signInAddresses.email, signInAddresses.address], set: { lastSignInAt: sql`now()` } });
  },

  /** Forgets every address of the account. */
  async forget(db: Executor, email: string): Promise<void> {
    await db.delete(signInAddresses).where(eq(signInAddresses.email, email));
  },
};
