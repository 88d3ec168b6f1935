import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useBackend } from '@/backend/backend-context';
import type { SessionUser } from '@/backend/port';
import { isSigningOut, sessionUserKey } from './api';
import { authPath } from './paths';

/**
 * A page of the app brought back from the browser's back/forward cache (Back after Sign Out, or after the
 * session ended in another tab) is the old page with its old data: it is hidden at once and the session is
 * asked again. Signed out, its cached data goes and the page is replaced by sign-in (with this page as the way
 * back); someone else signed in, it loads afresh; the same person, it shows again and refreshes what it shows
 * (issue 54 item 0). The page that signed out itself goes to sign-in without asking.
 */
export function useRestoredPageCheck() {
  const { identity } = useBackend();
  const qc = useQueryClient();
  useEffect(() => {
    const root = document.documentElement;
    const leave = () => {
      qc.clear();
      window.location.replace(authPath('/sign-in', window.location.pathname + window.location.search + window.location.hash));
    };
    const onPageShow = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      root.style.visibility = 'hidden';
      if (isSigningOut()) return leave();
      const shown = qc.getQueryData<SessionUser | null>(sessionUserKey);
      identity.loadUser().then(
        (user) => {
          if (!user) return leave();
          if (shown && user.id !== shown.id) return window.location.reload();
          root.style.visibility = '';
          void qc.invalidateQueries();
        },
        // The session could not be asked (offline): the page shows as it was; its next call decides.
        () => {
          root.style.visibility = '';
        },
      );
    };
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, [identity, qc]);
}
