import { Hono } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { CLIENT_ADDRESS_HEADER, type IdentityProvider } from '../auth/identity.ts';
import { clientAddress, type ProxySettings } from '../http/client-address.ts';
import type { AppEnv } from '../http/context.ts';
import { badRequest, notFound } from '../domain/errors.ts';
import { CHANGE_PASSWORD_MESSAGES } from '@common/auth.ts';

/**
 * Mounted at /api/auth: the identity provider's own API. Sign-in limits live in the provider (the built-in
 * one's sign-in guard), which sees the body after parsing; this route only tells it who is calling.
 */
export function authRoutes(deps: { identity: IdentityProvider; proxy: ProxySettings }) {
  const app = new Hono<AppEnv>();
  // 'Change password' on the profile: the product's rules (README, Security), not the auth library's route.
  app.post('/change-password', async (c) => {
    if (!deps.identity.changePassword) throw notFound();
    const body: unknown = await c.req.json().catch(() => {
      throw badRequest('Send the current and the new password as JSON.', 'invalid_body');
    });
    await deps.identity.changePassword(c.req.raw.headers, body);
    return c.json({ ok: true, message: CHANGE_PASSWORD_MESSAGES.done });
  });
  app.all('/*', async (c) => {
    if (!deps.identity.handle) throw notFound();
    const headers = new Headers(c.req.raw.headers);
    headers.set(CLIENT_ADDRESS_HEADER, clientAddress(getConnInfo(c).remote.address, c.req.header('x-forwarded-for'), deps.proxy));
    return deps.identity.handle(new Request(c.req.raw, { headers }));
  });
  return app;
}
