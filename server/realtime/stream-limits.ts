/**
 * Bounds on open event streams. Each costs a socket and ~100 KB, so one account opening thousands (measured:
 * 2,000 streams, +214 MB, /api/me at 3.6 s) must not starve everyone else.
 *
 * - per user: 8, more than the tabs a person keeps open (each tab shares one stream; HTTP/1.1 browsers
 *   allow only 6 connections per host anyway). A ninth closes that user's oldest, so a fresh tab always
 *   works and a forgotten one gives way.
 * - per instance: 2,000, about 200 MB at the measured cost; past it new streams are refused (503, the
 *   SPA retries with a growing delay) and the load balancer's other instances take them.
 */
export const STREAM_LIMITS = { perUser: 8, perInstance: 2_000 } as const;

export interface StreamHandle {
  /** Ends the stream (the user opened too many). */
  evict(): void;
}

export function createStreamRegistry(limits: { perUser: number; perInstance: number } = STREAM_LIMITS) {
  const byUser = new Map<string, StreamHandle[]>();
  let total = 0;
  return {
    /** Registers a stream; returns its release function, or null when the instance is full. */
    open(userId: string, handle: StreamHandle): (() => void) | null {
      const mine = byUser.get(userId) ?? [];
      if (mine.length >= limits.perUser) mine.shift()?.evict();
      else if (total >= limits.perInstance) return null;
      else total++;
      mine.push(handle);
      byUser.set(userId, mine);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const list = byUser.get(userId) ?? [];
        const at = list.indexOf(handle);
        // An evicted stream already left the list; its slot went to the stream that replaced it.
        if (at >= 0) {
          list.splice(at, 1);
          total--;
        }
        if (list.length === 0) byUser.delete(userId);
      };
    },
  };
}
