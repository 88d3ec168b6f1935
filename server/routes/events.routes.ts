import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { requireUser } from '../http/require-user.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import type { CreditsService } from '../services/credits.service.ts';
import type { UsersService } from '../services/users.service.ts';
import type { RealtimeEvent } from '@common/events.ts';

/** The per-user server-sent events stream. The browser's EventSource reconnects by itself after a drop. */
export function eventsRoutes(deps: {
  identity: IdentityProvider;
  users: UsersService;
  events: EventBus;
  credits: CreditsService;
  heartbeatMs: number;
}) {
  const app = new Hono<AppEnv>();
  app.get('/', requireUser(deps.identity, deps.users), (c) => {
    const userId = c.var.user.id;
    c.header('Cache-Control', 'no-store');
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      const queue: RealtimeEvent[] = [];
      let wake: (() => void) | undefined;
      const unsubscribe = deps.events.subscribe(userId, (event) => {
        queue.push(event);
        wake?.();
      });
      stream.onAbort(() => {
        unsubscribe();
        wake?.();
      });
      // A fresh (or re-opened) stream starts from the current balance, so nothing missed while away stays stale.
      queue.push({ type: 'credits', credits: await deps.credits.balance(userId) });
      await stream.writeSSE({ event: 'ready', data: '{}', retry: 2000 });
      while (!stream.aborted) {
        while (queue.length) {
          const event = queue.shift()!;
          await stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
        }
        // Sleep until an event arrives or it is time for a heartbeat, whichever comes first.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, deps.heartbeatMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
        if (!queue.length && !stream.aborted) await stream.write(': heartbeat\n\n');
      }
      unsubscribe();
    });
  });
  return app;
}
