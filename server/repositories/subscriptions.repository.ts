import { and, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { paymentEvents, subscriptionPeriodGrants, subscriptions } from '../db/schema.ts';

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type NewSubscription = Omit<typeof subscriptions.$inferInsert, 'createdAt' | 'updatedAt'>;

/**
 * Subscriptions that can no longer charge the person: ended or already set to end. A `duplicate` (a second
 * subscription, billing.service) is not among them: its cancellation was asked for when it was found, but until
 * the provider's `subscription.canceled` turns it `canceled`, that request may have failed and it may still charge.
 */
export const CANNOT_CHARGE: ReadonlySet<string> = new Set(['canceled', 'expired', 'scheduled_cancel']);

/** Queries on subscriptions and processed payment events. */
export const subscriptionsRepository = {
  /** Whether a webhook event (provider, event id) was recorded already. */
  async eventSeen(db: Executor, provider: string, eventId: string): Promise<boolean> {
    const [row] = await db
      .select({ id: paymentEvents.eventId })
      .from(paymentEvents)
      .where(and(eq(paymentEvents.provider, provider), eq(paymentEvents.eventId, eventId)))
      .limit(1);
    return Boolean(row);
  },

  /** Records a webhook event; false when (provider, event id) was already recorded. */
  async recordEvent(tx: Executor, e: { provider: string; eventId: string; eventType: string; payload: unknown }): Promise<boolean> {
    const rows = await tx
      .insert(paymentEvents)
      .values({ provider: e.provider, eventId: e.eventId, eventType: e.eventType, payload: e.payload })
      .onConflictDoNothing()
      .returning({ eventId: paymentEvents.eventId });
    return rows.length > 0;
  },

  /**
   * What a paid period of a subscription has granted so far (none: nothing yet), its row locked until the
   * transaction ends: deliveries of one period's payments, in parallel, grant one after the other.
   */
  async lockPeriodGrant(
    tx: Executor,
    period: { subscriptionId: string; periodStart: Date; userId: string },
  ): Promise<{ plan: string; credits: number } | undefined> {
    await tx
      .insert(subscriptionPeriodGrants)
      .values({ ...period, plan: '', credits: 0 })
      .onConflictDoNothing();
    const [row] = await tx
      .select({ plan: subscriptionPeriodGrants.plan, credits: subscriptionPeriodGrants.credits })
      .from(subscriptionPeriodGrants)
      .where(
        and(
          eq(subscriptionPeriodGrants.subscriptionId, period.subscriptionId),
          eq(subscriptionPeriodGrants.periodStart, period.periodStart),
        ),
      )
      .for('update');
    return row && row.credits > 0 ? row : undefined;
  },

  /** Records that the period has now granted this plan's credits (after lockPeriodGrant, same transaction). */
  async savePeriodGrant(tx: Executor, period: { subscriptionId: string; periodStart: Date }, granted: { plan: string; credits: number }) {
    await tx
      .update(subscriptionPeriodGrants)
      .set({ ...granted, updatedAt: new Date() })
      .where(
        and(
          eq(subscriptionPeriodGrants.subscriptionId, period.subscriptionId),
          eq(subscriptionPeriodGrants.periodStart, period.periodStart),
        ),
      );
  },

  async findById(tx: Executor, id: string): Promise<SubscriptionRow | undefined> {
    const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id)).limit(1);
    return row;
  },

  /**
   * Inserts or updates a subscription unless the stored row was written from a newer event (its
   * last_event_at is later than the row's); false when the stored row was kept.
   */
  async upsert(tx: Executor, row: NewSubscription): Promise<boolean> {
    const { id: _id, ...changes } = row;
    const written = await tx
      .insert(subscriptions)
      .values(row)
      .onConflictDoUpdate({
        target: subscriptions.id,
        set: { ...changes, updatedAt: sql`now()` },
        setWhere: sql`${subscriptions.lastEventAt} is null or ${subscriptions.lastEventAt} <= excluded.last_event_at`,
      })
      .returning({ id: subscriptions.id });
    return written.length > 0;
  },

  /** The user's subscriptions, latest change first. */
  async listForUser(tx: Executor, userId: string): Promise<SubscriptionRow[]> {
    return tx.select().from(subscriptions).where(eq(subscriptions.userId, userId)).orderBy(desc(subscriptions.updatedAt));
  },

  async findForCustomer(tx: Executor, provider: string, userId: string, customerId: string): Promise<SubscriptionRow[]> {
    return tx
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.provider, provider), eq(subscriptions.userId, userId), eq(subscriptions.customerId, customerId)))
      .orderBy(desc(subscriptions.updatedAt));
  },
};
