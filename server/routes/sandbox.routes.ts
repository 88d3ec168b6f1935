import { Hono, type Context } from 'hono';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { AppError } from '../domain/errors.ts';
import { statusOf } from '../http/error-response.ts';
import { sandboxWebhookUrl as webhookUrl } from '../http/loopback-url.ts';
import { resolveUser } from '../http/require-user.ts';
import { originCheck } from '../http/security.ts';
import type { Logger } from '../logger.ts';
import { PaymentProviderError } from '../providers/payments/index.ts';
import type { SandboxPaymentsService } from '../services/sandbox-payments.service.ts';
import type { UserRow, UsersService } from '../services/users.service.ts';
import type { SandboxCheckout } from '../providers/payments/sandbox.ts';
import { cancelConfirmPage, checkoutPage, messagePage, portalPage, type PortalLinks } from './sandbox.pages.ts';

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

  const back = { href: '/app/subscription', label: 'Return to Likeness' };
  app.onError((err, c) => {
    if (err instanceof AppError) {
      return c.html(messagePage('Something went wrong', err.message, back, c.get('requestId')), statusOf(err));
    }
    if (err instanceof PaymentProviderError) {
      deps.logger.error({ err: err.cause ?? err, requestId: c.get('requestId') }, 'sandbox webhook delivery failed');
      return c.html(messagePage('Payment not completed', err.message, back, c.get('requestId')), 502);
    }
    // Not the path: a checkout address carries the payer's e-mail.
    deps.logger.error({ err, requestId: c.get('requestId') }, 'sandbox page failed');
    return c.html(messagePage('Something went wrong', 'Please try again.', back, c.get('requestId')), 500);
  });

  /** The signed-in owner, or a page asking to sign in. */
  async function signedIn(c: Context<AppEnv>): Promise<UserRow | Response> {
    const caller = await resolveUser(deps.identity, deps.users, c.req.raw.headers);
    if (caller) return caller.user;
    return c.html(
      messagePage('Please sign in', 'Sign in to Likeness to continue with this test payment.', { href: '/sign-in', label: 'Sign in' }),
      401,
    );
  }

  /** A live account by id (the ones signed links name). */
  async function liveUser(id: string): Promise<UserRow | undefined> {
    const user = await deps.users.findById(id);
    return user && !user.erasedAt ? user : undefined;
  }

  const checkoutNotFound = (c: Context<AppEnv>) =>
    c.html(
      messagePage('Checkout not found', 'This checkout link is invalid or has expired. Start again from your plan page.', {
        href: '/app/subscription',
        label: 'Back to plans',
      }),
      404,
    );

  /**
   * The checkout this address stands for and who pays it. With cookie sessions, the signed-in owner. A hosted
   * SPA's session is a bearer token that page loads never carry, so there the signed link names the payer,
   * as a real provider's checkout address does.
   */
  async function checkoutAndPayer(c: Context<AppEnv>): Promise<{ checkout: SandboxCheckout; user: UserRow } | Response> {
    const id = c.req.param('id') ?? '';
    if (deps.identity.transport === 'bearer') {
      const checkout = sandbox.checkoutByLink(id);
      const user = checkout && (await liveUser(checkout.userId));
      return checkout && user ? { checkout, user } : checkoutNotFound(c);
    }
    const user = await signedIn(c);
    if (user instanceof Response) return user;
    const checkout = sandbox.readCheckout(id, user);
    return checkout ? { checkout, user } : checkoutNotFound(c);
  }

  /** Who the portal acts for, and how its links keep that (same rule as checkoutAndPayer; the link carries `access`). */
  async function portalVisitor(c: Context<AppEnv>): Promise<{ user: UserRow; links: PortalLinks } | Response> {
    if (deps.identity.transport === 'bearer') {
      const token = c.req.query('access') ?? '';
      const access = sandbox.portalAccess(token, c.req.param('customerId') ?? '');
      const user = access && (await liveUser(access.userId));
      if (access && user) return { user, links: { query: `?access=${encodeURIComponent(token)}`, returnUrl: access.returnUrl } };
      return c.html(
        messagePage('Link expired', 'This portal link is invalid or has expired. Open the portal again from your plan page.', {
          href: '/app/subscription',
          label: 'Back to plans',
        }),
        403,
      );
    }
    const user = await signedIn(c);
    if (user instanceof Response) return user;
    return { user, links: { query: '', returnUrl: '/app/subscription' } };
  }

  app.get('/checkout/:id', async (c) => {
    const found = await checkoutAndPayer(c);
    if (found instanceof Response) return found;
    // A hosted SPA lives elsewhere: back to the page the checkout was started from, minus its success flag.
    const plansPage = deps.identity.transport === 'bearer' ? found.checkout.successUrl.split('?')[0] : '/app/subscription';
    const cancelUrl = `${plansPage}?checkout=cancelled`;
    return c.html(checkoutPage(found.checkout, cancelUrl));
  });

  app.post('/checkout/:id/pay', async (c) => {
    const found = await checkoutAndPayer(c);
    if (found instanceof Response) return found;
    await sandbox.pay(found.checkout, found.user, webhookUrl(c));
    return c.redirect(found.checkout.successUrl, 303);
  });

  app.get('/portal/:customerId', async (c) => {
    const visitor = await portalVisitor(c);
    if (visitor instanceof Response) return visitor;
    const customerId = c.req.param('customerId');
    return c.html(portalPage(customerId, await sandbox.current(visitor.user, customerId), visitor.links, c.req.query('done')));
  });

  // The portal asks before cancelling, and says until when the plan stays.
  app.get('/portal/:customerId/cancel', async (c) => {
    const visitor = await portalVisitor(c);
    if (visitor instanceof Response) return visitor;
    const customerId = c.req.param('customerId');
    return c.html(cancelConfirmPage(customerId, await sandbox.current(visitor.user, customerId), visitor.links));
  });

  app.post('/portal/:customerId/:action{plan|cancel|resume|end|renew}', async (c) => {
    const visitor = await portalVisitor(c);
    if (visitor instanceof Response) return visitor;
    const { user, links } = visitor;
    const customerId = c.req.param('customerId');
    const url = webhookUrl(c);
    let done: string;
    switch (c.req.param('action')) {
      case 'plan': {
        // A body that is not a form names no plan: 'Unknown plan.' (400), as an empty one does.
        const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
        done = await sandbox.switchPlan(user, customerId, String(form.plan ?? ''), url);
        break;
      }
      case 'cancel':
        await sandbox.scheduleCancel(user, customerId, url);
        done = 'canceled';
        break;
      case 'resume':
        await sandbox.resume(user, customerId, url);
        done = 'resumed';
        break;
      case 'end':
        await sandbox.endPeriod(user, customerId, url);
        done = 'ended';
        break;
      default:
        await sandbox.renew(user, customerId, url);
        done = 'renewed';
    }
    const query = links.query ? `${links.query}&done=${done}` : `?done=${done}`;
    return c.redirect(`/sandbox/portal/${encodeURIComponent(customerId)}${query}`, 303);
  });

  return app;
}
