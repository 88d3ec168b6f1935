import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { authPath } from '@/session/paths';
import { useSessionUser, useUserSync } from '@/session/api';
import { useRestoredPageCheck } from '@/session/use-restored-page-check';

/** What to do, beside the spec's technical line. */
export const SESSION_ERROR_ADVICE = 'We could not load your account. Try again in a moment.';

function Centered({ children }: { children: ReactNode }) {
  return <div className="flex min-h-dvh flex-col items-center justify-center gap-4 px-6 text-center">{children}</div>;
}

/**
 * The /app session guard (product §2): a spinner while auth loads; signed-out visitors go to /sign-in (history
 * replaced, origin remembered), also when a page comes back from the back/forward cache (useRestoredPageCheck);
 * then 'Initializing session...' while the user record syncs.
 */
export function RequireAuth({ children }: { children: ReactNode }) {
  const location = useLocation();
  const session = useSessionUser();
  const sync = useUserSync(session.data);
  useRestoredPageCheck();

  if (session.isPending) {
    return (
      <Centered>
        <Spinner className="size-8 text-brand" label="Loading" />
      </Centered>
    );
  }
  // The identity provider itself failing to load is a failure to initialize, not a signed-out visitor. A
  // later refresh of a record already shown that fails keeps the app on screen.
  const failure = session.error ?? (sync.data ? null : sync.error);
  if (failure) {
    return (
      <Centered>
        <div role="alert" className="flex max-w-md flex-col gap-1">
          <p className="font-medium text-fg">{SESSION_ERROR_ADVICE}</p>
          <p className="text-sm break-words text-danger">Error initializing user: {failure.message}</p>
        </div>
        <Button onClick={() => window.location.reload()}>Try Again</Button>
      </Centered>
    );
  }
  // The origin is remembered in the URL too, so it survives a reload of the sign-in page and a detour to sign-up.
  if (!session.data)
    return <Navigate to={authPath('/sign-in', location.pathname + location.search + location.hash)} replace state={{ from: location }} />;
  if (sync.isPending) {
    return (
      <Centered>
        <Spinner className="size-8 text-brand" label="Initializing session" />
        <p className="text-sm text-fg-muted">Initializing session...</p>
      </Centered>
    );
  }
  return <>{children}</>;
}
