import type { users } from '../db/schema.ts';

/**
 * The signed-in person as the identity provider knows them. The rest of the server sees only this, so a
 * hosted provider (Clerk) is a second implementation next to the built-in one.
 *
 * A profile field is undefined when the provider did not say (a Clerk session token without those claims,
 * or Clerk's Backend API unreachable); null when the person has none. Undefined fields are never written.
 */
export interface Identity {
  /** The provider's user id; stored as users.clerk_id. */
  id: string;
  /** The address the person gave (a display copy: users.email). */
  email?: string | null;
  /**
   * Clerk mode: the primary address as Clerk verified it (users.verified_email), from the session token's
   * `email` claim with `email_verified: true`, or Clerk's Backend API; null when Clerk says it is unverified.
   * Undefined when unknown, and for built-in accounts, whose sign-in address is theirs.
   */
  verifiedEmail?: string | null;
  fullName?: string | null;
  imageUrl?: string | null;
  /** When the person signed up (ISO time). */
  createdAt?: string;
  /**
   * The credential this identity was read from: a built-in session (its id) or a Clerk session token (its
   * session id), and when it stops being valid. An event stream lives no longer than this.
   */
  session?: { id: string; expiresAt: Date };
  /** Built-in accounts: whether the person confirmed their sign-in address. Undefined: the provider checked it (Clerk). */
  emailVerified?: boolean;
}

export interface IdentityProvider {
  readonly name: 'local' | 'clerk';
  /**
   * How a session travels: 'cookie' (every request from the browser carries it, page loads included) or
   * 'bearer' (only the SPA's API calls carry it, as an Authorization header).
   */
  readonly transport: 'cookie' | 'bearer';
  /** Resolves the caller from request headers (cookie or bearer token); null when not signed in. */
  identify(headers: Headers): Promise<Identity | null>;
  /**
   * identify() and the person's users row read together, in one query (docs/decisions/014-generate-path.md);
   * the row is undefined while it does not exist yet. Every call reads the session from the database, so a
   * revoked session is refused at once. Providers without it are read with identify() and a second query.
   */
  identifyWithRow?(headers: Headers): Promise<{ who: Identity; row: typeof users.$inferSelect | undefined } | null>;
  /**
   * The caller and their users.id without reading the database, when a recent identifyWithRow of this session
   * is remembered and no notice of its sessions ending has come since (server/auth/caller-cache.ts); undefined
   * otherwise, and the caller goes the whole way. For routes that need no more of the users row than its id.
   */
  identifyCaller?(headers: Headers): Promise<{ who: Identity; userId: string } | undefined>;
  /** Fills in the profile fields the session did not carry (used once, when the users row is created). */
  loadProfile?(identity: Identity): Promise<Identity>;
  /**
   * The address the provider verified for this person: the session's claim when it carries one, else the
   * provider's API (cached). Undefined when it cannot say right now (the API is down or slow): the caller keeps
   * what it has. Only providers whose users' rows can be written by someone else (Clerk) have it.
   */
  verifiedEmail?(identity: Identity): Promise<string | null | undefined>;
  /** Handles the provider's own HTTP API under /api/auth, when it has one. */
  handle?(request: Request): Promise<Response>;
  /**
   * Built-in accounts: changes the caller's password (current one checked, the new one under the sign-up
   * rule) and signs out every other session of the account. Clerk handles its own.
   */
  changePassword?(headers: Headers, body: unknown): Promise<void>;
  /**
   * Built-in accounts: checks the signed-in person's current password before an irreversible step ('Delete
   * account'), under the same limit of wrong ones as changePassword; a wrong one is 400 `wrong_password`.
   * Clerk re-verifies in its own pages.
   */
  confirmPassword?(accountId: string, password: string): Promise<void>;
}

/**
 * The caller's address as the server worked it out (server/http/client-address.ts), handed to the built-in
 * accounts' handler on this header. The auth routes always overwrite it, so a client cannot choose it.
 */
export const CLIENT_ADDRESS_HEADER = 'x-likeness-client-address';
