/**
 * How a Clerk session token is taken, for our server (server/auth/clerk.ts) and the Cloudflare checkout and portal
 * workers (workers/): the header it comes in, the clock difference forgiven, and which verified tokens sign a person
 * in. Both verify the signature and `azp` with `@clerk/backend`'s verifyToken; these are the rules around it.
 */

/** A compact JWS after `Bearer`: three base64url parts. Anything else in the header is not worth verifying. */
export const SESSION_BEARER = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;

/** Clerk session tokens live 60 s; this much clock difference between Clerk and us is forgiven. */
export const CLERK_CLOCK_SKEW_MS = 5_000;

/** The token of an `Authorization` header, or null when the header holds no compact JWS. */
export function bearerToken(header: string | null | undefined): string | null {
  return SESSION_BEARER.exec(header?.trim() ?? '')?.[1] ?? null;
}

/** Only session tokens (with their session id) of active sessions sign a person in. */
export function signsPersonIn(claims: Record<string, unknown>): claims is Record<string, unknown> & { sub: string; sid: string } {
  return typeof claims.sub === 'string' && typeof claims.sid === 'string' && claims.sts !== 'pending';
}

/**
 * The token's address when the token itself says Clerk verified it: the session-token template's
 * `"email": "{{user.primary_email_address}}"` with `"email_verified": "{{user.email_verified}}"` true (README, Hosted
 * mode). Without that claim, or with any other value, the address is not taken as verified: null.
 */
export function verifiedEmailClaim(claims: Record<string, unknown>): string | null {
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  return email && claims.email_verified === true ? email : null;
}

/** Answers to a caller who is not signed in, or whose account is gone: the server's and the workers' alike. */
export const SESSION_REFUSALS = {
  signedOut: { status: 401, code: 'unauthorized', message: 'Please sign in to continue.' },
  /** A still-valid session of an erased account (a Clerk token outlives the deletion by up to a minute). */
  accountDeleted: { status: 401, code: 'account_deleted', message: 'This account has been deleted.' },
} as const;
