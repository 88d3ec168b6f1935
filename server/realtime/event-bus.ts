import { sql } from 'drizzle-orm';
import type { RealtimeEvent } from '@common/events.ts';
import type { Database, Executor } from '../db/index.ts';
import type { Logger } from '../logger.ts';

const CHANNEL = 'likeness_events';

type Listener = (event: RealtimeEvent) => void;

/**
 * Per-user realtime fan-out. Publishing is a NOTIFY issued on the caller's executor, so an event sent
 * inside a transaction is delivered only if it commits, and to every instance listening on the database.
 */
export interface EventBus {
  publish(executor: Executor, userId: string, event: RealtimeEvent): Promise<void>;
  subscribe(userId: string, listener: Listener): () => void;
  /** Number of open local subscriptions (for health and tests). */
  size(): number;
  close(): Promise<void>;
}

export async function createEventBus(database: Database, logger: Logger): Promise<EventBus> {
  const local = new Map<string, Set<Listener>>();
  const unlisten = await database.listen(CHANNEL, (payload) => {
    try {
      const { userId, event } = JSON.parse(payload) as { userId: string; event: RealtimeEvent };
      for (const listener of local.get(userId) ?? []) listener(event);
    } catch (err) {
      logger.warn({ err }, 'dropped a malformed realtime notification');
    }
  });

  return {
    async publish(executor, userId, event) {
      await executor.execute(sql`select pg_notify(${CHANNEL}, ${JSON.stringify({ userId, event })})`);
    },
    subscribe(userId, listener) {
      let set = local.get(userId);
      if (!set) local.set(userId, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) local.delete(userId);
      };
    },
    size() {
      let n = 0;
      for (const set of local.values()) n += set.size;
      return n;
    },
    close: unlisten,
  };
}
