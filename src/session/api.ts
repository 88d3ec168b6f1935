import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useBackend } from '@/backend/backend-context';
import type { Backend, Me, SessionUser } from '@/backend/port';
import { NO_TOKEN_MESSAGE } from '@/backend/api-error';

export const sessionUserKey = ['session-user'] as const;
export const meKey = ['me'] as const;

/** The identity provider's user: undefined while loading, null when signed out. */
export function useSessionUser() {
  const { identity } = useBackend();
  return useQuery({ queryKey: sessionUserKey, queryFn: () => identity.loadUser(), staleTime: Infinity, retry: 1 });
}

/**
 * The user record's query, one definition for the sync and its readers: get a token, then create or refresh
 * the users row (product §4). Its data is the live user record (credits are kept current by realtime events).
 */
function meQuery({ identity, data }: Backend, sessionUser?: SessionUser | null) {
  return queryOptions({
    queryKey: meKey,
    staleTime: Infinity,
    retry: false,
    queryFn: async () => {
      if (!sessionUser) throw new Error('Authentication failed');
      const token = await identity.getToken().catch((err: unknown) => {
        console.error('Could not get a session token', err);
        return null;
      });
      if (!token) throw new Error(NO_TOKEN_MESSAGE);
      try {
        return await data.syncUser(sessionUser);
      } catch (err) {
        throw err instanceof Error && err.message ? err : new Error('Authentication failed');
      }
    },
  });
}

/** User sync (product §4): runs once the identity has loaded and a user exists. */
export function useUserSync(sessionUser: SessionUser | null | undefined) {
  const backend = useBackend();
  return useQuery({ ...meQuery(backend, sessionUser), enabled: !!sessionUser });
}

/**
 * Runs the user sync again now (after a subscription change), keeping the record shown meanwhile. The
 * returned function is stable; it reads the session user when called.
 */
export function useRefreshMe() {
  const qc = useQueryClient();
  const backend = useBackend();
  return useCallback(
    () => qc.fetchQuery({ ...meQuery(backend, qc.getQueryData<SessionUser | null>(sessionUserKey)), staleTime: 0 }),
    [qc, backend],
  );
}

/** The synced user record; only inside the /app guard, where the sync has loaded it (so it never fetches). */
export function useMe(): Me {
  const backend = useBackend();
  const { data } = useQuery({ ...meQuery(backend), enabled: false });
  if (!data) throw new Error('useMe is only available inside the signed-in app');
  return data;
}

/**
 * True once this page has begun signing out: the session ending on the server is then its own doing, not a
 * sign-out elsewhere (use-realtime.ts), and the page is about to be replaced.
 */
let signingOut = false;
export const isSigningOut = () => signingOut;

/**
 * Signs out and returns to '/' (product §2) with a full page load: the event stream goes with the old page, and
 * no signed-in screen can react to the session ending before the home page shows. The browser may keep the old
 * page for its Back button (the back/forward cache): its cached queries are dropped as it is put away, and
 * brought back it goes to sign-in (use-restored-page-check.ts).
 */
export function useSignOut() {
  const { identity } = useBackend();
  const qc = useQueryClient();
  return useCallback(async () => {
    signingOut = true;
    try {
      await identity.signOut();
    } catch (err) {
      console.error('Sign out failed', err);
    }
    // Not before: a signed-in screen still on show would load its data again, signed out.
    window.addEventListener('pagehide', () => qc.clear(), { once: true });
    window.location.assign('/');
  }, [identity, qc]);
}
