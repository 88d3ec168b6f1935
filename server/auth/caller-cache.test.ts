import { describe, expect, it } from 'vitest';
import { createCallerCache, type Caller } from './caller-cache.ts';

/** One fixed expiry: the cache leaves expiry to its caller, and two callers built apart compare equal. */
const SESSION_EXPIRY = new Date('2030-01-01T00:00:00Z');

/** The bus's two signals as a test drives them: sessions-ended notices, and the LISTEN connection's state. */
function harness(opts: { ttlMs?: number; maxEntries?: number } = {}) {
  let clock = 1_000;
  let since: number | undefined = 0;
  let tell: (userId: string) => void = () => {};
  const cache = createCallerCache({
    events: { onSessionsEnded: (fn) => void (tell = fn), deliveringSince: () => since },
    now: () => clock,
    ...opts,
  });
  const caller = (userId: string, sessionId = `session-of-${userId}`): Caller => ({
    who: { id: `login-${userId}`, session: { id: sessionId, expiresAt: SESSION_EXPIRY } },
    userId,
  });
  /** A read of the session that found `who`, remembered as identifyWithRow does. */
  const read = (token: string, who: Caller) => cache.remember(token, who, cache.beginRead());
  return {
    cache,
    caller,
    read,
    advance: (ms: number) => void (clock += ms),
    sessionsEnded: (userId: string) => tell(userId),
    listener: { lost: () => void (since = undefined), restored: () => void (since = clock) },
  };
}

describe('the remembered callers of built-in sessions', () => {
  it('recalls a session read before, and nothing for a token never read', () => {
    const { cache, caller, read } = harness();
    read('token-a', caller('ann'));
    expect(cache.recall('token-a')).toEqual(caller('ann'));
    expect(cache.recall('token-b')).toBeUndefined();
  });

  it('forgets every session of a person whose sessions ended, and only theirs', () => {
    const { cache, caller, read, sessionsEnded } = harness();
    read('ann-phone', caller('ann', 'phone'));
    read('ann-laptop', caller('ann', 'laptop'));
    read('bob', caller('bob'));
    sessionsEnded('ann');
    expect(cache.recall('ann-phone')).toBeUndefined();
    expect(cache.recall('ann-laptop')).toBeUndefined();
    expect(cache.recall('bob')).toEqual(caller('bob'));
    expect(cache.size()).toBe(1);
  });

  it('does not keep a read that overlapped an ending: it may have found a session already gone', () => {
    const { cache, caller, sessionsEnded } = harness();
    const read = cache.beginRead();
    sessionsEnded('someone else');
    cache.remember('ann', caller('ann'), read);
    expect(cache.recall('ann')).toBeUndefined();
    cache.remember('ann', caller('ann'), cache.beginRead());
    expect(cache.recall('ann')).toEqual(caller('ann'));
  });

  it('uses nothing while notices may be lost, nor anything read before the listener came back', () => {
    const { cache, caller, read, advance, listener } = harness();
    read('ann', caller('ann'));
    listener.lost();
    expect(cache.recall('ann')).toBeUndefined();
    read('bob', caller('bob'));
    expect(cache.recall('bob')).toBeUndefined();

    advance(10);
    listener.restored();
    expect(cache.recall('ann')).toBeUndefined();
    advance(1);
    read('ann', caller('ann'));
    expect(cache.recall('ann')).toEqual(caller('ann'));
  });

  it('reads a session again once its entry is older than the bound', () => {
    const { cache, caller, read, advance } = harness({ ttlMs: 60_000 });
    read('ann', caller('ann'));
    advance(60_000);
    expect(cache.recall('ann')).toEqual(caller('ann'));
    advance(1);
    expect(cache.recall('ann')).toBeUndefined();
    expect(cache.size()).toBe(0);
  });

  it('holds at most maxEntries, forgetting the oldest read first', () => {
    const { cache, caller, read, sessionsEnded } = harness({ maxEntries: 2 });
    read('ann', caller('ann'));
    read('bob', caller('bob'));
    read('cy', caller('cy'));
    expect(cache.size()).toBe(2);
    expect(cache.recall('ann')).toBeUndefined();
    expect(cache.recall('cy')).toEqual(caller('cy'));
    // An evicted entry leaves nothing behind that a later ending would trip over.
    sessionsEnded('ann');
    expect(cache.recall('bob')).toEqual(caller('bob'));
  });

  it('forgets one token on request (a session better-auth must answer for)', () => {
    const { cache, caller, read } = harness();
    read('ann', caller('ann'));
    cache.forget('ann');
    expect(cache.recall('ann')).toBeUndefined();
    expect(cache.size()).toBe(0);
  });
});
