import type { SQL } from 'drizzle-orm';
import type { RealtimeEvent } from '@common/events.ts';
import type { Database, Executor } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import { notifyRepository } from '../repositories/notify.repository.ts';

const CHANNEL = 'likeness_events';

/**
 * Told to a user's streams on every instance and never sent to a browser: one or more of the user's sessions
 * (or the account itself) ended. Each stream checks its own credential again and ends if it is gone.
 */
export type SessionsEnded = { type: 'sessions-ended' };
export type BusEvent = RealtimeEvent | SessionsEnded;

/** One open stream's side of the bus. */
export interface Subscriber {
  /** The user's events, `resync` after the instance may have missed some, and `sessions-ended`. */
  onEvent(event: BusEvent): void;
  /** The instance is shutting down: end the stream so the browser reconnects to another one. */
  onDisconnect(): void;
}

/**
 * Per-user realtime fan-out. Publishing is a NOTIFY issued on the caller's executor, so an event sent
 * inside a transaction is delivered only if it commits, and to every instance listening on the database.
 * When the instance's LISTEN connection comes back after a drop, every local subscriber gets `resync`: the
 * notifications sent meanwhile are lost, so the stream reads the current state again.
 */
export interface EventBus {
  publish(executor: Executor, userId: string, event: BusEvent): Promise<void>;
  /** The NOTIFY of `publish` as an SQL expression, for a statement that publishes as part of its own work. */
  notification(userId: string, event: BusEvent): SQL;
  /** The NOTIFY's payload, for a statement that sends it to `channel` as a parameter. */
  payload(userId: string, event: BusEvent): string;
  /** The NOTIFY channel, for a database function that publishes as `notification` does. */
  readonly channel: string;
  subscribe(userId: string, subscriber: Subscriber): () => void;
  /**
   * Calls `fn` with the user's id whenever sessions of theirs end: at once when this instance publishes the
   * notice (before the NOTIFY leaves, and again when it comes back), and when another instance's arrives.
   */
  onSessionsEnded(fn: (userId: string) => void): void;
  /**
   * Since when (ms since the epoch) every notification sent has been delivered here: the LISTEN connection's
   * last (re)connection; undefined while it is down, when notifications are being lost.
   */
  deliveringSince(): number | undefined;
  /** Number of open local subscriptions (for metrics and tests). */
  size(): number;
  /** Ends every local subscription, and any opened from now on (shutdown). */
  disconnectAll(): void;
  close(): Promise<void>;
}

export async function createEventBus(database: Database, logger: Logger): Promise<EventBus> {
  const local = new Map<string, Set<Subscriber>>();
  let disconnecting = false;
  const sessionsEndedListeners: ((userId: string) => void)[] = [];
  const tellSessionsEnded = (userId: string) => {
    for (const fn of sessionsEndedListeners) fn(userId);
  };
  const everyone = () => [...local.values()].flatMap((set) => [...set]);
  const unlisten = await database.listen(CHANNEL, (payload) => {
    try {
      const { userId, event } = JSON.parse(payload) as { userId: string; event: BusEvent };
      if (event.type === 'sessions-ended') tellSessionsEnded(userId);
      for (const subscriber of local.get(userId) ?? []) subscriber.onEvent(event);
    } catch (err) {
      logger.warn({ err }, 'dropped a malformed realtime notification');
    }
  });
  database.onListenerRestored(() => {
    for (const subscriber of everyone()) subscriber.onEvent({ type: 'resync' });
  });

  const payload = (userId: string, event: BusEvent) => JSON.stringify({ userId, event });
  const notification = (userId: string, event: BusEvent): SQL => notifyRepository.notification(CHANNEL, payload(userId, event));
  return {
    async publish(executor, userId, event) {
      if (event.type === 'sessions-ended') tellSessionsEnded(userId);
      await notifyRepository.send(executor, notification(userId, event));
    },
    notification,
    payload,
    channel: CHANNEL,
    subscribe(userId, subscriber) {
      if (disconnecting) queueMicrotask(() => subscriber.onDisconnect());
      let set = local.get(userId);
      if (!set) local.set(userId, (set = new Set()));
      set.add(subscriber);
      return () => {
        set.delete(subscriber);
        if (set.size === 0) local.delete(userId);
      };
    },
    onSessionsEnded(fn) {
      sessionsEndedListeners.push(fn);
    },
    deliveringSince() {
      const status = database.listenerStatus();
      return status.up ? status.since.getTime() : undefined;
    },
    size() {
      let n = 0;
      for (const set of local.values()) n += set.size;
      return n;
    },
    disconnectAll() {
      disconnecting = true;
      for (const subscriber of everyone()) subscriber.onDisconnect();
    },
    close: unlisten,
  };
}
