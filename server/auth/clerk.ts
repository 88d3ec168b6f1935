import { createClerkClient, verifyToken } from '@clerk/backend';
import { isClerkAPIResponseError, TokenVerificationError, TokenVerificationErrorReason } from '@clerk/backend/errors';
import { bearerToken, CLERK_CLOCK_SKEW_MS, signsPersonIn, verifiedEmailClaim } from '@common/clerk-session.ts';
import type { ClerkConfig } from '../config.ts';
import { unavailable } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { Identity, IdentityProvider } from './identity.ts';

/** Profiles read from Clerk's Backend API are kept this long (it is rate-limited). */
const PROFILE_TTL_MS = 10 * 60_000;
const PROFILE_CACHE_SIZE = 10_000;
/** After a Backend API failure without Retry-After, it is left alone this long. */
const BACKEND_PAUSE_MS = 30_000;
/** How long a request waits for the Backend API to tell a known person's verified address (it keeps loading). */
const VERIFIED_EMAIL_WAIT_MS = 3_000;

/** Reasons that say nothing about the token: the keys could not be loaded, so no one can be checked now. */
const KEYS_UNAVAILABLE = new Set<string>([
  TokenVerificationErrorReason.RemoteJWKFailedToLoad,
  TokenVerificationErrorReason.InvalidSecretKey,
  TokenVerificationErrorReason.JWKFailedToResolve,
]);

type Profile = Pick<Identity, 'email' | 'verifiedEmail' | 'fullName' | 'imageUrl' | 'createdAt'>;

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value.trim() : null);

/**
 * Profile fields a session-token template may add (README, Hosted mode):
 * `"email": "{{user.primary_email_address}}", "email_verified": "{{user.email_verified}}",
 * "full_name": "{{user.full_name}}", "image_url": "{{user.image_url}}"`.
 * A claim that is absent stays undefined (unknown); one that is present but empty is null. The `email` claim
 * is the primary address as Clerk holds it, which an instance may keep unverified (an operator's import, a
 * sign-up whose code was never entered): it counts as verified only with `email_verified: true` beside it.
 * `email_verified: false` says it is not; without the claim the Backend API decides (verifiedEmail below).
 */
function profileFromClaims(claims: Record<string, unknown>): Profile {
  const has = (name: string) => Object.prototype.hasOwnProperty.call(claims, name);
  const email = text(claims.email);
  return {
    ...(has('email') && { email }),
    ...(has('email') && has('email_verified') && { verifiedEmail: verifiedEmailClaim(claims) }),
    ...((has('full_name') || has('name')) && { fullName: text(claims.full_name ?? claims.name) }),
    ...((has('image_url') || has('picture')) && { imageUrl: text(claims.image_url ?? claims.picture) }),
  };
}

export interface ClerkIdentityOptions extends ClerkConfig {
  logger: Logger;
}

/**
 * Hosted sign-in: Clerk session tokens from the Authorization header, verified by the official SDK —
 * networkless with the instance's PEM key (CLERK_JWT_KEY), else against the JWKS Clerk serves for the
 * secret key. The token's azp must be one of the SPA's origins. Profiles come from the token's claims when
 * the session-token template carries them, else from Clerk's Backend API (cached).
 */
export function createClerkIdentity(opts: ClerkIdentityOptions): IdentityProvider {
  const { logger } = opts;
  const backend = opts.secretKey
    ? createClerkClient({ secretKey: opts.secretKey, apiUrl: opts.apiUrl, telemetry: { disabled: true } })
    : undefined;
  const profiles = new Map<string, { profile: Profile; expires: number }>();
  const loading = new Map<string, Promise<Profile | undefined>>();
  let backendPausedUntil = 0;

  async function fetchProfile(userId: string): Promise<Profile | undefined> {
    if (!backend || Date.now() < backendPausedUntil) return undefined;
    try {
      const user = await backend.users.getUser(userId);
      const primary = user.primaryEmailAddress;
      const profile: Profile = {
        email: primary?.emailAddress ?? null,
        // Only an address Clerk has verified is one we write to (an instance may let an unverified address be
        // primary, e.g. one an operator added through Clerk's Backend API).
        verifiedEmail: primary?.verification?.status === 'verified' ? primary.emailAddress : null,
        fullName: text(user.fullName),
        imageUrl: text(user.imageUrl),
        createdAt: new Date(user.createdAt).toISOString(),
      };
      if (profiles.size >= PROFILE_CACHE_SIZE) profiles.delete(profiles.keys().next().value!);
      profiles.set(userId, { profile, expires: Date.now() + PROFILE_TTL_MS });
      return profile;
    } catch (err) {
      const status = isClerkAPIResponseError(err) ? err.status : undefined;
      const retryAfterS = isClerkAPIResponseError(err) ? err.retryAfter : undefined;
      // A missing user (deleted at Clerk, its user.deleted webhook on the way) is no reason to pause.
      if (status !== 404) backendPausedUntil = Date.now() + (retryAfterS ? retryAfterS * 1000 : BACKEND_PAUSE_MS);
      logger.warn({ err, userId, status }, 'could not read a profile from Clerk; the account is created without it');
      return undefined;
    }
  }

  /** A person's profile from the cache, else from one Backend API call shared by concurrent requests. */
  async function profileOf(userId: string): Promise<Profile | undefined> {
    const cached = profiles.get(userId);
    if (cached && cached.expires > Date.now()) return cached.profile;
    let pending = loading.get(userId);
    if (!pending) {
      pending = fetchProfile(userId).finally(() => loading.delete(userId));
      loading.set(userId, pending);
    }
    return pending;
  }

  return {
    name: 'clerk',
    transport: 'bearer',

    async identify(headers) {
      const token = bearerToken(headers.get('authorization'));
      if (!token) return null;
      let claims: Record<string, unknown>;
      try {
        claims = await verifyToken(token, {
          jwtKey: opts.jwtKey,
          secretKey: opts.jwtKey ? undefined : opts.secretKey,
          apiUrl: opts.apiUrl,
          authorizedParties: opts.authorizedParties,
          clockSkewInMs: CLERK_CLOCK_SKEW_MS,
        });
      } catch (err) {
        if (err instanceof TokenVerificationError && KEYS_UNAVAILABLE.has(err.reason)) {
          logger.error({ err, reason: err.reason }, "could not load Clerk's signing keys; sign-ins cannot be checked");
          throw unavailable('Sign-in could not be checked right now. Please try again in a moment.', 'identity_unavailable');
        }
        logger.debug({ reason: err instanceof TokenVerificationError ? err.reason : String(err) }, 'refused a session token');
        return null;
      }
      if (!signsPersonIn(claims)) return null;
      const expiresAt = typeof claims.exp === 'number' ? new Date(claims.exp * 1000) : undefined;
      return { id: claims.sub, ...profileFromClaims(claims), ...(expiresAt && { session: { id: claims.sid, expiresAt } }) };
    },

    async loadProfile(identity) {
      if (identity.email !== undefined && identity.fullName !== undefined) return identity;
      const profile = await profileOf(identity.id);
      // What the token says wins; the Backend API fills the rest.
      const known = Object.fromEntries(Object.entries(identity).filter(([, v]) => v !== undefined));
      return { ...profile, ...known, id: identity.id };
    },

    async verifiedEmail(identity) {
      if (identity.verifiedEmail !== undefined) return identity.verifiedEmail;
      // A slow Backend API does not hold the request up: the answer still lands in the cache for the next one.
      let stopWaiting = () => {};
      const waited = new Promise<undefined>((resolve) => {
        const timer = setTimeout(resolve, VERIFIED_EMAIL_WAIT_MS);
        stopWaiting = () => clearTimeout(timer);
      });
      const profile = await Promise.race([profileOf(identity.id), waited]).finally(() => stopWaiting());
      return profile?.verifiedEmail;
    },
  };
}
