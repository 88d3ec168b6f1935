import { verifyToken } from '@clerk/backend';
import { bearerToken, CLERK_CLOCK_SKEW_MS, SESSION_REFUSALS, signsPersonIn, verifiedEmailClaim } from '../../common/clerk-session.ts';
import type { WorkerConfig } from './config.ts';
import { refuse } from './errors.ts';

export interface SignedInPerson {
  /** Clerk's user id (users.clerk_id). */
  clerkId: string;
  /** The address Clerk verified, from the token itself (`email_verified: true`); null when it does not say so. */
  verifiedEmail: string | null;
}

/**
 * The person a request's Clerk session token signs in, checked as our server checks it (server/auth/clerk.ts):
 * `@clerk/backend`'s verifyToken with the instance's PEM key (no network call), `azp` one of the SPA's origins,
 * `exp`/`nbf` with the same clock skew, and only an active session's token. Anything else is 401; nothing in the
 * request's body ever names the person.
 */
export async function signedInPerson(request: Request, config: WorkerConfig): Promise<SignedInPerson> {
  const token = bearerToken(request.headers.get('authorization'));
  if (!token) throw refuse(SESSION_REFUSALS.signedOut);
  let claims: Record<string, unknown>;
  try {
    claims = await verifyToken(token, {
      jwtKey: config.clerkJwtKey,
      authorizedParties: config.authorizedParties,
      clockSkewInMs: CLERK_CLOCK_SKEW_MS,
    });
  } catch {
    // Forged, expired, not yet valid, or issued to another origin: the same answer as no token at all.
    throw refuse(SESSION_REFUSALS.signedOut);
  }
  if (!signsPersonIn(claims)) throw refuse(SESSION_REFUSALS.signedOut);
  return { clerkId: claims.sub, verifiedEmail: verifiedEmailClaim(claims) };
}
