import type { Db, Executor } from '../db/index.ts';
import { sessionsRepository } from '../repositories/sessions.repository.ts';
import type { EventBus } from '../realtime/event-bus.ts';

export type SessionsService = ReturnType<typeof createSessionsService>;

/**
 * Where a person's sessions end. Every feature that ends sessions (sign-out, 'Change password', password reset,
 * account deletion, an operator's erasure) comes through here, so the person's event streams end with them:
 * a `sessions-ended` notification goes over the realtime bus (Postgres NOTIFY, every instance), and each of
 * the person's open streams checks its own credential again and closes if it is no longer valid.
 */
export function createSessionsService(deps: { db: Db; events: EventBus }) {
  const { db, events } = deps;

  /** Tells the person's streams, on every instance, that sessions of theirs ended (on `executor`: sent on commit). */
  async function sessionsEnded(userId: string, executor: Executor = db): Promise<void> {
    await events.publish(executor, userId, { type: 'sessions-ended' });
  }

  return {
    /**
     * Signs the person (users.id) out everywhere, or everywhere but `exceptSessionId` (the session that asked,
     * after a password change), and ends the event streams of those sessions within a moment. Built-in
     * accounts: their sessions are deleted. Clerk mode has no sessions here: streams still re-check, so an
     * erased account's streams close. Pass the transaction as `executor` to make it part of a larger change
     * (the notification is then sent only if it commits). Returns how many sessions were deleted.
     */
    async endSessions(userId: string, opts: { exceptSessionId?: string; executor?: Executor } = {}): Promise<number> {
      const executor = opts.executor ?? db;
      const deleted = await sessionsRepository.deleteSessions(executor, userId, opts.exceptSessionId);
      await sessionsEnded(userId, executor);
      return deleted;
    },

    sessionsEnded,

    /** `sessionsEnded` by the identity provider's user id (users.clerk_id); nothing when the person has no row. */
    async sessionsEndedForAccount(providerUserId: string, executor: Executor = db): Promise<void> {
      const userId = await sessionsRepository.userIdOfAccount(executor, providerUserId);
      if (userId) await sessionsEnded(userId, executor);
    },
  };
}
