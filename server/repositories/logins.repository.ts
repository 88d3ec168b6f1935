import { and, eq, getTableColumns, gt, ne, sql } from 'drizzle-orm';
import type { Db, Executor } from '../db/index.ts';
import { authAccounts, authSessions, authUsers, authVerifications, users } from '../db/schema.ts';

/** Statements of built-in logins (better-auth's tables) that server/auth/local.ts makes itself. */
export const loginsRepository = {
  /** The address and name of the login whose verification row has this identifier, while it is valid. */
  async verificationOwner(db: Executor, identifier: string): Promise<{ email: string; name: string } | undefined> {
    const [owner] = await db
      .select({ email: authUsers.email, name: authUsers.name })
      .from(authVerifications)
      .innerJoin(authUsers, eq(authUsers.id, authVerifications.value))
      .where(and(eq(authVerifications.identifier, identifier), gt(authVerifications.expiresAt, new Date())))
      .limit(1);
    return owner;
  },

  async insertVerification(tx: Executor, row: typeof authVerifications.$inferInsert): Promise<void> {
    await tx.insert(authVerifications).values(row);
  },

  /** Marks the login's address confirmed. */
  async confirmEmail(db: Executor, loginId: string): Promise<void> {
    await db.update(authUsers).set({ emailVerified: true, updatedAt: new Date() }).where(eq(authUsers.id, loginId));
  },

  /** The login's password account (id and hash); with `lock`, its row is locked for the rest of the transaction. */
  async passwordAccount(db: Executor, loginId: string, opts: { lock: boolean }) {
    const query = db
      .select({ id: authAccounts.id, password: authAccounts.password })
      .from(authAccounts)
      .where(and(eq(authAccounts.userId, loginId), eq(authAccounts.providerId, 'credential')));
    const [account] = opts.lock ? await query.for('update') : await query;
    return account;
  },

  async setPassword(tx: Executor, accountId: string, hash: string): Promise<void> {
    await tx.update(authAccounts).set({ password: hash, updatedAt: new Date() }).where(eq(authAccounts.id, accountId));
  },

  /** Deletes the login's sessions but `exceptSessionId`. */
  async deleteOtherSessions(tx: Executor, loginId: string, exceptSessionId: string): Promise<void> {
    await tx.delete(authSessions).where(and(eq(authSessions.userId, loginId), ne(authSessions.id, exceptSessionId)));
  },

  /** The session of a token, its login and the login's users row, in one prepared query (`execute({ token })`). */
  sessionWithUser(db: Db) {
    return db
      .select({
        sessionId: authSessions.id,
        expiresAt: authSessions.expiresAt,
        login: {
          id: authUsers.id,
          email: authUsers.email,
          name: authUsers.name,
          image: authUsers.image,
          createdAt: authUsers.createdAt,
          emailVerified: authUsers.emailVerified,
        },
        row: getTableColumns(users),
      })
      .from(authSessions)
      .innerJoin(authUsers, eq(authUsers.id, authSessions.userId))
      .leftJoin(users, eq(users.clerkId, authUsers.id))
      .where(eq(authSessions.token, sql.placeholder('token')))
      .limit(1)
      .prepare('likeness_session_with_user');
  },
};
