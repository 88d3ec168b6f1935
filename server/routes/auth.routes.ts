import { Hono } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { IdentityProvider } from '../auth/identity.ts';
import type { Db } from '../db/index.ts';
import type { AppEnv } from '../http/context.ts';
import { notFound, tooManyRequests } from '../http/errors.ts';
import { hitRateLimit } from '../http/rate-limit.ts';

const SIGN_IN_WINDOW_S = 15 * 60;

export function authRoutes(deps: { identity: IdentityProvider; db: Db; signInLimit: number; trustProxy: boolean }) {
  const app = new Hono<AppEnv>();

  // Sign-in attempts are limited per e-mail and per address, whatever the outcome.
  app.post('/sign-in/*', async (c, next) => {
    const ip =
      (deps.trustProxy ? c.req.header('x-forwarded-for')?.split(',')[0]?.trim() : undefined) ||
      getConnInfo(c).remote.address ||
      'unknown';
    const body = (await c.req.raw
      .clone()
      .json()
      .catch(() => ({}))) as { email?: unknown };
    const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
    const okIp = await hitRateLimit(deps.db, `sign-in:ip:${ip}`, deps.signInLimit * 5, SIGN_IN_WINDOW_S);
    const okEmail = email ? await hitRateLimit(deps.db, `sign-in:email:${email}`, deps.signInLimit, SIGN_IN_WINDOW_S) : true;
    if (!okIp || !okEmail) throw tooManyRequests('Too many sign-in attempts. Please wait a few minutes and try again.');
    await next();
  });

  app.all('/*', async (c) => {
    if (!deps.identity.handle) throw notFound();
    return deps.identity.handle(c.req.raw);
  });
  return app;
}
