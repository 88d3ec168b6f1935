import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { isUuid } from '@common/ids.ts';
import { authUsers, authVerifications, users } from '../db/schema.ts';

export type UserRow = typeof users.$inferSelect;

/** Which kind of account a users row is: a built-in login (auth_users) or a Clerk user. */
export type AccountKind = 'built-in' | 'clerk';

/** A live account as an operator needs to tell it apart from another. */
export interface AccountSummary {
  id: string;
  clerkId: string;
  kind: AccountKind;
  /** The address the person was verified at (built-in: the sign-in address); null while unknown. */
  verifiedEmail: string | null;
  createdAt: Date;
}

/** How an operator names an account (`admin users erase`, `admin credits`). */
export type AccountSelector = { email: string } | { id: string } | { clerkId: string };

/** The account's verified address: a built-in login's sign-in address, else the Clerk-verified one. */
const verifiedAddress = sql<string | null>`coalesce(${authUsers.email}, ${users.verifiedEmail})`;
const kind = sql<AccountKind>`case when ${authUsers.id} is null then 'clerk' else 'built-in' end`;

/**
 * Queries about whom a users row belongs to. `users.email` is never read here: in Clerk mode the hosted SPA
 * writes it (product §7's user sync), so it is a display copy that anyone could set to anyone's address.
 */
export const usersRepository = {
  /**
   * User sync's one statement: the users row by the provider's id, created with 0 credits or refreshed with the
   * fields given; undefined when the account was erased (its row is never revived).
   */
  async sync(
    db: Executor,
    identity: { clerkId: string; email?: string | null; verifiedEmail?: string | null; fullName?: string | null },
  ): Promise<UserRow | undefined> {
    const [row] = await db
      .insert(users)
      .values({
        clerkId: identity.clerkId,
        email: identity.email ?? null,
        verifiedEmail: identity.verifiedEmail ?? null,
        fullName: identity.fullName ?? null,
        credits: 0,
      })
      .onConflictDoUpdate({
        target: users.clerkId,
        set: {
          ...(identity.email !== undefined && { email: identity.email }),
          ...(identity.verifiedEmail !== undefined && { verifiedEmail: identity.verifiedEmail }),
          ...(identity.fullName !== undefined && { fullName: identity.fullName }),
          updatedAt: sql`now()`,
        },
        setWhere: isNull(users.erasedAt),
      })
      .returning();
    return row;
  },

  /** One users row by a column's value (its id, provider id or display email). */
  async findBy(db: Executor, by: { id: string } | { clerkId: string } | { email: string }): Promise<UserRow | undefined> {
    const where = 'id' in by ? eq(users.id, by.id) : 'clerkId' in by ? eq(users.clerkId, by.clerkId) : eq(users.email, by.email);
    const [row] = await db.select().from(users).where(where).limit(1);
    return row;
  },

  /** Takes the users row's lock, the one every paid action takes, for the rest of the transaction. */
  async lockRow(tx: Executor, userId: string): Promise<void> {
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
  },

  /**
   * Every reset link of a built-in login stops working (its password was just set, or the account is erased).
   * A reset token's row is the only verification row stored with the login's id as its value (verification
   * mails carry a signed token, stored nowhere), and it has no foreign key to cascade from.
   */
  async forgetResetLinks(db: Executor, loginId: string): Promise<void> {
    await db.delete(authVerifications).where(eq(authVerifications.value, loginId));
  },

  /**
   * The address to write to about this account (mail, an operator's reply), or null when there is none we
   * trust: built-in accounts answer their sign-in address; Clerk accounts `verified_email`, null until the
   * server has learned it from Clerk (a token claim, the Backend API or a user.updated webhook). Null for an
   * erased account. Mail to a null address waits; it never falls back to users.email.
   */
  async verifiedEmailOf(db: Executor, userId: string): Promise<string | null> {
    const [row] = await db
      .select({ address: verifiedAddress })
      .from(users)
      .leftJoin(authUsers, eq(authUsers.id, users.clerkId))
      .where(and(eq(users.id, userId), isNull(users.erasedAt)))
      .limit(1);
    return row?.address ?? null;
  },

  /**
   * Accounts whose verified address (built-in: sign-in address) is `email`, any case; oldest first. An erasure
   * cut short (erased_at set, the address not yet cleared) is found too, so it can be finished.
   */
  accountsByVerifiedEmail(db: Executor, email: string): Promise<AccountSummary[]> {
    const wanted = sql`lower(${email.trim()})`;
    return db
      .select({ id: users.id, clerkId: users.clerkId, kind, verifiedEmail: verifiedAddress, createdAt: users.createdAt })
      .from(users)
      .leftJoin(authUsers, eq(authUsers.id, users.clerkId))
      .where(sql`(lower(${users.verifiedEmail}) = ${wanted} or lower(${authUsers.email}) = ${wanted})`)
      .orderBy(users.createdAt, users.id);
  },

  /**
   * The accounts an operator's selector names: by address, every account verified at it (several: the operator
   * must choose by id); by id, the one or none.
   */
  async accountsSelected(db: Executor, selector: AccountSelector): Promise<AccountSummary[]> {
    if ('email' in selector) return this.accountsByVerifiedEmail(db, selector.email);
    if ('id' in selector && !isUuid(selector.id)) return [];
    const account = await this.accountBy(db, selector);
    return account ? [account] : [];
  },

  /** The account of a users.id or of a provider id (Clerk's user id, or the built-in login's id), erased or not. */
  async accountBy(db: Executor, by: { id: string } | { clerkId: string }): Promise<(AccountSummary & { erased: boolean }) | undefined> {
    const [row] = await db
      .select({
        id: users.id,
        clerkId: users.clerkId,
        kind,
        verifiedEmail: verifiedAddress,
        createdAt: users.createdAt,
        erasedAt: users.erasedAt,
      })
      .from(users)
      .leftJoin(authUsers, eq(authUsers.id, users.clerkId))
      .where('id' in by ? eq(users.id, by.id) : eq(users.clerkId, by.clerkId))
      .limit(1);
    if (!row) return undefined;
    const { erasedAt, ...account } = row;
    return { ...account, erased: erasedAt !== null };
  },

  /** Records the address Clerk verified (null: none); an erased account keeps none. */
  async setVerifiedEmail(db: Executor, userId: string, verifiedEmail: string | null) {
    const [row] = await db
      .update(users)
      .set({ verifiedEmail })
      .where(and(eq(users.id, userId), isNull(users.erasedAt)))
      .returning();
    return row;
  },
};
