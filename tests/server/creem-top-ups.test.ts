import { createHmac, randomBytes } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TeamView } from '@common/teams.ts';
import { loadConfig } from '../../server/config.ts';
import { teamCreditLedger, topUpPurchases } from '../../server/db/schema.ts';
import { teamCreditsRepository } from '../../server/repositories/team-credits.repository.ts';
import { applyTeamChange } from '../../server/services/team-credits.service.ts';
import { creemEnv, signedWebhook, startFakeCreem, type FakeCreem } from '../fakes/creem-server.ts';
import { startTestServer, testDatabases, type TestServer } from '../helpers/server.ts';

/**
 * Credit packs in Creem mode (issue 50 item 2): the pack's one-time product bought through Creem's checkout, credited
 * once whether the webhook (delivered twice) or the signed success redirect reports it first; the redirect's
 * signature is checked with the API key. The same for a pack an owner buys for their team (issue 49 item 2).
 */
describe.each(testDatabases())('credit packs at Creem (%s)', (database) => {
  const apiKey = 'creem_test_top_ups';
  const products = { BASIC: 'prod_basic_tu', STANDARD: 'prod_standard_tu', PROFESSIONAL: 'prod_pro_tu' };
  const packs = { PACK_500: 'prod_pack_500', PACK_1500: 'prod_pack_1500', PACK_5000: 'prod_pack_5000' };
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  const hook = { url: '', secret: webhookSecret };
  let creem: FakeCreem;
  let ts: TestServer;
  beforeAll(async () => {
    creem = await startFakeCreem({
      apiKey,
      products: [...Object.values(products), ...Object.values(packs)],
      oneTimeProducts: Object.values(packs),
      webhook: hook,
    });
    ts = await startTestServer({
      database,
      env: {
        ...creemEnv({ url: creem.url, apiKey, webhookSecret, products }),
        CREEM_PRODUCT_PACK_500: packs.PACK_500,
        CREEM_PRODUCT_PACK_1500: packs.PACK_1500,
        CREEM_PRODUCT_PACK_5000: packs.PACK_5000,
      },
    });
    hook.url = `${ts.url}/api/webhooks/creem`;
  }, 180_000);
  afterAll(async () => {
    await ts?.stop();
    await creem?.stop();
  });

  /** Pays a one-time checkout on the fake's page: its checkout.completed is delivered twice; answers the redirect. */
  async function pay(checkoutUrl: string): Promise<URL> {
    const paid = await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(creem.payments.at(-1)!.deliveries).toEqual([
      { type: 'checkout.completed', status: 200 },
      { type: 'checkout.completed', status: 200 },
    ]);
    return new URL(paid.headers.get('location')!);
  }

  it('buys a pack through its one-time product: credited once by the replayed webhook and the signed return together', async () => {
    const { client, userId, email } = await ts.signUp();
    const res = await client.post('/api/credits/top-ups', { pack: 'PACK_1500' });
    expect(res.status).toBe(200);
    const { checkout_url } = await res.json();
    const asked = creem.checkouts.at(-1)!;
    expect(asked).toMatchObject({
      product_id: packs.PACK_1500,
      customer: { email },
      success_url: `${ts.url}/app/credits`,
      metadata: { userId, pack: 'PACK_1500' },
    });
    expect(String(asked.request_id)).toMatch(new RegExp(`^top_${userId}_`));

    // Pay: checkout.completed of the order, delivered twice, then back with the signed redirect.
    const back = await pay(checkout_url);
    expect(back.pathname).toBe('/app/credits');
    const params = Object.fromEntries(back.searchParams);
    expect(params).toMatchObject({ product_id: packs.PACK_1500, request_id: asked.request_id });

    const returned = await client.post('/api/credits/top-ups/return', params);
    expect(returned.status).toBe(200);
    expect(await returned.json()).toEqual({ credited: false, credits: 1500, balance: 1500 });
    // Sent again (a reload): still once.
    expect(await (await client.post('/api/credits/top-ups/return', params)).json()).toMatchObject({ credited: false, balance: 1500 });

    const history = await (await client.get('/api/credits/history?kind=topup')).json();
    expect(history.lines.map((l: { amount: number; reason: string }) => [l.amount, l.reason])).toEqual([[1500, 'Top-up: 1,500 credits']]);
  });

  it('credits on the signed return when the webhook has not come; refuses a forged or altered return', async () => {
    const { client, userId } = await ts.signUp();
    await client.post('/api/credits/top-ups', { pack: 'PACK_500' });
    const requestId = String(creem.checkouts.at(-1)!.request_id);
    const { createHmac } = await import('node:crypto');
    const sign = (p: Record<string, string>, key: string) =>
      createHmac('sha256', key)
        .update(
          Object.keys(p)
            .sort()
            .map((k) => `${k}=${p[k]}`)
            .join('&'),
        )
        .digest('hex');
    const params = { checkout_id: 'ch_early', order_id: `ord_${userId.slice(0, 8)}`, product_id: packs.PACK_500, request_id: requestId };

    // Signed with anything but the API key (the webhook secret, say), or altered after signing: refused, nothing credited.
    const forged = await client.post('/api/credits/top-ups/return', { ...params, signature: sign(params, webhookSecret) });
    expect(forged.status).toBe(400);
    const altered = await client.post('/api/credits/top-ups/return', {
      ...params,
      product_id: packs.PACK_5000,
      signature: sign(params, apiKey),
    });
    expect(altered.status).toBe(400);
    expect((await (await client.get('/api/me')).json()).credits).toBe(0);

    const ok = await client.post('/api/credits/top-ups/return', { ...params, signature: sign(params, apiKey) });
    expect(await ok.json()).toEqual({ credited: true, credits: 500, balance: 500 });
  });

  it('buys a team pack at Creem: the team’s checkout, the replayed webhook and the owner’s signed return grant the team once; a refund takes back what is unspent, once', async () => {
    const owner = await ts.signUp();
    const team = (await (await owner.client.post('/api/teams', { name: 'Creem Team' })).json()) as TeamView;
    const teamBalance = async () => {
      const balance = (await teamCreditsRepository.balance(ts.rt.db, team.id)) ?? -1;
      expect(await teamCreditsRepository.ledgerSum(ts.rt.db, team.id)).toBe(balance);
      return balance;
    };
    const res = await owner.client.post(`/api/teams/${team.id}/credits/checkout`, { pack: 'PACK_1500' });
    expect(res.status, await res.clone().text()).toBe(200);
    const { checkout_url } = await res.json();
    const asked = creem.checkouts.at(-1)!;
    expect(asked).toMatchObject({
      product_id: packs.PACK_1500,
      customer: { email: owner.email },
      success_url: `${ts.url}/app/teams/${team.id}?purchase=done`,
      metadata: { userId: owner.userId, pack: 'PACK_1500' },
    });
    expect(String(asked.request_id)).toMatch(new RegExp(`^team_${team.id.replace(/-/g, '')}_`));

    // Pay: checkout.completed delivered twice, then back on the team page with the signed redirect.
    const back = await pay(checkout_url);
    expect(back.pathname).toBe(`/app/teams/${team.id}`);
    expect(back.searchParams.get('purchase')).toBe('done');
    const params = Object.fromEntries(back.searchParams);
    for (let i = 0; i < 2; i++) {
      const returned = await owner.client.post(`/api/teams/${team.id}/credits/return`, params);
      expect(returned.status).toBe(200);
      expect(await returned.json()).toEqual({ credited: false, credits: 1500, balance: 1500 });
    }
    expect(await teamBalance()).toBe(1500);
    // The person's own return page does not take the team's order: refused, the owner's balance untouched.
    expect((await owner.client.post('/api/credits/top-ups/return', params)).status).toBe(403);
    expect((await (await owner.client.get('/api/me')).json()).credits).toBe(0);

    // A second pack whose redirect comes before any webhook: the signed return grants it, once.
    await owner.client.post(`/api/teams/${team.id}/credits/checkout`, { pack: 'PACK_500' });
    const early = {
      checkout_id: 'ch_team_early',
      order_id: `ord_team_${team.id.slice(0, 8)}`,
      product_id: packs.PACK_500,
      request_id: String(creem.checkouts.at(-1)!.request_id),
    };
    const signature = createHmac('sha256', apiKey)
      .update(
        Object.keys(early)
          .sort()
          .map((k) => `${k}=${early[k as keyof typeof early]}`)
          .join('&'),
      )
      .digest('hex');
    const first = await owner.client.post(`/api/teams/${team.id}/credits/return`, { ...early, signature });
    expect(await first.json()).toEqual({ credited: true, credits: 500, balance: 2000 });
    expect(await (await owner.client.post(`/api/teams/${team.id}/credits/return`, { ...early, signature })).json()).toMatchObject({
      credited: false,
      balance: 2000,
    });

    // The team spends 1,800; then the first order is refunded at Creem (delivered twice, and again under a new
    // event id): the 200 left is taken back once, and the order records it.
    await ts.rt.db.transaction((tx) =>
      applyTeamChange(tx, ts.rt.events, {
        teamId: team.id,
        userId: owner.userId,
        delta: -1800,
        kind: 'debit',
        reason: 'Team shoot',
        idempotencyKey: `test-spend:${team.id}`,
      }),
    );
    const orderId = params.order_id;
    const refund = {
      id: 'ref_team_1',
      object: 'refund',
      status: 'succeeded',
      transaction: { id: orderId.replace(/^ord_/, 'tran_'), object: 'transaction' },
      order: { id: orderId },
      mode: 'test',
    };
    const deliver = (d: { body: string; headers: Record<string, string> }) =>
      fetch(`${ts.url}/api/webhooks/creem`, { method: 'POST', headers: d.headers, body: d.body });
    const delivery = signedWebhook(webhookSecret, 'refund.created', refund);
    for (const d of [delivery, delivery, signedWebhook(webhookSecret, 'refund.created', refund)])
      expect((await deliver(d)).status).toBe(200);
    expect(await teamBalance()).toBe(0);
    const [order] = await ts.rt.db.select().from(topUpPurchases).where(eq(topUpPurchases.orderId, orderId));
    expect(order).toMatchObject({
      teamId: team.id,
      userId: owner.userId,
      credits: 1500,
      reversedCredits: 200,
      reversedAt: expect.any(Date),
    });
    const ledger = await ts.rt.db
      .select()
      .from(teamCreditLedger)
      .where(eq(teamCreditLedger.teamId, team.id))
      .orderBy(asc(teamCreditLedger.createdAt));
    expect(ledger.map((l) => [l.delta, l.reason])).toEqual([
      [1500, 'Team credits bought: 1,500'],
      [500, 'Team credits bought: 500'],
      [-1800, 'Team shoot'],
      [-200, 'Team credits refunded: 200 unspent credits removed'],
    ]);
    expect((await (await owner.client.get('/api/me')).json()).credits).toBe(0);
  });

  it('packs are all three products or none in the config', () => {
    const env = creemEnv({ url: creem.url, apiKey, webhookSecret, products });
    expect(() => loadConfig({ ...env, CREEM_PRODUCT_PACK_500: 'prod_x' })).toThrowError(
      /CREEM_PRODUCT_PACK_500, CREEM_PRODUCT_PACK_1500 and CREEM_PRODUCT_PACK_5000: set all three or none/,
    );
    expect(() => loadConfig(env)).not.toThrow();
  });
});
