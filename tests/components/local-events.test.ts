// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalEvents, type ConnectionStatus } from '@/backend/local/events';
import { createLocalLive } from '@/backend/local/live';

/** The browser's EventSource as far as the adapter uses it; each instance is one connection attempt. */
class BrowserEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static made: BrowserEventSource[] = [];
  readyState = BrowserEventSource.CONNECTING;
  onerror: (() => void) | null = null;
  private listeners = new Map<string, ((e: MessageEvent<string>) => void)[]>();
  constructor(readonly url: string) {
    BrowserEventSource.made.push(this);
  }
  addEventListener(type: string, fn: (e: MessageEvent<string>) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  close() {
    this.readyState = BrowserEventSource.CLOSED;
  }
  /** The server sends an event. */
  emit(type: string, data = '{}') {
    for (const fn of this.listeners.get(type) ?? []) fn(new MessageEvent(type, { data }));
  }
  /** The server refuses a reconnection (401): the browser gives up on this source. */
  refuse() {
    this.readyState = BrowserEventSource.CLOSED;
    this.onerror?.();
  }
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('the local event stream ends with its session', () => {
  const original = globalThis.EventSource;
  beforeEach(() => {
    BrowserEventSource.made = [];
    globalThis.EventSource = BrowserEventSource as unknown as typeof EventSource;
  });
  afterEach(() => {
    globalThis.EventSource = original;
  });

  it('after signed-out, does not reconnect without a valid session and tells the page once', async () => {
    let checks = 0;
    const live = createLocalLive(createLocalEvents('/api/events', async () => (checks++, false)));
    let told = 0;
    const stop = live.watchSignedOut!(() => told++);
    expect(BrowserEventSource.made).toHaveLength(1);
    BrowserEventSource.made[0].emit('ready');
    BrowserEventSource.made[0].emit('signed-out');
    await settle();
    expect(checks).toBe(1);
    expect(told).toBe(1);
    expect(BrowserEventSource.made[0].readyState).toBe(BrowserEventSource.CLOSED);
    await new Promise((r) => setTimeout(r, 300));
    expect(BrowserEventSource.made).toHaveLength(1);
    stop();
  });

  it('reconnects after signed-out when the browser still holds a session (signed in again in another tab)', async () => {
    const statuses: ConnectionStatus[] = [];
    const events = createLocalEvents('/api/events', async () => true);
    const stop = events.subscribe(
      () => {},
      (s) => statuses.push(s),
    );
    BrowserEventSource.made[0].emit('signed-out');
    await settle();
    expect(BrowserEventSource.made).toHaveLength(2);
    expect(statuses).not.toContain('signed-out');
    stop();
  });

  it('a refused reconnection (401) is checked the same way: no session, no more attempts', async () => {
    const statuses: ConnectionStatus[] = [];
    const events = createLocalEvents('/api/events', async () => false);
    const stop = events.subscribe(
      () => {},
      (s) => statuses.push(s),
    );
    BrowserEventSource.made[0].refuse();
    await new Promise((r) => setTimeout(r, 1_200));
    expect(BrowserEventSource.made).toHaveLength(1);
    expect(statuses.at(-1)).toBe('signed-out');
    stop();
  });
});
