import { clerkFrontendApi } from '@common/clerk-frontend-api';

/**
 * Notices at once when the browser blocks or cannot load Clerk's scripts (clerk-js and its UI, from the
 * Frontend API host): the first `securitypolicyviolation` naming that host, or the first `error` of a script
 * from it. @clerk/react only finds out after its 15-second load timeout; with this the sign-in page and the
 * app say 'The sign-in service could not be loaded…' right away, and the console names the blocked host for
 * the operator.
 */
export interface ClerkScriptWatch {
  readonly failed: boolean;
  /** Calls `listener` once on the first failure (at once when it has already failed); returns its removal. */
  onFail(listener: () => void): () => void;
}

const NEVER_FAILS: ClerkScriptWatch = { failed: false, onFail: () => () => {} };

let current: { host: string; watch: ClerkScriptWatch } | null = null;

function originOf(uri: string): string | null {
  try {
    return new URL(uri).origin;
  } catch {
    return null; // 'inline', 'eval', ''
  }
}

function startWatch(host: string): ClerkScriptWatch {
  const origin = `https://${host}`;
  const listeners = new Set<() => void>();
  let failed = false;
  const fail = (why: string) => {
    if (failed) return;
    failed = true;
    console.error(`The sign-in service could not be loaded: ${why}`);
    for (const listener of listeners) listener();
    listeners.clear();
  };
  document.addEventListener('securitypolicyviolation', (event) => {
    if (originOf(event.blockedURI) !== origin) return;
    fail(
      `this page's Content-Security-Policy (${event.effectiveDirective}) blocked ${host} (${event.blockedURI}). ` +
        `Allow ${origin} in script-src and connect-src (README: Content-Security-Policy).`,
    );
  });
  // A script's `error` does not bubble; it is seen while capturing.
  document.addEventListener(
    'error',
    (event) => {
      const script = event.target;
      if (!(script instanceof HTMLScriptElement) || originOf(script.src) !== origin) return;
      fail(`the browser could not load ${script.src} from ${host} (blocked, unreachable or an error answer).`);
    },
    true,
  );
  return {
    get failed() {
      return failed;
    },
    onFail(listener) {
      if (failed) {
        listener();
        return () => {};
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * The page's watch over Clerk's scripts for this publishable key, started on first call: call it before
 * `<ClerkProvider>` renders (it inserts clerk-js's script as it is created).
 */
export function watchClerkScripts(publishableKey: string): ClerkScriptWatch {
  const api = clerkFrontendApi(publishableKey);
  if ('error' in api || typeof document === 'undefined') return NEVER_FAILS;
  if (current?.host !== api.host) current = { host: api.host, watch: startWatch(api.host) };
  return current.watch;
}

/** The page's watch, once the hosted session has started it (the sign-in page reads it). */
export function currentClerkScriptWatch(): ClerkScriptWatch {
  return current?.watch ?? NEVER_FAILS;
}
