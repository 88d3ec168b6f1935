import type { MiddlewareHandler } from 'hono';
import type { Identity, IdentityProvider } from '../auth/identity.ts';
import type { UserRow, UsersService } from '../services/users.service.ts';
import type { AppEnv } from './context.ts';
import { unauthorized } from './errors.ts';

/** The caller's identity and users row (synced on first sight); undefined when signed out. */
export async function resolveUser(
  identity: IdentityProvider,
  users: UsersService,
  headers: Headers,
): Promise<{ who: Identity; user: UserRow } | undefined> {
  const who = await identity.identify(headers);
  if (!who) return undefined;
  return { who, user: (await users.findByClerkId(who.id)) ?? (await users.sync(who)) };
}

/** Resolves the caller and their users row (synced on first sight), or answers 401. */
export function requireUser(identity: IdentityProvider, users: UsersService): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await resolveUser(identity, users, c.req.raw.headers);
    if (!caller) throw unauthorized();
    c.set('identity', caller.who);
    c.set('user', caller.user);
    await next();
  };
}
