import { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { sandboxWebhookUrl } from '../http/loopback-url.ts';
import type { ClerkWebhooksService } from '../services/clerk-webhooks.service.ts';

/** Mounted at /api/webhooks/clerk in Clerk mode: Svix-signed user events, verified over the raw body. */
export function clerkWebhookRoutes(deps: { clerkWebhooks: ClerkWebhooksService }) {
  const app = new Hono<AppEnv>();
  app.post('/', async (c) =>
    c.json({ received: true, outcome: await deps.clerkWebhooks.handle(c.req.raw, { webhookUrl: sandboxWebhookUrl(c) }) }),
  );
  return app;
}
