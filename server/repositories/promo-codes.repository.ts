import { and, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { promoCodes, promoRedemptions } from '../db/schema.ts';

export type PromoCodeRow = typeof promoCodes.$inferSelect;

/** Promo codes and their redemptions (server/services/promo-codes.service.ts decides). */
export const promoCodesRepository = {
  async create(
    tx: Executor,
    row: { code: string; credits: number; maxRedemptions: number; expiresAt: Date | null; accountId: string | null },
  ) {
    const [created] = await tx.insert(promoCodes).values(row).onConflictDoNothing().returning();
    return created;
  },

  list(tx: Executor): Promise<PromoCodeRow[]> {
    return tx.select().from(promoCodes).orderBy(desc(promoCodes.createdAt));
  },

  async disable(tx: Executor, code: string): Promise<PromoCodeRow | undefined> {
    const [row] = await tx
      .update(promoCodes)
      .set({ disabledAt: sql`coalesce(${promoCodes.disabledAt}, now())` })
      .where(eq(promoCodes.code, code))
      .returning();
    return row;
  },

  find(tx: Executor, code: string): Promise<PromoCodeRow | undefined> {
    return tx
      .select()
      .from(promoCodes)
      .where(eq(promoCodes.code, code))
      .then((rows) => rows[0]);
  },

  /** Records the account's redemption; false when it had redeemed this code before. */
  async addRedemption(tx: Executor, code: string, userId: string): Promise<boolean> {
    const rows = await tx
      .insert(promoRedemptions)
      .values({ code, userId })
      .onConflictDoNothing()
      .returning({ code: promoRedemptions.code });
    return rows.length === 1;
  },

  /**
   * Takes one use of a live code for this account, in one statement under the row's lock (a parallel redemption
   * waits, then sees the new count): the code's credits, or undefined when it cannot be used now.
   */
  async takeUse(tx: Executor, code: string, userId: string): Promise<number | undefined> {
    const c = promoCodes;
    const [row] = await tx
      .update(c)
      .set({ redeemedCount: sql`${c.redeemedCount} + 1` })
      .where(
        and(
          eq(c.code, code),
          isNull(c.disabledAt),
          or(isNull(c.expiresAt), gt(c.expiresAt, sql`now()`)),
          lt(c.redeemedCount, c.maxRedemptions),
          or(isNull(c.accountId), eq(c.accountId, userId)),
        ),
      )
      .returning({ credits: c.credits });
    return row?.credits;
  },
};
