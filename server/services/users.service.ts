import type { Identity } from '../auth/identity.ts';
import type { Db } from '../db/index.ts';
import { usersRepository, type UserRow } from '../repositories/users.repository.ts';

export type { UserRow };
export type UsersService = ReturnType<typeof createUsersService>;

export function createUsersService(deps: { db: Db }) {
  return {
    /**
     * User sync (product §4): find the users row by the provider's id; create it with email, full name and
     * 0 credits, or refresh email, full_name and updated_at. One statement, so two tabs (or the server and
     * the hosted SPA's own sync) creating the row at once end with one row and no error. Profile fields the
     * identity does not know are left as they are. Undefined when the account was erased: its row is never
     * revived (docs/decisions/005-account-erasure.md). The user_public_meta row comes with the insert (trigger).
     * `verified_email` is written only from what the identity provider verified (never from a browser).
     */
    sync(identity: Identity): Promise<UserRow | undefined> {
      return usersRepository.sync(deps.db, {
        clerkId: identity.id,
        email: identity.email,
        verifiedEmail: identity.verifiedEmail,
        fullName: identity.fullName,
      });
    },

    findById(id: string): Promise<UserRow | undefined> {
      return usersRepository.findBy(deps.db, { id });
    },

    findByClerkId(clerkId: string): Promise<UserRow | undefined> {
      return usersRepository.findBy(deps.db, { clerkId });
    },

    /**
     * By the display copy users.email, which a Clerk user's browser may set to anything: for test fixtures and
     * the built-in mode's own lookups, never to decide whom to reach or erase (that is verifiedEmailOf).
     */
    findByEmail(email: string): Promise<UserRow | undefined> {
      return usersRepository.findBy(deps.db, { email });
    },

    /** Records the address the identity provider verified; undefined when the account was erased. */
    setVerifiedEmail(userId: string, verifiedEmail: string | null): Promise<UserRow | undefined> {
      return usersRepository.setVerifiedEmail(deps.db, userId, verifiedEmail);
    },

    /** The address to write to about this account, or null (usersRepository.verifiedEmailOf). */
    verifiedEmailOf(userId: string): Promise<string | null> {
      return usersRepository.verifiedEmailOf(deps.db, userId);
    },
  };
}
