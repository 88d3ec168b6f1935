import { Hono } from 'hono';
import type { Identity, IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { unauthorized } from '../domain/errors.ts';
import { requireUser, syncUser } from '../http/require-user.ts';
import type { UsersService, UserRow } from '../services/users.service.ts';

/** The caller's own record as the SPA reads it (spec §3 users, plus the identity's profile fields). */
export function toMe(user: UserRow, identity: Identity) {
  return {
    id: user.id,
    clerk_id: user.clerkId,
    email: user.email,
    full_name: user.fullName,
    credits: user.credits,
    updated_at: user.updatedAt,
    subscription_status: user.subscriptionStatus,
    subscription_plan: user.subscriptionPlan,
    creem_customer_id: user.creemCustomerId,
    image_url: identity.imageUrl ?? null,
    joined_at: identity.createdAt ?? user.createdAt.toISOString(),
  };
}
export type Me = ReturnType<typeof toMe>;

export function meRoutes(deps: { identity: IdentityProvider; users: UsersService }) {
  const app = new Hono<AppEnv>();

  // User sync (spec §4): create or refresh the caller's users row.
  app.post('/sync', async (c) => {
    const identity = await deps.identity.identify(c.req.raw.headers);
    if (!identity) throw unauthorized();
    const user = await syncUser(deps.identity, deps.users, identity);
    return c.json(toMe(user, identity));
  });

  app.get('/', requireUser(deps.identity, deps.users), (c) => c.json(toMe(c.var.user, c.var.identity)));
  return app;
}
