import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { authUsers, mailOutbox, users } from '../db/schema.ts';
import { claimDue, type LeaseClaim } from './job-leases.ts';

export type MailRow = typeof mailOutbox.$inferSelect;
export type NewMailRow = typeof mailOutbox.$inferInsert;

/** Queries of the mail outbox (docs/decisions/015-mail-outbox.md). */
export const mailOutboxRepository = {
  /** Inserts a message; one with the same dedupe key already there wins (the event is mailed once). */
  async insert(tx: Executor, row: NewMailRow): Promise<boolean> {
    const inserted = await tx.insert(mailOutbox).values(row).onConflictDoNothing().returning({ id: mailOutbox.id });
    return inserted.length > 0;
  },

  /** Whether the person wants notifications (and their account is live). */
  async wantsNotifications(tx: Executor, userId: string): Promise<boolean> {
    const [row] = await tx.select({ on: users.emailNotifications, erasedAt: users.erasedAt }).from(users).where(eq(users.id, userId));
    return Boolean(row?.on && !row.erasedAt);
  },

  /** The users row and, in built-in account modes, its sign-in address (better-auth's user). */
  async recipient(tx: Executor, userId: string) {
    const [row] = await tx
      .select({ clerkId: users.clerkId, wants: users.emailNotifications, erasedAt: users.erasedAt, signInEmail: authUsers.email })
      .from(users)
      .leftJoin(authUsers, eq(authUsers.id, users.clerkId))
      .where(eq(users.id, userId));
    return row;
  },

  async setNotifications(tx: Executor, userId: string, on: boolean): Promise<void> {
    await tx.update(users).set({ emailNotifications: on }).where(eq(users.id, userId));
  },

  /** The address and switch an unsubscribe page speaks of; undefined when the account is gone or erased. */
  async getRecipient(tx: Executor, userId: string): Promise<{ email: string | null; on: boolean } | undefined> {
    const [row] = await tx
      .select({ email: users.email, on: users.emailNotifications })
      .from(users)
      .where(and(eq(users.id, userId), isNull(users.erasedAt)));
    return row;
  },

  async getNotifications(tx: Executor, userId: string): Promise<boolean> {
    const [row] = await tx.select({ on: users.emailNotifications }).from(users).where(eq(users.id, userId));
    return row?.on ?? false;
  },

  /** Claims up to `limit` due PENDING messages, leased to the caller (each is sent by one instance). */
  claimDue(tx: Executor, lease: LeaseClaim, limit: number): Promise<MailRow[]> {
    return claimDue(tx, 'mail', { where: eq(mailOutbox.status, 'PENDING'), lease, limit });
  },

  /** Ends a row this instance holds (its lease is dropped with it). SENT rows forget their payload: links in it. */
  async end(tx: Executor, id: string, owner: string, end: { status: 'SENT' | 'FAILED' | 'SKIPPED'; error?: string }): Promise<boolean> {
    const rows = await tx
      .update(mailOutbox)
      .set({
        status: end.status,
        lastError: end.error ?? null,
        sentAt: end.status === 'SENT' ? sql`now()` : null,
        payload: {},
        leaseOwner: null,
        leaseExpiresAt: null,
      })
      .where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, 'PENDING'), eq(mailOutbox.leaseOwner, owner)))
      .returning({ id: mailOutbox.id });
    return rows.length > 0;
  },

  /** Tries again in `delayMs`; `attempted` counts a real attempt (a message waiting for its address is not one). */
  async retryLater(tx: Executor, id: string, owner: string, opts: { delayMs: number; error: string; attempted: boolean }): Promise<void> {
    await tx
      .update(mailOutbox)
      .set({
        attempts: opts.attempted ? sql`${mailOutbox.attempts} + 1` : mailOutbox.attempts,
        lastError: opts.error.slice(0, 500),
        nextRunAt: sql`now() + make_interval(secs => ${opts.delayMs / 1000})`,
        leaseOwner: null,
        leaseExpiresAt: null,
      })
      .where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, 'PENDING'), eq(mailOutbox.leaseOwner, owner)));
  },

  async countPending(tx: Executor): Promise<number> {
    const [row] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(mailOutbox)
      .where(eq(mailOutbox.status, 'PENDING'));
    return row?.n ?? 0;
  },
};
