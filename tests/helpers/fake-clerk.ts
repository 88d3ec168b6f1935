/**
 * A stand-in for clerk-js (the browser SDK @clerk/react loads from Clerk's CDN at run time, which tests
 * cannot reach), handed to the REAL `<ClerkProvider Clerk={fake}>` of @clerk/react. Clerk's own hooks
 * (useAuth, useUser, useClerk) then run unchanged on top of it. Its session's getToken() returns real
 * RS256 session tokens (tests/helpers/clerk.ts), which the Supabase fakes and our server verify.
 *
 * It implements what @clerk/react 6.18.0 reads from a loaded Clerk object (IsomorphicClerk and
 * useAuthBase in node_modules/@clerk/react/dist): `loaded`, `status`, `load()`, `addListener()` (with
 * `skipInitialEmit`), `on/off('status')`, `__internal_lastEmittedResources` (a snapshot that stays the same
 * object until something changes: useSyncExternalStore compares it), `user`, `session`, `client`,
 * `signOut()`, and the session's `lastActiveToken.jwt.claims`. `__internal_lastEmittedResources` is internal to Clerk, so the version is pinned and
 * tests/components/hosted-session.test.tsx has a contract test for this fake.
 *
 * Not covered: Clerk's hosted sign-in and sign-up UI (<SignIn>, <SignUp>: clerk-js and @clerk/ui render
 * them from Clerk's servers), multi-session, organisations, and Clerk's own token refresh timing.
 */
import type { ClerkTestKeys } from './clerk.ts';

export interface FakeClerkUser {
  id: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  imageUrl?: string;
  createdAt?: Date;
}

interface Resources {
  client: { sessions: unknown[]; signedInSessions: unknown[] };
  session: FakeSession | null;
  user: ReturnType<typeof userResource> | null;
  organization: null;
}

interface FakeSession {
  id: string;
  status: 'active';
  user: ReturnType<typeof userResource>;
  /** Clerk keeps the last token it fetched; the hooks read its claims (useAuth needs them to say signed in). */
  lastActiveToken: { jwt: { claims: Record<string, unknown> } };
  factorVerificationAge: null;
  actor: null;
  getToken(): Promise<string | null>;
}

function userResource(u: FakeClerkUser) {
  const email = u.email ? { id: `idn_${u.id}`, emailAddress: u.email } : null;
  return {
    id: u.id,
    firstName: u.firstName,
    lastName: u.lastName,
    fullName: [u.firstName, u.lastName].filter(Boolean).join(' ') || null,
    imageUrl: u.imageUrl ?? 'https://img.clerk.com/default.png',
    primaryEmailAddress: email,
    primaryEmailAddressId: email?.id ?? null,
    emailAddresses: email ? [email] : [],
    createdAt: u.createdAt ?? new Date('2026-02-03T04:05:06.000Z'),
    organizationMemberships: [],
  };
}

export interface FakeClerkOptions {
  /** Mints the default session tokens (Node); in a browser pass `getToken` instead (tests/fakes/clerk-js-browser.ts). */
  keys?: ClerkTestKeys;
  /** The signed-in user; null for a signed-out visitor. */
  user: FakeClerkUser | null;
  /** What getToken() does; by default a fresh session token for the user. */
  getToken?: () => Promise<string | null>;
}

export function createFakeClerk(opts: FakeClerkOptions) {
  const listeners = new Set<(resources: Resources) => void>();
  const statusListeners = new Set<(status: string) => void>();
  let signOuts = 0;

  function resourcesFor(user: FakeClerkUser | null): Resources {
    if (!user) return { client: { sessions: [], signedInSessions: [] }, session: null, user: null, organization: null };
    const resource = userResource(user);
    const session: FakeSession = {
      id: `sess_${user.id}`,
      status: 'active',
      user: resource,
      lastActiveToken: { jwt: { claims: { sub: user.id, sid: `sess_${user.id}`, role: 'authenticated', v: 2 } } },
      factorVerificationAge: null,
      actor: null,
      getToken:
        opts.getToken ??
        (() => {
          if (!opts.keys) throw new Error('createFakeClerk needs keys or getToken');
          return opts.keys.mint({ sub: user.id, sid: `sess_${user.id}` });
        }),
    };
    return { client: { sessions: [session], signedInSessions: [session] }, session, user: resource, organization: null };
  }

  let resources = resourcesFor(opts.user);
  const emit = () => listeners.forEach((listener) => listener(resources));

  const clerk = {
    loaded: true,
    status: 'ready',
    isReady: () => true,
    async load() {},
    addListener(listener: (resources: Resources) => void, options?: { skipInitialEmit?: boolean }) {
      listeners.add(listener);
      if (!options?.skipInitialEmit) listener(resources);
      return () => listeners.delete(listener);
    },
    on(event: string, listener: (status: string) => void, options?: { notify?: boolean }) {
      if (event !== 'status') return;
      statusListeners.add(listener);
      if (options?.notify) listener(clerk.status);
    },
    off(event: string, listener: (status: string) => void) {
      if (event === 'status') statusListeners.delete(listener);
    },
    get __internal_lastEmittedResources() {
      return resources;
    },
    get client() {
      return resources.client;
    },
    get session() {
      return resources.session;
    },
    get user() {
      return resources.user;
    },
    get organization() {
      return null;
    },
    get isSignedIn() {
      return !!resources.session;
    },
    async signOut() {
      signOuts++;
      resources = resourcesFor(null);
      emit();
    },
  };

  return {
    clerk,
    signOuts: () => signOuts,
    /** Signs `user` in, as clerk-js does once its sign-in form has succeeded (setActive). */
    signIn(user: FakeClerkUser) {
      resources = resourcesFor(user);
      emit();
    },
  };
}
