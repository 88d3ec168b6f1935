import { vi } from 'vitest';
import type { ApiPort, Backend, Me, SessionUser } from '@/backend/port';
import type { RealtimeEvent } from '@common/events';
import { createLocalData } from '@/backend/local/data';
import type { EventsPort } from '@/backend/local/events';
import { createLocalLive } from '@/backend/local/live';

export function sessionUser(overrides: Partial<SessionUser> = {}): SessionUser {
  return {
    id: 'auth-user-1',
    fullName: 'Jamie Rivera',
    firstName: 'Jamie',
    lastName: 'Rivera',
    imageUrl: null,
    primaryEmailAddress: { emailAddress: 'jamie@example.com' },
    emailAddresses: [{ emailAddress: 'jamie@example.com' }],
    createdAt: '2026-03-14T10:00:00.000Z',
    ...overrides,
  };
}

export function me(overrides: Partial<Me> = {}): Me {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    clerk_id: 'auth-user-1',
    email: 'jamie@example.com',
    full_name: 'Jamie Rivera',
    credits: 0,
    updated_at: '2026-03-14T10:00:00.000Z',
    subscription_status: null,
    subscription_plan: null,
    creem_customer_id: null,
    image_url: null,
    joined_at: '2026-03-14T10:00:00.000Z',
    ...overrides,
  };
}

/** An identity port that is never asked for a user (tests that render a page below the guard). */
export function stubIdentity(): Backend['identity'] {
  return {
    loadUser: async () => null,
    getToken: async () => 'token',
    signIn: async () => {},
    signUp: async () => {},
    signOut: async () => {},
  };
}

/** An event stream the test drives: `emit` reaches every subscriber; the connection is open at once. */
export function fakeEvents() {
  const listeners = new Set<(e: RealtimeEvent) => void>();
  const events: EventsPort = {
    subscribe(onEvent, onStatus) {
      listeners.add(onEvent);
      onStatus?.('open');
      return () => listeners.delete(onEvent);
    },
  };
  return { events, emit: (e: RealtimeEvent) => listeners.forEach((fn) => fn(e)) };
}

/**
 * A local-mode Backend over a test's own answers to our server's API: the real local data and live adapters
 * (the addresses they call are the ones the server serves), a stub identity and a driven event stream.
 */
export function localBackendOver(request: ApiPort['request'], opts: { identity?: Backend['identity']; events?: EventsPort } = {}): Backend {
  const api: ApiPort = {
    request,
    download: async (path) => ({ blob: new Blob([await request<string>(path)]), fileName: null }),
    mediaUrl: (path) => path,
  };
  return {
    mode: 'local',
    identity: opts.identity ?? stubIdentity(),
    data: createLocalData(api),
    live: createLocalLive(opts.events ?? fakeEvents().events),
    api,
  };
}

/**
 * An in-memory Backend for component tests: identity answers from `user`, API calls go to `routes`
 * (path → handler), and `emit` pushes realtime events to subscribers.
 */
export function fakeBackend(
  opts: {
    user?: SessionUser | null;
    token?: string | null;
    routes?: Record<string, (body: unknown, method: string) => unknown | Promise<unknown>>;
    /** The hosted build's checkout and portal workers (absolute addresses, answered by `routes` like any path). */
    billing?: Backend['billing'];
  } = {},
) {
  const { events, emit } = fakeEvents();
  const user = opts.user === undefined ? sessionUser() : opts.user;
  const request = vi.fn(async (path: string, o: { method?: string; body?: unknown } = {}) => {
    const key = Object.keys(opts.routes ?? {}).find((k) => k === path || k === path.split('?')[0]);
    if (!key) throw new Error(`fake backend: no route for ${path}`);
    return opts.routes![key](o.body, o.method ?? (o.body === undefined ? 'GET' : 'POST'));
  });
  const identity: Backend['identity'] = {
    loadUser: vi.fn(async () => user),
    getToken: vi.fn(async () => (opts.token === undefined ? 'token' : opts.token)),
    signIn: vi.fn(async () => {}),
    signUp: vi.fn(async () => {}),
    signOut: vi.fn(async () => {}),
  };
  const backend = { ...localBackendOver(request as ApiPort['request'], { identity, events }), billing: opts.billing };
  return { backend, request, emit };
}
