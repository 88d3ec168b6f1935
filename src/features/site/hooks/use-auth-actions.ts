import { useSessionUser, useSignOut } from '@/session/api';

/** The visitor's session state and Sign out (which returns to '/', product §2), for the header and mobile menu. */
export function useAuthActions() {
  const session = useSessionUser();
  const signOut = useSignOut();
  return {
    loading: session.isPending,
    signedIn: !!session.data,
    signOut,
  };
}
