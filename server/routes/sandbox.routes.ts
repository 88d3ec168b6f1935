import type { IncomingMessage } from 'node:http';
import { Hono, type Context } from 'hono';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { AppError } from '../http/errors.ts';
import { resolveUser } from '../http/require-user.ts';
import { originCheck } from '../http/security.ts';
import type { Logger } from '../logger.ts';
import { PaymentProviderError } from '../providers/payments/index.ts';
import type { SandboxPaymentsService } from '../services/sandbox-payments.service.ts';
import type { UserRow, UsersService } from '../services/users.service.ts';
import { checkoutPage, messagePage, portalPage } from './sandbox.pages.ts';

/**
 * The product's own webhook endpoint, reached over loopback on the address this request arrived at, so
 * the sandbox's events travel the same HTTP path as a real provider's.
 */
function webhookUrl(c: Context<AppEnv>): string {
  const socket = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
  let origin = new URL(c.req.url).origin;
  if (socket?.localAddress && socket.localPort) {
    const host = socket.localAddress.replace(/^::ffff:/, '');
    origin = `http://${host.includes(':') ? `[${host}]` : host}:${socket.localPort}`;
  }
  return `${origin}/api/webhooks/sandbox`;
}

/** The sandbox payment service's checkout and portal pages (mounted at /sandbox only in sandbox mode). */
export function sandboxRoutes(deps: {
  identity: IdentityProvider;
  users: UsersService;
  sandboxPayments: SandboxPaymentsService;
  publicUrl?: string;
  logger: Logger;
}) {
  const app = new Hono<AppEnv>();
  const { sandboxPayments: sandbox } = deps;

  // These forms change state, so they get the same cross-site check as the API.
  app.use('*', originCheck({ publicUrl: deps.publicUrl, exemptPrefixes: [] }));
  app.use('*', async (c, next) => {
    c.header('Cache-Control', 'no-store');
    await next();
  });

  app.onError((err, c) => {
    if (err instanceof AppError) {
      return c.html(messagePage('Something went wrong', err.message, { href: '/app/subscription', label: 'Return to Likeness' }), err.status);
    }
    if (err instanceof PaymentProviderError) {
      deps.logger.error({ err: err.cause ?? err }, 'sandbox webhook delivery failed');
      return c.html(messagePage('Payment not completed', err.message, { href: '/app/subscription', label: 'Return to Likeness' }), 502);
    }
    deps.logger.error({ err, path: c.req.path }, 'sandbox page failed');
    return c.html(messagePage('Something went wrong', 'Please try again.', { href: '/app/subscription', label: 'Return to Likeness' }), 500);
  });

  /** The signed-in owner, or a page asking to sign in. */
  async function signedIn(c: Context<AppEnv>): Promise<UserRow | Response> {
    const caller = await resolveUser(deps.identity, deps.users, c.req.raw.headers);
    if (caller) return caller.user;
    return c.html(messagePage('Please sign in', 'Sign in to Likeness to continue with this test payment.', { href: '/sign-in', label: 'Sign in' }), 401);
  }

  function checkoutOr404(c: Context<AppEnv>, user: UserRow) {
    const checkout = sandbox.readCheckout(c.req.param('id') ?? '', user);
    if (checkout) return checkout;
    return c.html(messagePage('Checkout not found', 'This checkout link is invalid or has expired. Start again from your plan page.', { href: '/app/subscription', label: 'Back to plans' }), 404);
  }

  app.get('/checkout/:id', async (c) => {
    const user = await signedIn(c);
    if (user instanceof Response) return user;
    const checkout = checkoutOr404(c, user);
    if (checkout instanceof Response) return checkout;
    return c.html(checkoutPage(checkout));
  });

  app.post('/checkout/:id/pay', async (c) => {
    const user = await signedIn(c);
    if (user instanceof Response) return user;
    const checkout = checkoutOr404(c, user);
    if (checkout instanceof Response) return checkout;
    await sandbox.pay(checkout, user, webhookUrl(c));
    return c.redirect(checkout.successUrl, 303);
  });

  app.get('/portal/:customerId', async (c) => {
    const user = await signedIn(c);
    if (user instanceof Response) return user;
    const customerId = c.req.param('customerId');
    return c.html(portalPage(customerId, await sandbox.current(user, customerId), c.req.query('done')));
  });

  app.post('/portal/:customerId/:action{plan|cancel|renew}', async (c) => {
    const user = await signedIn(c);
    if (user instanceof Response) return user;
    const customerId = c.req.param('customerId');
    const url = webhookUrl(c);
    let done: string;
    switch (c.req.param('action')) {
      case 'plan': {
        const form = await c.req.parseBody();
        done = await sandbox.switchPlan(user, customerId, String(form.plan ?? ''), url);
        break;
      }
      case 'cancel':
        await sandbox.cancel(user, customerId, url);
        done = 'canceled';
        break;
      default:
        await sandbox.renew(user, customerId, url);
        done = 'renewed';
    }
    return c.redirect(`/sandbox/portal/${encodeURIComponent(customerId)}?done=${done}`, 303);
  });

  return app;
}
