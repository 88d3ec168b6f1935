import { and, eq, inArray, ne } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { authSessions, users } from '../db/schema.ts';

/** Statements of built-in sign-in sessions (server/services/sessions.service.ts decides when they end). */
export const sessionsRepository = {
  /** Deletes the sessions of the person (users.id), but `exceptSessionId`; returns how many there were. */
  async deleteSessions(executor: Executor, userId: string, exceptSessionId?: string): Promise<number> {
    const account = executor.select({ id: users.clerkId }).from(users).where(eq(users.id, userId));
    const deleted = await executor
      .delete(authSessions)
      .where(and(inArray(authSessions.userId, account), exceptSessionId ? ne(authSessions.id, exceptSessionId) : undefined))
      .returning({ id: authSessions.id });
    return deleted.length;
  },

  /** The users.id of the identity provider's user id (users.clerk_id), if the person has a row. */
  async userIdOfAccount(executor: Executor, providerUserId: string): Promise<string | undefined> {
    const [row] = await executor.select({ id: users.id }).from(users).where(eq(users.clerkId, providerUserId));
    return row?.id;
  },
};
