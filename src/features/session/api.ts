import { useQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useBackend } from '@/backend/backend-context';
import type { SessionUser } from '@/backend/port';

/** The caller's users row as the server answers /api/me (spec §3 users plus profile fields). */
export interface Me {
  id: string;
  clerk_id: string;
  email: string | null;
  full_name: string | null;
  credits: number;
  updated_at: string;
  subscription_status: string | null;
  subscription_plan: string | null;
  creem_customer_id: string | null;
  image_url: string | null;
  joined_at: string;
}

export const sessionUserKey = ['session-user'] as const;
export const meKey = ['me'] as const;

/** The identity provider's user: undefined while loading, null when signed out. */
export function useSessionUser() {
  const { identity } = useBackend();
  return useQuery({ queryKey: sessionUserKey, queryFn: () => identity.loadUser(), staleTime: Infinity, retry: 1 });
}

/**
 * User sync (spec §4): once the identity has loaded and a user exists, get a token, then create or refresh the
 * users row. Its query data is the live user record (credits are kept current by realtime events).
 */
export function useUserSync(sessionUser: SessionUser | null | undefined) {
  const { identity, api } = useBackend();
  return useQuery({
    queryKey: meKey,
    enabled: !!sessionUser,
    staleTime: Infinity,
    retry: false,
    queryFn: async () => {
      const token = await identity.getToken();
      if (!token) throw new Error('Failed to get authentication token');
      try {
        return await api.request<Me>('/api/me/sync', { method: 'POST' });
      } catch (err) {
        throw err instanceof Error && err.message ? err : new Error('Authentication failed');
      }
    },
  });
}

/** The synced user record; only inside the /app guard, where it has loaded. */
export function useMe(): Me {
  const { data } = useQuery<Me>({ queryKey: meKey, enabled: false, staleTime: Infinity });
  if (!data) throw new Error('useMe is only available inside the signed-in app');
  return data;
}

/**
 * Signs out and returns to '/' (spec §2) with a full page load: every cached query and the event stream go
 * with the old page, and no signed-in screen can react to the session ending before the home page shows.
 */
export function useSignOut() {
  const { identity } = useBackend();
  return useCallback(async () => {
    try {
      await identity.signOut();
    } catch (err) {
      console.error('Sign out failed', err);
    }
    window.location.assign('/');
  }, [identity]);
}
