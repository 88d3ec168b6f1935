import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { creemEnv, startFakeCreem, type FakeCreem } from '../fakes/creem-server.ts';
import { startTestServer, testDatabases, type TestServer } from '../helpers/server.ts';

/**
 * Credit packs in Creem mode (issue 50 item 2): the pack's one-time product bought through Creem's checkout, credited
 * once whether the webhook (delivered twice) or the signed success redirect reports it first; the redirect's
 * signature is checked with the API key.
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
    const paid = await fetch(`${checkout_url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(creem.payments.at(-1)!.deliveries).toEqual([
      { type: 'checkout.completed', status: 200 },
      { type: 'checkout.completed', status: 200 },
    ]);
    const back = new URL(paid.headers.get('location')!);
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

  it('packs are all three products or none in the config', () => {
    const env = creemEnv({ url: creem.url, apiKey, webhookSecret, products });
    expect(() => loadConfig({ ...env, CREEM_PRODUCT_PACK_500: 'prod_x' })).toThrowError(
      /CREEM_PRODUCT_PACK_500, CREEM_PRODUCT_PACK_1500 and CREEM_PRODUCT_PACK_5000: set all three or none/,
    );
    expect(() => loadConfig(env)).not.toThrow();
  });
});
