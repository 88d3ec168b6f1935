import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';

/** Postgres NOTIFY, the realtime bus's transport (server/realtime/event-bus.ts). */
export const notifyRepository = {
  /** `pg_notify(channel, payload)` as an SQL expression, for a statement that notifies as part of its own work. */
  notification: (channel: string, payload: string): SQL => sql`pg_notify(${channel}, ${payload})`,

  /** Sends `notification` on `executor` (in a transaction: when it commits). */
  async send(executor: Executor, notification: SQL): Promise<void> {
    await executor.execute(sql`select ${notification}`);
  },
};
