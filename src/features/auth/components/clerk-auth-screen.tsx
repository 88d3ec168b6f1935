import { ClerkFailed, ClerkLoading, SignIn, SignUp, useAuth } from '@clerk/react';
import { useCallback, useSyncExternalStore } from 'react';
import { Link, Navigate, useSearchParams } from 'react-router';
import { currentClerkScriptWatch } from '@/backend/hosted/clerk-script-watch';
import { IDENTITY_SERVICE_UNAVAILABLE } from '@/backend/hosted/clerk-identity';
import { Logo } from '@/components/logo';
import { Spinner } from '@/components/ui/spinner';
import { ErrorState } from '@/components/ui/states';
import { authPath, NEXT_PARAM, postAuthPath } from '@/session/paths';

/**
 * The hosted build's /sign-in/* and /sign-up/*: Clerk's own widgets with path routing (product §2), landing
 * on /app/create-image afterwards, or on the deep /app link that sent the visitor here. Clerk draws and runs the forms; this page only frames them, and says so
 * while Clerk loads and when it cannot (its widgets then render nothing at all).
 */
export function ClerkAuthScreen({ mode }: { mode: 'sign-in' | 'sign-up' }) {
  const [params] = useSearchParams();
  const next = params.get(NEXT_PARAM);
  const landing = postAuthPath(next);
  const scripts = currentClerkScriptWatch();
  // The browser blocked or could not fetch Clerk's script: say so now, not after @clerk/react's 15 s timeout.
  const blocked = useSyncExternalStore(
    useCallback((changed: () => void) => scripts.onFail(changed), [scripts]),
    () => scripts.failed,
  );
  // Already signed in (a second tab, or the app's guard that saw the session a moment before Clerk announced it):
  // on to the app rather than a sign-in form for someone who has signed in.
  const { isSignedIn } = useAuth();
  if (isSignedIn) return <Navigate to={landing} replace />;
  const unavailable = (
    <div className="w-full max-w-md">
      <ErrorState title={IDENTITY_SERVICE_UNAVAILABLE} onRetry={() => window.location.reload()} />
    </div>
  );
  return (
    <div className="flex min-h-dvh flex-col items-center justify-center bg-bg-subtle px-4 py-10">
      <Link to="/" className="mb-8" aria-label="Likeness home">
        <Logo />
      </Link>
      {blocked ? (
        unavailable
      ) : (
        <>
          <ClerkLoading>
            <Spinner className="size-8 text-brand" label={mode === 'sign-in' ? 'Loading sign-in' : 'Loading sign-up'} />
          </ClerkLoading>
          <ClerkFailed>{unavailable}</ClerkFailed>
        </>
      )}
      {mode === 'sign-in' ? (
        <SignIn routing="path" path="/sign-in" signUpUrl={authPath('/sign-up', next)} fallbackRedirectUrl={landing} />
      ) : (
        <SignUp routing="path" path="/sign-up" signInUrl={authPath('/sign-in', next)} fallbackRedirectUrl={landing} />
      )}
    </div>
  );
}
