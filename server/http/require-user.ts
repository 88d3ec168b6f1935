import type { MiddlewareHandler } from 'hono';
import type { Identity, IdentityProvider } from '../auth/identity.ts';
import type { UserRow, UsersService } from '../services/users.service.ts';
import type { AppEnv, CallerEnv } from './context.ts';
import { accountDeleted, unauthorized } from '../domain/errors.ts';

/**
 * User sync (product §4) as the server does it: the row of the provider's id, created on first sight with the
 * profile the provider gives. An erased account's row is never revived.
 */
export async function syncUser(identity: IdentityProvider, users: UsersService, who: Identity): Promise<UserRow> {
  const user = await users.sync((await identity.loadProfile?.(who)) ?? who);
  if (!user) throw accountDeleted();
  return user;
}

/**
 * A known row's verified address, kept current: from the session token's claim whenever it carries one (no
 * network), else from the provider's API while the row has none yet (cached there; an outage leaves the
 * address unknown and the request goes on). Clerk's user.updated webhook refreshes it too.
 */
async function withVerifiedEmail(identity: IdentityProvider, users: UsersService, who: Identity, user: UserRow): Promise<UserRow> {
  if (!identity.verifiedEmail) return user;
  if (who.verifiedEmail === undefined && user.verifiedEmail !== null) return user;
  const verified = await identity.verifiedEmail(who);
  if (verified === undefined || verified === user.verifiedEmail) return user;
  return (await users.setVerifiedEmail(user.id, verified)) ?? user;
}

/** The caller's identity and users row (synced on first sight); undefined when signed out. */
export async function resolveUser(
  identity: IdentityProvider,
  users: UsersService,
  headers: Headers,
): Promise<{ who: Identity; user: UserRow } | undefined> {
  const found = identity.identifyWithRow
    ? await identity.identifyWithRow(headers)
    : await identity.identify(headers).then(async (who) => who && { who, row: await users.findByClerkId(who.id) });
  if (!found) return undefined;
  const { who, row: known } = found;
  if (known?.erasedAt) throw accountDeleted();
  return { who, user: known ? await withVerifiedEmail(identity, users, who, known) : await syncUser(identity, users, who) };
}

/** Resolves the caller and their users row (synced on first sight), or answers 401. */
export function requireUser(identity: IdentityProvider, users: UsersService): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await resolveUser(identity, users, c.req.raw.headers);
    if (!caller) throw unauthorized();
    c.set('identity', caller.who);
    c.set('userId', caller.user.id);
    c.set('user', caller.user);
    await next();
  };
}

/**
 * Resolves who calls (their identity and users.id), or answers 401: requireUser, but for a route that reads no
 * more of the users row than its id, so a session remembered by the provider (identifyCaller) is not read again.
 */
export function requireCaller(identity: IdentityProvider, users: UsersService): MiddlewareHandler<CallerEnv> {
  return async (c, next) => {
    const remembered = await identity.identifyCaller?.(c.req.raw.headers);
    const caller =
      remembered ??
      (await resolveUser(identity, users, c.req.raw.headers).then((found) => found && { who: found.who, userId: found.user.id }));
    if (!caller) throw unauthorized();
    c.set('identity', caller.who);
    c.set('userId', caller.userId);
    await next();
  };
}
