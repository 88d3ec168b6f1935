import { and, eq, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { topUpPurchases, users } from '../db/schema.ts';

export type TopUpPurchaseRow = typeof topUpPurchases.$inferSelect;

/**
 * Credit-pack orders: a person's top-ups and the packs an owner buys for a team (`teamId`; their services,
 * top-ups.service.ts and team-purchases.service.ts, decide what they grant and take back).
 */
export const topUpsRepository = {
  /**
   * Records an order once; a second report of it (a replayed event, the return page after the webhook) only fills
   * in the transaction id when it was missing. Returns the stored row, locked for the caller's transaction.
   */
  async record(
    tx: Executor,
    row: {
      provider: string;
      orderId: string;
      transactionId: string | null;
      userId: string;
      teamId?: string;
      pack: string;
      credits: number;
    },
  ): Promise<TopUpPurchaseRow> {
    await tx
      .insert(topUpPurchases)
      .values(row)
      .onConflictDoUpdate({
        target: [topUpPurchases.provider, topUpPurchases.orderId],
        set: { transactionId: sql`coalesce(${topUpPurchases.transactionId}, excluded.transaction_id)` },
      });
    const [stored] = await tx
      .select()
      .from(topUpPurchases)
      .where(and(eq(topUpPurchases.provider, row.provider), eq(topUpPurchases.orderId, row.orderId)))
      .for('update');
    return stored;
  },

  /** The order a refund or chargeback names (its transaction, or its order), locked; undefined when none. */
  async findForReversal(tx: Executor, provider: string, ids: { transactionId?: string; orderId?: string }) {
    const conditions = [
      ids.transactionId ? eq(topUpPurchases.transactionId, ids.transactionId) : undefined,
      ids.orderId ? eq(topUpPurchases.orderId, ids.orderId) : undefined,
    ].filter((c) => c !== undefined);
    if (conditions.length === 0) return undefined;
    const [row] = await tx
      .select()
      .from(topUpPurchases)
      .where(and(eq(topUpPurchases.provider, provider), or(...conditions)))
      .for('update');
    return row;
  },

  async markReversed(tx: Executor, provider: string, orderId: string, credits: number): Promise<boolean> {
    const done = await tx
      .update(topUpPurchases)
      .set({ reversedAt: new Date(), reversedCredits: credits })
      .where(and(eq(topUpPurchases.provider, provider), eq(topUpPurchases.orderId, orderId), isNull(topUpPurchases.reversedAt)))
      .returning({ orderId: topUpPurchases.orderId });
    return done.length === 1;
  },

  /** The balance now, the user's row locked (a reversal takes at most this). */
  async lockedBalance(tx: Executor, userId: string): Promise<number> {
    const [row] = await tx.select({ credits: users.credits }).from(users).where(eq(users.id, userId)).for('update');
    return row?.credits ?? 0;
  },
};
