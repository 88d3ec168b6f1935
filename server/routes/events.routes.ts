import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { unavailable } from '../domain/errors.ts';
import { requireUser } from '../http/require-user.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { createStreamRegistry } from '../realtime/stream-limits.ts';
import type { CreditsService } from '../services/credits.service.ts';
import type { UsersService } from '../services/users.service.ts';
import type { RealtimeEvent } from '@common/events.ts';

/**
 * The per-user server-sent events stream. The browser's EventSource reconnects by itself after a drop, and
 * when the instance shuts down and ends the stream (to another instance, behind a load balancer).
 */
export function eventsRoutes(deps: {
  identity: IdentityProvider;
  users: UsersService;
  events: EventBus;
  credits: CreditsService;
  heartbeatMs: number;
  streamLimits?: { perUser: number; perInstance: number };
}) {
  const app = new Hono<AppEnv>();
  const streams = createStreamRegistry(deps.streamLimits);
  app.get('/', requireUser(deps.identity, deps.users), (c) => {
    const userId = c.var.user.id;
    let evicted = false;
    let end = () => {};
    const release = streams.open(userId, { evict: () => ((evicted = true), end()) });
    if (!release) {
      c.header('Retry-After', '10');
      throw unavailable('Too many live connections on this server. Updates will resume shortly.', 'too_many_streams');
    }
    c.header('Cache-Control', 'no-store');
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      const queue: RealtimeEvent[] = [];
      let wake: (() => void) | undefined;
      end = () => {
        // The browser would reconnect in 2 s and evict a newer tab in turn: ask it to wait a minute.
        void stream
          .writeSSE({ event: 'evicted', data: '{}', retry: 60_000 })
          .then(() => stream.close())
          .finally(() => wake?.());
      };
      if (evicted) end();
      stream.onAbort(release);
      let disconnected = false;
      const unsubscribe = deps.events.subscribe(userId, {
        onEvent(event) {
          queue.push(event);
          wake?.();
        },
        onDisconnect() {
          disconnected = true;
          wake?.();
        },
      });
      stream.onAbort(() => {
        unsubscribe();
        wake?.();
      });
      const balance = async (): Promise<RealtimeEvent> => ({ type: 'credits', credits: await deps.credits.balance(userId) });
      // A fresh (or re-opened) stream starts from the current balance, so nothing missed while away stays stale.
      // It goes first: an event that arrived during the read is newer than or equal to what the read saw.
      queue.unshift(await balance());
      await stream.writeSSE({ event: 'ready', data: '{}', retry: 2000 });
      while (!stream.aborted && !stream.closed && !disconnected) {
        while (queue.length) {
          const event = queue.shift()!;
          await stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
          // Events were lost while the instance's LISTEN connection was down: the balance is sent again, and
          // the browser refetches the rest.
          if (event.type === 'resync') queue.unshift(await balance());
        }
        if (disconnected) break;
        // Sleep until an event arrives or it is time for a heartbeat, whichever comes first.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, deps.heartbeatMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
        if (!queue.length && !stream.aborted && !stream.closed && !disconnected) await stream.write(': heartbeat\n\n');
      }
      unsubscribe();
      release();
    });
  });
  return app;
}
