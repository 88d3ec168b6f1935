import { REALTIME_EVENT_TYPES, SIGNED_OUT_EVENT, type RealtimeEvent } from '@common/events';

/** 'signed-out': the server ended the stream with its session, and the browser holds no valid session any more. */
export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting' | 'signed-out';

/** The server's event stream for the signed-in user (local mode only; LivePort is what features see). */
export interface EventsPort {
  /** Subscribes to the user's realtime events; one connection is shared by every subscriber. */
  subscribe(onEvent: (event: RealtimeEvent) => void, onStatus?: (status: ConnectionStatus) => void): () => void;
}

/**
 * One EventSource to /api/events shared by every subscriber, opened with the first and closed with the last.
 * The browser reconnects by itself after a network drop; when the server refuses the stream (e.g. a restart
 * mid-deploy) we reopen it with a growing delay.
 *
 * The stream ends with `signed-out` when its session ends (signed out in another tab, the password changed
 * elsewhere, the account erased). It is reopened only if `stillSignedIn` says the browser still holds a
 * valid session (another tab may have signed in again); otherwise subscribers are told 'signed-out' and
 * nothing reconnects. A refused reconnection (401) is checked the same way.
 */
export function createLocalEvents(url = '/api/events', stillSignedIn: () => Promise<boolean> = async () => true): EventsPort {
  const listeners = new Set<(event: RealtimeEvent) => void>();
  const statusListeners = new Set<(status: ConnectionStatus) => void>();
  let source: EventSource | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let everOpened = false;
  let signedOut = false;

  const emitStatus = (s: ConnectionStatus) => statusListeners.forEach((fn) => fn(s));

  function open() {
    source = new EventSource(url, { withCredentials: true });
    emitStatus(everOpened ? 'reconnecting' : 'connecting');
    source.addEventListener('ready', () => {
      failures = 0;
      everOpened = true;
      emitStatus('open');
    });
    for (const type of REALTIME_EVENT_TYPES) {
      source.addEventListener(type, (msg) => {
        try {
          const event = JSON.parse((msg as MessageEvent<string>).data) as RealtimeEvent;
          listeners.forEach((fn) => fn(event));
        } catch (err) {
          console.warn('Ignored a malformed realtime event', err);
        }
      });
    }
    source.addEventListener(SIGNED_OUT_EVENT, () => {
      source?.close();
      source = null;
      void reopenIfSignedIn(0);
    });
    source.onerror = () => {
      if (source?.readyState === EventSource.CLOSED) {
        source = null;
        void reopenIfSignedIn(Math.min(30_000, 1000 * 2 ** failures++));
      } else {
        emitStatus('reconnecting');
      }
    };
  }

  /** Reopens after `delay` only with a valid session; a check that cannot be made is tried again later. */
  async function reopenIfSignedIn(delay: number) {
    emitStatus('reconnecting');
    const valid = await stillSignedIn().catch(() => true);
    if (!valid) {
      signedOut = true;
      emitStatus('signed-out');
      return;
    }
    if (!listeners.size || source || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      if (listeners.size) open();
    }, delay);
  }

  function close() {
    clearTimeout(retryTimer);
    retryTimer = undefined;
    source?.close();
    source = null;
    everOpened = false;
  }

  return {
    subscribe(onEvent, onStatus) {
      listeners.add(onEvent);
      if (onStatus) statusListeners.add(onStatus);
      if (signedOut) queueMicrotask(() => onStatus?.('signed-out'));
      else if (!source && !retryTimer) open();
      return () => {
        listeners.delete(onEvent);
        if (onStatus) statusListeners.delete(onStatus);
        if (listeners.size === 0) close();
      };
    },
  };
}
