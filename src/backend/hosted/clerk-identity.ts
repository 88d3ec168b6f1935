import type { IdentityPort, SessionUser } from '../port';
import type { ClerkScriptWatch } from './clerk-script-watch';

/** The parts of Clerk's user the product reads (product §3 "Identity provider user"). */
export interface ClerkUserLike {
  id: string;
  fullName: string | null;
  firstName: string | null;
  lastName: string | null;
  imageUrl: string;
  primaryEmailAddress: { emailAddress: string } | null;
  emailAddresses: { emailAddress: string }[];
  createdAt: Date | null;
}

/**
 * The Clerk object `useClerk()` hands out (@clerk/react's IsomorphicClerk, which wraps clerk-js once it has
 * loaded): only what this adapter uses, so the dependency on Clerk's surface stays visible and small.
 */
export interface ClerkLike {
  readonly loaded: boolean;
  /** 'loading' | 'ready' | 'degraded' | 'error' … ('error' when clerk-js could not be loaded). */
  readonly status?: string;
  readonly user: ClerkUserLike | null | undefined;
  readonly session: { id: string; getToken(): Promise<string | null> } | null | undefined;
  /** Calls `callback` once Clerk has loaded (at once when it has). */
  addOnLoaded(callback: () => void): void;
  on(event: 'status', listener: (status: string) => void, opts?: { notify?: boolean }): void;
  off(event: 'status', listener: (status: string) => void): void;
  signOut(): Promise<unknown>;
  /** Opens Clerk's user profile modal (its Security page has 'Delete account' when the instance allows it). */
  openUserProfile?(props?: Record<string, unknown>): void;
}

export function toSessionUser(user: ClerkUserLike): SessionUser {
  return {
    id: user.id,
    fullName: user.fullName,
    firstName: user.firstName,
    lastName: user.lastName,
    imageUrl: user.imageUrl || null,
    primaryEmailAddress: user.primaryEmailAddress ? { emailAddress: user.primaryEmailAddress.emailAddress } : null,
    emailAddresses: user.emailAddresses.map((e) => ({ emailAddress: e.emailAddress })),
    createdAt: (user.createdAt ?? new Date()).toISOString(),
  };
}

/** What a person is told when clerk-js cannot be loaded (its script blocked or unreachable). */
export const IDENTITY_SERVICE_UNAVAILABLE = 'The sign-in service could not be loaded. Check your connection and try again.';

/**
 * Resolves once Clerk has loaded; rejects when it cannot load: at once when the browser blocks or cannot
 * fetch its script (`scripts`, ./clerk-script-watch.ts), else when @clerk/react gives up on it.
 */
function whenLoaded(clerk: ClerkLike, scripts?: ClerkScriptWatch): Promise<void> {
  if (clerk.loaded) return Promise.resolve();
  return new Promise((resolve, reject) => {
    let stopWatching: (() => void) | undefined;
    const failed = () => {
      clerk.off('status', onStatus);
      stopWatching?.();
      reject(new Error(IDENTITY_SERVICE_UNAVAILABLE));
    };
    const onStatus = (status: string) => {
      if (status === 'error') failed();
    };
    clerk.on('status', onStatus, { notify: true });
    // Already failed: `failed` runs at once.
    stopWatching = scripts?.onFail(failed);
    clerk.addOnLoaded(() => {
      clerk.off('status', onStatus);
      stopWatching?.();
      resolve();
    });
  });
}

/**
 * Identity through Clerk: the user as Clerk describes them, its session token (a short-lived JWT that
 * Clerk refreshes itself), and sign out. Sign-in and sign-up happen in Clerk's own widgets (/sign-in/*,
 * /sign-up/*), never through this port.
 */
export function createClerkIdentity(clerk: ClerkLike, scripts?: ClerkScriptWatch): IdentityPort {
  const widgetsOnly = async () => {
    throw new Error('Sign-in and sign-up use the identity provider’s pages in this build.');
  };
  return {
    async loadUser() {
      await whenLoaded(clerk, scripts);
      return clerk.user ? toSessionUser(clerk.user) : null;
    },
    async getToken() {
      await whenLoaded(clerk, scripts);
      return (await clerk.session?.getToken()) ?? null;
    },
    signIn: widgetsOnly,
    signUp: widgetsOnly,
    async signOut() {
      await clerk.signOut();
    },
    openAccountDeletion() {
      clerk.openUserProfile?.();
    },
  };
}
