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
  email?: string | null;
  fullName?: string | null;
  imageUrl?: string | null;
  /** When the person signed up (ISO time). */
  createdAt?: string;
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
  /** Fills in the profile fields the session did not carry (used once, when the users row is created). */
  loadProfile?(identity: Identity): Promise<Identity>;
  /** Handles the provider's own HTTP API under /api/auth, when it has one. */
  handle?(request: Request): Promise<Response>;
  /** Signs a user up directly (operator commands and test fixtures). */
  createUser?(input: { email: string; password: string; name: string }): Promise<Identity>;
}
