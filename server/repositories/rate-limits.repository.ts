import { and, eq, gt, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { rateLimits } from '../db/schema.ts';

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
