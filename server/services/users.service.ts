import { eq, sql } from 'drizzle-orm';
import type { Identity } from '../auth/identity.ts';
import type { Db } from '../db/index.ts';
import { userPublicMeta, users } from '../db/schema.ts';

export type UserRow = typeof users.$inferSelect;
export type UsersService = ReturnType<typeof createUsersService>;

export function createUsersService(deps: { db: Db }) {
  return {
    /**
     * User sync (spec §4): find the users row by the provider's id; create it with email, full name and
     * 0 credits, or refresh email, full_name and updated_at. One statement, so two tabs signing in at once
     * cannot create two rows.
     */
    async sync(identity: Identity): Promise<UserRow> {
      return deps.db.transaction(async (tx) => {
        const [row] = await tx
          .insert(users)
          .values({ clerkId: identity.id, email: identity.email, fullName: identity.fullName, credits: 0 })
          .onConflictDoUpdate({
            target: users.clerkId,
            set: { email: identity.email, fullName: identity.fullName, updatedAt: sql`now()` },
          })
          .returning();
        await tx.insert(userPublicMeta).values({ userId: row.id, credits: row.credits }).onConflictDoNothing();
        return row;
      });
    },

    async findByClerkId(clerkId: string): Promise<UserRow | undefined> {
      const [row] = await deps.db.select().from(users).where(eq(users.clerkId, clerkId)).limit(1);
      return row;
    },

    async findByEmail(email: string): Promise<UserRow | undefined> {
      const [row] = await deps.db.select().from(users).where(eq(users.email, email)).limit(1);
      return row;
    },
  };
}
