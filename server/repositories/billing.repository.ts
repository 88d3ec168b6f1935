import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { creditLedger, users } from '../db/schema.ts';

/** The account side of payment events (server/services/payment-webhooks.service.ts decides what they change). */
export const billingRepository = {
  /** Whether a users row has this id. */
  async userExists(tx: Executor, userId: string): Promise<boolean> {
    const [row] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId));
    return Boolean(row);
  },

  /** The user whose payment-provider customer this is. */
  async userIdOfCustomer(tx: Executor, customerId: string): Promise<string | undefined> {
    const [row] = await tx.select({ id: users.id }).from(users).where(eq(users.creemCustomerId, customerId));
    return row?.id;
  },

  /** The user a ledger row of this idempotency key (a payment's grant) belongs to. */
  async userIdOfLedgerKey(tx: Executor, idempotencyKey: string): Promise<string | undefined> {
    const [grant] = await tx
      .select({ userId: creditLedger.userId })
      .from(creditLedger)
      .where(eq(creditLedger.idempotencyKey, idempotencyKey));
    return grant?.userId;
  },

  /** The credits the user's ledger row of this idempotency key granted. */
  async grantOf(tx: Executor, userId: string, idempotencyKey: string): Promise<number | undefined> {
    const [grant] = await tx
      .select({ delta: creditLedger.delta })
      .from(creditLedger)
      .where(and(eq(creditLedger.userId, userId), eq(creditLedger.idempotencyKey, idempotencyKey)));
    return grant?.delta;
  },

  /** The user's balance, locking the users row for the rest of the transaction. */
  async lockCredits(tx: Executor, userId: string): Promise<number | undefined> {
    const [user] = await tx.select({ credits: users.credits }).from(users).where(eq(users.id, userId)).for('update');
    return user?.credits;
  },

  /** When the account was erased (null: it was not); undefined without a row. */
  async erasedAt(tx: Executor, userId: string): Promise<Date | null | undefined> {
    const [account] = await tx.select({ erasedAt: users.erasedAt }).from(users).where(eq(users.id, userId));
    return account?.erasedAt;
  },

  /** The users row's copy of its subscription: status, plan and customer. */
  async subscriptionOfUser(tx: Executor, userId: string) {
    const [row] = await tx
      .select({ status: users.subscriptionStatus, plan: users.subscriptionPlan, customer: users.creemCustomerId })
      .from(users)
      .where(eq(users.id, userId));
    return row;
  },

  /** Writes the users row's copy of its subscription. */
  async setSubscriptionOfUser(tx: Executor, userId: string, s: { status: string; plan: string; customerId: string }): Promise<void> {
    await tx
      .update(users)
      .set({ subscriptionStatus: s.status, subscriptionPlan: s.plan, creemCustomerId: s.customerId, updatedAt: new Date() })
      .where(eq(users.id, userId));
  },
};
