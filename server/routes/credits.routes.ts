import { Hono } from 'hono';
import { historyQuerySchema, spendQuerySchema, topUpRequestSchema, topUpReturnSchema } from '@common/credits.ts';
import { attachmentDisposition } from '@common/media.ts';
import { PRODUCT_NAME } from '@common/product.ts';
import type { IdentityProvider } from '../auth/identity.ts';
import type { AppEnv } from '../http/context.ts';
import { requireUser } from '../http/require-user.ts';
import { parseOrThrow } from '../domain/validate.ts';
import { serverUrlOf, spaUrlOf } from '../http/security.ts';
import { readJson } from '../http/validate.ts';
import type { TopUpsService } from '../services/top-ups.service.ts';
import type { PromoCodesService } from '../services/promo-codes.service.ts';
import { clientAddress, type ProxySettings } from '../http/client-address.ts';
import { promoRedeemSchema } from '@common/promo.ts';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { CreditsHistoryService } from '../services/credits-history.service.ts';
import type { UsersService } from '../services/users.service.ts';
import type { LowBalanceService } from '../services/low-balance.service.ts';

/** Mounted at /api/credits: the credits page (issue 50). */
export function creditsRoutes(deps: {
  identity: IdentityProvider;
  users: UsersService;
  creditsHistory: CreditsHistoryService;
  lowBalance: LowBalanceService;
  topUps: TopUpsService;
  promoCodes: PromoCodesService;
  proxy: ProxySettings;
  publicUrl?: string;
  /** Origins of a hosted SPA served elsewhere (ALLOWED_ORIGINS); people return there after paying. */
  spaOrigins: string[];
}) {
  const app = new Hono<AppEnv>();
  app.use('*', requireUser(deps.identity, deps.users));

  app.get('/history', async (c) => {
    const query = parseOrThrow(historyQuerySchema, c.req.query());
    c.header('Cache-Control', 'no-store');
    return c.json(await deps.creditsHistory.page(c.var.user.id, query));
  });

  app.get('/spend', async (c) => {
    const { days } = parseOrThrow(spendQuerySchema, c.req.query());
    c.header('Cache-Control', 'no-store');
    return c.json(await deps.creditsHistory.spend(c.var.user.id, days));
  });

  // Whether the balance is below what the last paid action cost (the app's low-balance notice).
  app.get('/low-balance', async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await deps.lowBalance.status(c.var.user.id));
  });

  // 'Download CSV': every line (of the chosen kind), streamed as it is read.
  app.get('/history.csv', async (c) => {
    const { kind } = parseOrThrow(historyQuerySchema.pick({ kind: true }), c.req.query());
    const lines = deps.creditsHistory.csv(c.var.user.id, kind);
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await lines.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await lines.return(undefined);
      },
    });
    const day = new Date().toISOString().slice(0, 10);
    return c.body(body, 200, {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': attachmentDisposition(`${PRODUCT_NAME}-credits-${kind ?? 'all'}-${day}.csv`),
      'Cache-Control': 'private, no-store',
    });
  });

  // A credit pack's one-time checkout; the payer comes back to the credits page with a signed return address.
  app.post('/top-ups', async (c) => {
    const { pack } = parseOrThrow(topUpRequestSchema, await readJson(c.req.raw));
    const successUrl = `${spaUrlOf(c.req.raw, deps)}/app/credits`;
    return c.json(await deps.topUps.checkout(c.var.user, pack, { successUrl, serverUrl: serverUrlOf(c.req.raw, deps.publicUrl) }));
  });

  // The return page: credits the order now if its webhook has not (once in all, whichever comes first).
  app.post('/top-ups/return', async (c) => {
    const params = parseOrThrow(topUpReturnSchema, await readJson(c.req.raw));
    return c.json(await deps.topUps.confirmReturn(c.var.user, params));
  });

  // A promo code typed on the credits page.
  app.post('/promo', async (c) => {
    const { code } = parseOrThrow(promoRedeemSchema, await readJson(c.req.raw));
    const address = clientAddress(getConnInfo(c).remote.address, c.req.header('x-forwarded-for'), deps.proxy);
    return c.json(await deps.promoCodes.redeem(c.var.user.id, code, address));
  });

  return app;
}
