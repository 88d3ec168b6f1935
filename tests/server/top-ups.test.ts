import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryPage } from '@common/credits.ts';
import { TOP_UP_PACKS } from '@common/plans.ts';
import { topUpPurchases } from '../../server/db/schema.ts';
import { SIGNATURE_HEADER } from '../../server/providers/payments/index.ts';
import { isSandboxProvider, type SandboxProvider } from '../../server/providers/payments/sandbox.ts';
import { payCapturingEvent } from '../helpers/sandbox-pay.ts';
import { startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';

/** Issue 50 item 2: one-off credit packs through the sandbox's one-time checkout, credited exactly once. */

function postForm(client: TestClient, path: string) {
  return client.fetch(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
}

describe.each(testDatabases())('top-ups (%s)', (database) => {
  let ts: TestServer;
  let sandbox: SandboxProvider;
  beforeAll(async () => {
    ts = await startTestServer({ database });
    if (!isSandboxProvider(ts.rt.payments)) throw new Error('the test server runs the sandbox');
    sandbox = ts.rt.payments;
  });
  afterAll(() => ts?.stop());

  const balance = (userId: string) => ts.rt.credits.balance(userId);
  const webhook = (event: { body: string; signature: string }) =>
    fetch(`${ts.url}/api/webhooks/sandbox`, {
      method: 'POST',
      body: event.body,
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: event.signature },
    });

  /** Starts a checkout of `pack`, pays it, and answers the signed return address (the webhook has been delivered). */
  async function buy(client: TestClient, pack: string) {
    const res = await client.post('/api/credits/top-ups', { pack });
    expect(res.status, await res.clone().text()).toBe(200);
    const { checkout_url } = (await res.json()) as { checkout_url: string };
    const path = new URL(checkout_url).pathname;
    const page = await client.get(path);
    const pack_ = TOP_UP_PACKS.find((p) => p.id === pack)!;
    expect(await page.text()).toContain(`<p class="total">$${pack_.priceUsd}</p>`);
    const paid = await postForm(client, `${path}/pay`);
    expect(paid.status).toBe(303);
    const back = new URL(paid.headers.get('location') ?? '', ts.url);
    expect(back.pathname).toBe('/app/credits');
    return { path, params: Object.fromEntries(back.searchParams) };
  }

  it('credits a pack once whether the webhook, its replay or the return page reports it, and shows it as a top-up', async () => {
    const { client, userId } = await ts.signUp();
    const { path, params } = await buy(client, 'PACK_1500');
    expect(await balance(userId)).toBe(1500);

    // The return page after the webhook: nothing more; twice, in parallel: nothing more.
    const confirms = await Promise.all([1, 2, 3].map(() => client.post('/api/credits/top-ups/return', params)));
    for (const r of confirms) expect(await r.json()).toEqual({ credited: false, credits: 1500, balance: 1500 });
    // Paying the same checkout again is the same order (the sandbox replays the event under the same id).
    expect((await postForm(client, `${path}/pay`)).status).toBe(303);
    expect(await balance(userId)).toBe(1500);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(1500);

    const { lines } = (await (await client.get('/api/credits/history?kind=topup')).json()) as HistoryPage;
    expect(lines).toMatchObject([{ kind: 'topup', amount: 1500, reason: 'Top-up: 1,500 credits', balance_after: 1500 }]);
  });

  it('credits once when the return page comes first and the webhook and its replays arrive together', async () => {
    const { client, userId } = await ts.signUp();
    const res = await client.post('/api/credits/top-ups', { pack: 'PACK_500' });
    // The signed return address and event the sandbox's Pay makes, delivered here by the test in any order.
    const { back, event } = await payCapturingEvent(sandbox, ts.url, ((await res.json()) as { checkout_url: string }).checkout_url);
    const params = Object.fromEntries(back.searchParams);

    const results = await Promise.all([
      client.post('/api/credits/top-ups/return', params),
      webhook(event),
      webhook(event),
      client.post('/api/credits/top-ups/return', params),
      webhook(event),
    ]);
    for (const r of results) expect(r.status).toBe(200);
    expect(await balance(userId)).toBe(500);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(500);
    const [row] = await ts.rt.db.select().from(topUpPurchases).where(eq(topUpPurchases.userId, userId));
    expect(row).toMatchObject({ pack: 'PACK_500', credits: 500, transactionId: expect.stringMatching(/^tran_sbx_/) });
  });

  it('takes back what is unspent of a refunded or charged-back pack, once, and records it', async () => {
    const { client, userId } = await ts.signUp();
    await buy(client, 'PACK_1500');
    const [row] = await ts.rt.db.select().from(topUpPurchases).where(eq(topUpPurchases.userId, userId));
    await ts.rt.credits.debit(userId, 1000, 'Image generation', `generation:${crypto.randomUUID()}`);
    const refund = sandbox.signedEvent('refund.created', {
      id: 'ref_1',
      object: 'refund',
      transaction: row.transactionId,
      mode: 'sandbox',
    });
    expect((await webhook(refund)).status).toBe(200);
    expect(await balance(userId)).toBe(0);
    // A chargeback of the same order later, and the refund replayed: nothing more is taken.
    await ts.rt.credits.grant(userId, 300, 'Promo', `promo:${crypto.randomUUID()}`);
    expect(
      await webhook(sandbox.signedEvent('dispute.created', { id: 'dp_1', object: 'dispute', transaction: row.transactionId })),
    ).toMatchObject({ status: 200 });
    expect((await webhook(refund)).status).toBe(200);
    expect(await balance(userId)).toBe(300);
    const { lines } = (await (await client.get('/api/credits/history')).json()) as HistoryPage;
    expect(lines.find((l) => l.kind === 'adjustment')).toMatchObject({
      amount: -500,
      reason: 'Top-up refunded: 500 unspent credits removed',
    });
    const [after] = await ts.rt.db.select().from(topUpPurchases).where(eq(topUpPurchases.userId, userId));
    expect(after).toMatchObject({ reversedCredits: 500, reversedAt: expect.any(Date) });
  });

  it('refuses an unknown pack, a forged or altered return address and another account’s return, crediting nothing', async () => {
    const { client, userId } = await ts.signUp();
    for (const pack of ['PACK_100', '500', '', 'pack_500 ', 'x'.repeat(50)]) {
      const res = await client.post('/api/credits/top-ups', { pack });
      expect(res.status, pack).toBe(400);
    }
    expect(((await (await client.post('/api/credits/top-ups', { pack: 'PACK_9' })).json()) as { message: string }).message).toBe(
      'pack: Choose one of the credit packs.',
    );
    expect((await client.post('/api/credits/top-ups', [1, 2])).status).toBe(400);

    const other = await ts.signUp();
    const { params } = await buy(other.client, 'PACK_5000');
    // Another account's signed return: refused.
    const notMine = await client.post('/api/credits/top-ups/return', params);
    expect(notMine.status).toBe(403);
    // The same address with the product changed to a bigger pack, or without its signature: refused.
    for (const forged of [
      { ...params, product_id: 'prod_sandbox_topup_pack_5000', order_id: 'ord_forged' },
      { ...params, signature: '0'.repeat(64) },
      { order_id: 'x' },
    ]) {
      const res = await other.client.post('/api/credits/top-ups/return', forged);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain('could not be checked');
    }
    // A forged webhook (not signed by the sandbox's secret) is refused.
    const forgedEvent = sandbox.signedEvent('checkout.completed', {});
    expect((await webhook({ body: forgedEvent.body, signature: '0'.repeat(64) })).status).toBe(401);
    expect(await balance(userId)).toBe(0);
    expect(await balance(other.userId)).toBe(5000);
  });
});
