import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import type { Logger } from '../logger.ts';
import { unavailable } from '../domain/errors.ts';
import { requireUser, resolveUser } from '../http/require-user.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { createStreamRegistry } from '../realtime/stream-limits.ts';
import type { CreditsService } from '../services/credits.service.ts';
import type { UsersService } from '../services/users.service.ts';
import { SIGNED_OUT_EVENT, type RealtimeEvent } from '@common/events.ts';

/** setTimeout's longest delay; a credential valid for longer is checked again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The per-user server-sent events stream. The browser's EventSource reconnects by itself after a drop, and
 * when the instance shuts down and ends the stream (to another instance, behind a load balancer).
 *
 * A stream lives no longer than the credential that opened it (a built-in session, or a Clerk session token):
 * it ends with a `signed-out` event when that credential expires, and when the person's sessions end
 * (sessions-ended on the bus: sign-out, password change or reset, account deletion, erasure) and its own
 * credential no longer passes the check every request passes. After a `resync` (notifications may have been
 * missed) it checks too.
 */
export function eventsRoutes(deps: {
  identity: IdentityProvider;
  users: UsersService;
  events: EventBus;
  credits: CreditsService;
  logger: Logger;
  heartbeatMs: number;
  streamLimits?: { perUser: number; perInstance: number };
}) {
  const app = new Hono<AppEnv>();
  const streams = createStreamRegistry(deps.streamLimits);
  app.get('/', requireUser(deps.identity, deps.users), (c) => {
    const userId = c.var.user.id;
    const credential = new Headers(c.req.raw.headers);
    let evicted = false;
    let signedOut = false;
    let end = () => {};
    let endSignedOut = () => {};
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
      // The credential ended: say so and close. A browser holding no valid session does not reconnect.
      endSignedOut = () => {
        if (signedOut) return;
        signedOut = true;
        void stream
          .writeSSE({ event: SIGNED_OUT_EVENT, data: '{}', retry: 60_000 })
          .catch(() => undefined)
          .then(() => stream.close())
          .finally(() => wake?.());
      };
      let expiry: NodeJS.Timeout | undefined;
      const watchExpiry = (expiresAt: Date | undefined) => {
        clearTimeout(expiry);
        if (!expiresAt) return;
        expiry = setTimeout(() => void checkCredential(), Math.max(0, Math.min(MAX_TIMER_MS, expiresAt.getTime() - Date.now())));
      };
      /** Whether the credential that opened the stream still signs this person in, as any request would be checked. */
      let checking: Promise<void> | undefined;
      const checkCredential = () =>
        (checking ??= (async () => {
          try {
            const caller = await resolveUser(deps.identity, deps.users, credential);
            const expired = caller?.who.session && caller.who.session.expiresAt.getTime() <= Date.now();
            if (!caller || caller.user.id !== userId || expired) endSignedOut();
            else watchExpiry(caller.who.session?.expiresAt);
          } catch {
            // An erased account (401), or the check could not be made: the stream does not outlive doubt. A
            // browser still signed in reconnects and is checked afresh.
            endSignedOut();
          }
        })().finally(() => (checking = undefined)));
      watchExpiry(c.var.identity.session?.expiresAt);
      stream.onAbort(() => clearTimeout(expiry));
      stream.onAbort(release);
      let disconnected = false;
      const unsubscribe = deps.events.subscribe(userId, {
        onEvent(event) {
          if (event.type === 'sessions-ended') return void checkCredential();
          if (event.type === 'resync') void checkCredential();
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
      // Every way out (the end of the loop, or a throw such as a failed balance read, after which the stream closes
      // without onAbort being called) gives the slot back and leaves the bus.
      try {
        // Sessions that ended between the check on the way in and this subscription went unheard: check once more.
        void checkCredential();
        const balance = async (): Promise<RealtimeEvent> => ({ type: 'credits', credits: await deps.credits.balance(userId) });
        // A fresh (or re-opened) stream starts from the current balance, so nothing missed while away stays stale.
        // It goes first: an event that arrived during the read is newer than or equal to what the read saw.
        queue.unshift(await balance());
        await stream.writeSSE({ event: 'ready', data: '{}', retry: 2000 });
        while (!stream.aborted && !stream.closed && !disconnected && !signedOut) {
          while (queue.length) {
            const event = queue.shift()!;
            await stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
            // Events were lost while the instance's LISTEN connection was down: the balance is sent again, and
            // the browser refetches the rest.
            if (event.type === 'resync') queue.unshift(await balance());
          }
          if (disconnected || signedOut) break;
          // Sleep until an event arrives or it is time for a heartbeat, whichever comes first.
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, deps.heartbeatMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = undefined;
          if (!queue.length && !stream.aborted && !stream.closed && !disconnected && !signedOut) await stream.write(': heartbeat\n\n');
        }
      } catch (err) {
        // The stream ends and the browser's EventSource opens a new one; the detail is for the log, not the page.
        deps.logger.warn({ err, userId }, 'event stream ended by an error');
      } finally {
        clearTimeout(expiry);
        unsubscribe();
        release();
      }
      await checking;
    });
  });
  return app;
}
