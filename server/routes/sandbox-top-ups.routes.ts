import { Hono, type Context } from 'hono';
import { topUpPackById } from '@common/plans.ts';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { sandboxWebhookUrl as webhookUrl } from '../http/loopback-url.ts';
import { resolveUser } from '../http/require-user.ts';
import { originCheck } from '../http/security.ts';
import type { SandboxTopUpsService } from '../services/sandbox-top-ups.service.ts';
import type { UsersService } from '../services/users.service.ts';
import type { SandboxTopUpCheckout } from '../providers/payments/sandbox.ts';
import { esc, layout, messagePage } from './sandbox.pages.ts';

function topUpCheckoutPage(checkout: SandboxTopUpCheckout): string {
  const pack = topUpPackById(checkout.pack);
  return layout(
    'Test checkout',
    `<h1>Buy ${esc(pack.label)}</h1>
<dl>
<dt>Pack</dt><dd>${esc(pack.label)}, once (no subscription)</dd>
<dt>Email</dt><dd>${esc(checkout.email)}</dd>
</dl>
<p class="total">$${pack.priceUsd}</p>
<form method="post" action="/sandbox/top-up/${esc(checkout.id)}/pay"><button class="btn primary" type="submit">Pay</button></form>
<a class="btn secondary" href="${esc(checkout.successUrl.split('?')[0])}">Cancel</a>`,
  );
}

/** The sandbox's one-time checkout of a credit pack (mounted at /sandbox/top-up only in sandbox mode). */
export function sandboxTopUpsRoutes(deps: {
  identity: IdentityProvider;
  users: UsersService;
  sandboxTopUps: SandboxTopUpsService;
  publicUrl?: string;
}) {
  const app = new Hono<AppEnv>();
  app.use('*', originCheck({ publicUrl: deps.publicUrl, exemptPrefixes: [] }));
  app.use('*', async (c, next) => {
    c.header('Cache-Control', 'no-store');
    await next();
  });

  /** The checkout and, with cookie sessions, only for its signed-in owner; a hosted SPA's signed link is the authority. */
  async function checkoutOf(c: Context<AppEnv>): Promise<SandboxTopUpCheckout | Response> {
    const bearer = deps.identity.transport === 'bearer';
    const caller = bearer ? undefined : await resolveUser(deps.identity, deps.users, c.req.raw.headers);
    if (!bearer && !caller) {
      return c.html(
        messagePage('Please sign in', 'Sign in to Likeness to continue with this test payment.', { href: '/sign-in', label: 'Sign in' }),
        401,
      );
    }
    const checkout = deps.sandboxTopUps.readCheckout(c.req.param('id') ?? '', caller?.user);
    return (
      checkout ??
      c.html(
        messagePage('Checkout not found', 'This checkout link is invalid or has expired. Start again from your credits page.', {
          href: '/app/credits',
          label: 'Back to credits',
        }),
        404,
      )
    );
  }

  app.get('/:id', async (c) => {
    const checkout = await checkoutOf(c);
    return checkout instanceof Response ? checkout : c.html(topUpCheckoutPage(checkout));
  });

  app.post('/:id/pay', async (c) => {
    const checkout = await checkoutOf(c);
    if (checkout instanceof Response) return checkout;
    return c.redirect(await deps.sandboxTopUps.pay(checkout, webhookUrl(c)), 303);
  });

  return app;
}
