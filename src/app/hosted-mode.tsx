import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import type { ClerkProp } from '@clerk/react';
import { createVisitorBackend } from '@/backend/hosted/visitor-backend';
import { readHostedConfig, type HostedConfig } from '@/backend/hosted/hosted-config';
import { PageSpinner } from '@/components/ui/spinner';
import type { StartedMode } from './mode';
import { AppProviders } from './providers';

// Pure: a build that never starts the hosted mode drops this module whole (src/main.tsx).
const LazyHostedSession = /* @__PURE__ */ lazy(() => import('./clerk-session').then((m) => ({ default: m.HostedSession })));

/** Routes that need Clerk whoever visits them: the app and Clerk's own sign-in and sign-up widgets. */
const NEEDS_CLERK = /^\/(app|sign-in|sign-up)(\/|$)/;

/**
 * Whether this browser may hold a Clerk session: clerk-js keeps `__client_uat` (the client's last sign-in
 * time, 0 when signed out) as a first-party cookie, the same signal Clerk's server SDKs read.
 */
function mayBeSignedIn(): boolean {
  return /(?:^|;\s*)__client_uat(?:_[^=]*)?=(?!0(?:;|$))\d+/.test(document.cookie);
}

/**
 * Clerk's SDK (about 35 KB of JS, plus clerk-js from Clerk's CDN) loads only where it is needed: on the
 * app, the sign-in pages, and for a visitor who may be signed in. A first-time visitor reads the public
 * pages with a signed-out backend and never downloads it; once loaded, it stays. `clerk` replaces clerk-js
 * in tests.
 */
export function HostedModeSession({ config, clerk, children }: { config: HostedConfig; clerk?: ClerkProp; children: ReactNode }) {
  const { pathname } = useLocation();
  const [loaded, setLoaded] = useState(mayBeSignedIn);
  const needed = loaded || NEEDS_CLERK.test(pathname);
  useEffect(() => {
    if (needed) setLoaded(true);
  }, [needed]);
  const [visitor] = useState(() => createVisitorBackend(config));

  if (!needed) return <AppProviders backend={visitor}>{children}</AppProviders>;
  return (
    <Suspense fallback={<PageSpinner />}>
      <LazyHostedSession config={config} clerk={clerk}>
        {children}
      </LazyHostedSession>
    </Suspense>
  );
}

/** The hosted build: a publishable key without pk_test_/pk_live_ stops it here (readHostedConfig). */
export function startMode(): StartedMode {
  const config = readHostedConfig();
  return {
    Session: ({ children }: { children: ReactNode }) => <HostedModeSession config={config}>{children}</HostedModeSession>,
    authPages: {
      signIn: () => import('@/pages/auth/clerk-sign-in-page'),
      signUp: () => import('@/pages/auth/clerk-sign-up-page'),
    },
  };
}
