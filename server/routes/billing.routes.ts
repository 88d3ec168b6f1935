import { Hono } from 'hono';
import { checkoutRequestSchema, CONFIRM_EMAIL_TO_BUY_CODE, CONFIRM_EMAIL_TO_BUY_MESSAGE, portalRequestSchema } from '@common/billing.ts';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { forbidden } from '../domain/errors.ts';
import { requireUser } from '../http/require-user.ts';
import { serverUrlOf, spaUrlOf } from '../http/security.ts';
import { parseOrThrow } from '../domain/validate.ts';
import { readJson } from '../http/validate.ts';
import type { BillingService } from '../services/billing.service.ts';
import type { UsersService } from '../services/users.service.ts';

/** Checkout, customer portal and the caller's subscription (product §3 checkout and portal requests). */
export function billingRoutes(deps: {
  identity: IdentityProvider;
  users: UsersService;
  billing: BillingService;
  publicUrl?: string;
  /** Origins of a hosted SPA served elsewhere (ALLOWED_ORIGINS); people return there after paying. */
  spaOrigins: string[];
  /** REQUIRE_VERIFIED_EMAIL: a checkout needs a confirmed address (built-in accounts; Clerk confirms its own). */
  requireVerifiedEmail?: boolean;
}) {
  const app = new Hono<AppEnv>();
  app.use('*', requireUser(deps.identity, deps.users));

  app.post('/checkout', async (c) => {
    const body = parseOrThrow(checkoutRequestSchema, await readJson(c.req.raw));
    if (deps.requireVerifiedEmail && c.var.identity.emailVerified === false)
      throw forbidden(CONFIRM_EMAIL_TO_BUY_MESSAGE, CONFIRM_EMAIL_TO_BUY_CODE);
    const spaUrl = spaUrlOf(c.req.raw, deps);
    const serverUrl = serverUrlOf(c.req.raw, deps.publicUrl);
    return c.json(await deps.billing.checkout(c.var.user, body, { successUrl: `${spaUrl}/app/subscription?checkout=success`, serverUrl }));
  });

  app.post('/portal', async (c) => {
    const body = parseOrThrow(portalRequestSchema, await readJson(c.req.raw));
    // A cookie session reaches the server's pages by itself; a hosted SPA's bearer token does not.
    const from =
      deps.identity.transport === 'bearer'
        ? { serverUrl: serverUrlOf(c.req.raw, deps.publicUrl), returnUrl: `${spaUrlOf(c.req.raw, deps)}/app/subscription` }
        : undefined;
    return c.json(await deps.billing.portal(c.var.user, body.customer_id, from));
  });

  app.get('/subscription', async (c) => c.json(await deps.billing.subscriptionOf(c.var.user)));
  return app;
}

/**
 * Webhooks authenticate by signature over the raw bytes, so the body is read once as bytes and never
 * re-serialised. Only the configured provider's endpoint exists.
 */
export function webhookRoutes(deps: { billing: BillingService }) {
  const app = new Hono<AppEnv>();
  app.post(`/${deps.billing.provider}`, async (c) => {
    const raw = Buffer.from(await c.req.arrayBuffer());
    const outcome = await deps.billing.handleWebhook(raw, c.req.raw.headers);
    return c.json({ received: true, outcome });
  });
  return app;
}
