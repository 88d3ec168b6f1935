import type { EventBus } from '../realtime/event-bus.ts';
import type { Identity } from './identity.ts';

/** Who a built-in session belongs to: its identity (with the session's id and expiry) and users.id. */
export interface Caller {
  who: Identity;
  userId: string;
}

/** A read of the session about to begin: what `remember` needs to know whether sessions ended meanwhile. */
export interface CallerRead {
  readonly startedAt: number;
  readonly endingsSeen: number;
}

export interface CallerCacheOptions {
  events: Pick<EventBus, 'onSessionsEnded' | 'deliveringSince'>;
  /** How long an entry is used at most: the bound for a session ended without the sessions-ended notice. */
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

/** Clerk's session tokens are good for 60 s after a sign-out; an entry here lives no longer. */
const CALLER_CACHE_TTL_MS = 60_000;

/**
 * The built-in sessions' callers, remembered by token so that a route needing only who asks (its users.id)
 * does not read the session again for every request (docs/decisions/014-generate-path.md, ninth pass).
 *
 * An entry goes when the person's sessions end: every feature that ends sessions sends the sessions-ended
 * notice (server/services/sessions.service.ts), which this instance hears at once when it sends it and every
 * other instance through Postgres NOTIFY. A read that overlapped an ending is not remembered, and no entry is
 * used unless every notice since its read has been delivered here (the LISTEN connection has been up since).
 * Expiry and the daily extension are the caller's to check against `who.session`; `ttlMs` bounds the rest.
 */
export function createCallerCache(opts: CallerCacheOptions) {
  const { events, ttlMs = CALLER_CACHE_TTL_MS, maxEntries = 10_000, now = Date.now } = opts;
  const byToken = new Map<string, { caller: Caller; readAt: number }>();
  const tokensOf = new Map<string, Set<string>>();
  let endings = 0;

  function forget(token: string): void {
    const entry = byToken.get(token);
    if (!entry) return;
    byToken.delete(token);
    const { userId } = entry.caller;
    const tokens = tokensOf.get(userId);
    tokens?.delete(token);
    if (tokens?.size === 0) tokensOf.delete(userId);
  }

  events.onSessionsEnded((userId) => {
    endings += 1;
    for (const token of tokensOf.get(userId) ?? []) byToken.delete(token);
    tokensOf.delete(userId);
  });

  return {
    /** Call before reading the session from the database; hand the result to `remember`. */
    beginRead: (): CallerRead => ({ startedAt: now(), endingsSeen: endings }),

    /** Keeps what `read` found, unless sessions ended (anywhere) or notices may have been lost since it began. */
    remember(token: string, caller: Caller, read: CallerRead): void {
      const since = events.deliveringSince();
      if (read.endingsSeen !== endings || since === undefined || since >= read.startedAt) return;
      forget(token);
      if (byToken.size >= maxEntries) forget(byToken.keys().next().value!);
      byToken.set(token, { caller, readAt: read.startedAt });
      let tokens = tokensOf.get(caller.userId);
      if (!tokens) tokensOf.set(caller.userId, (tokens = new Set()));
      tokens.add(token);
    },

    /** The caller remembered for `token`, if every notice since its read has arrived and it is not too old. */
    recall(token: string): Caller | undefined {
      const entry = byToken.get(token);
      if (!entry) return undefined;
      const since = events.deliveringSince();
      if (since === undefined || since >= entry.readAt || now() - entry.readAt > ttlMs) {
        forget(token);
        return undefined;
      }
      return entry.caller;
    },

    forget,

    /** Entries held (tests and metrics). */
    size: () => byToken.size,
  };
}
