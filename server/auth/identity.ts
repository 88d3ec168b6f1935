/**
 * The signed-in person as the identity provider knows them. The rest of the server sees only this, so a
 * hosted provider (Clerk) can be added as a second implementation next to the built-in one.
 */
export interface Identity {
  /** The provider's user id; stored as users.clerk_id. */
  id: string;
  email: string | null;
  fullName: string | null;
  imageUrl: string | null;
  createdAt: string;
}

export interface IdentityProvider {
  readonly name: 'local' | 'clerk';
  /** Resolves the caller from request headers (cookie or bearer token); null when not signed in. */
  identify(headers: Headers): Promise<Identity | null>;
  /** Handles the provider's own HTTP API under /api/auth, when it has one. */
  handle?(request: Request): Promise<Response>;
  /** Signs a user up directly (operator commands and test fixtures). */
  createUser?(input: { email: string; password: string; name: string }): Promise<Identity>;
}
