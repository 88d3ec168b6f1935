import { useEffect, useMemo, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { ClerkProvider, useAuth, useClerk, type ClerkProp } from '@clerk/react';
import type { ClerkLike } from '@/backend/hosted/clerk-identity';
import { watchClerkScripts } from '@/backend/hosted/clerk-script-watch';
import { createHostedBackend } from '@/backend/hosted/hosted-backend';
import type { HostedConfig } from '@/backend/hosted/hosted-config';
import { POST_AUTH_PATH } from '@/session/paths';
import { AppProviders } from './providers';

/**
 * One backend per Clerk session: a new session (sign-in, sign-out, switching accounts) gets a fresh
 * Supabase client and a fresh query cache, so nothing of the previous session is shown or sent.
 */
function ClerkSession({ config, children }: { config: HostedConfig; children: ReactNode }) {
  // useClerk() is @clerk/react's IsomorphicClerk; ClerkLike names the part of it the adapter uses.
  const clerk = useClerk() as unknown as ClerkLike;
  const { sessionId } = useAuth();
  const sessionKey = sessionId ?? 'signed-out';
  // sessionKey is not read inside: a new session is what makes a new backend.
  const backend = useMemo(() => createHostedBackend(clerk, config, watchClerkScripts(config.publishableKey)), [clerk, config, sessionKey]);
  useEffect(() => () => backend.close(), [backend]);
  return (
    <AppProviders key={sessionKey} backend={backend}>
      {children}
    </AppProviders>
  );
}

/**
 * The hosted session inside a router: Clerk for identity (its widgets at /sign-in and /sign-up), Supabase
 * for data. `clerk` replaces clerk-js (tests drive Clerk's real React SDK with a fake of it).
 */
export function HostedSession({ config, clerk, children }: { config: HostedConfig; clerk?: ClerkProp; children: ReactNode }) {
  const navigate = useNavigate();
  // Before ClerkProvider, which inserts clerk-js's script as it is created.
  watchClerkScripts(config.publishableKey);
  return (
    <ClerkProvider
      publishableKey={config.publishableKey}
      Clerk={clerk}
      afterSignOutUrl="/"
      signInUrl="/sign-in"
      signUpUrl="/sign-up"
      signInFallbackRedirectUrl={POST_AUTH_PATH}
      signUpFallbackRedirectUrl={POST_AUTH_PATH}
      routerPush={(to) => navigate(to)}
      routerReplace={(to) => navigate(to, { replace: true })}
    >
      <ClerkSession config={config}>{children}</ClerkSession>
    </ClerkProvider>
  );
}
