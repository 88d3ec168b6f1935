import { Hono } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { IdentityProvider } from '../auth/identity.ts';
import { CLIENT_ADDRESS_HEADER } from '../auth/local.ts';
import { clientAddress, type ProxySettings } from '../http/client-address.ts';
import type { AppEnv } from '../http/context.ts';
import { notFound } from '../domain/errors.ts';

/**
 * Mounted at /api/auth: the identity provider's own API. Sign-in limits live in the provider (the built-in
 * one's sign-in guard), which sees the body after parsing; this route only tells it who is calling.
 */
export function authRoutes(deps: { identity: IdentityProvider; proxy: ProxySettings }) {
  const app = new Hono<AppEnv>();
  app.all('/*', async (c) => {
    if (!deps.identity.handle) throw notFound();
    const headers = new Headers(c.req.raw.headers);
    headers.set(CLIENT_ADDRESS_HEADER, clientAddress(getConnInfo(c).remote.address, c.req.header('x-forwarded-for'), deps.proxy));
    return deps.identity.handle(new Request(c.req.raw, { headers }));
  });
  return app;
}
