import { REALTIME_EVENT_TYPES, type RealtimeEvent } from '@common/events';

export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting';

/** The server's event stream for the signed-in user (local mode only; LivePort is what features see). */
export interface EventsPort {
  /** Subscribes to the user's realtime events; one connection is shared by every subscriber. */
  subscribe(onEvent: (event: RealtimeEvent) => void, onStatus?: (status: ConnectionStatus) => void): () => void;
}

/**
 * One EventSource to /api/events shared by every subscriber, opened with the first and closed with the last.
 * The browser reconnects by itself after a network drop; when the server refuses the stream (e.g. a restart
 * mid-deploy) we reopen it with a growing delay.
 */
export function createLocalEvents(url = '/api/events'): EventsPort {
  const listeners = new Set<(event: RealtimeEvent) => void>();
  const statusListeners = new Set<(status: ConnectionStatus) => void>();
  let source: EventSource | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let everOpened = false;

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
    source.onerror = () => {
      if (source?.readyState === EventSource.CLOSED) {
        source = null;
        emitStatus('reconnecting');
        const delay = Math.min(30_000, 1000 * 2 ** failures++);
        retryTimer = setTimeout(() => {
          retryTimer = undefined;
          if (listeners.size) open();
        }, delay);
      } else {
        emitStatus('reconnecting');
      }
    };
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
      if (!source && !retryTimer) open();
      return () => {
        listeners.delete(onEvent);
        if (onStatus) statusListeners.delete(onStatus);
        if (listeners.size === 0) close();
      };
    },
  };
}
