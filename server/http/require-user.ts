import type { MiddlewareHandler } from 'hono';
import type { IdentityProvider } from '../auth/identity.ts';
import type { UsersService } from '../services/users.service.ts';
import type { AppEnv } from './context.ts';
import { unauthorized } from './errors.ts';

/** Resolves the caller and their users row (synced on first sight), or answers 401. */
export function requireUser(identity: IdentityProvider, users: UsersService): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const who = await identity.identify(c.req.raw.headers);
    if (!who) throw unauthorized();
    const user = (await users.findByClerkId(who.id)) ?? (await users.sync(who));
    c.set('identity', who);
    c.set('user', user);
    await next();
  };
}
