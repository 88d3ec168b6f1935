import { randomUUID } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TeamView } from '@common/teams.ts';
import { creditLedger, teamCreditLedger, topUpPurchases } from '../../server/db/schema.ts';
import { SIGNATURE_HEADER } from '../../server/providers/payments/index.ts';
import { isSandboxProvider, type SandboxProvider } from '../../server/providers/payments/sandbox.ts';
import { teamCreditsRepository } from '../../server/repositories/team-credits.repository.ts';
import { applyTeamChange } from '../../server/services/team-credits.service.ts';
import { payCapturingEvent } from '../helpers/sandbox-pay.ts';
import { startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';

/** Issue 49 item 2: team credits bought by the owner through the sandbox's one-time checkout, granted to the team once. */

const postForm = (client: TestClient, path: string) =>
  client.fetch(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });

describe.each(testDatabases())('team credits purchase (%s)', (database) => {
  let ts: TestServer;
  let sandbox: SandboxProvider;
  beforeAll(async () => {
    ts = await startTestServer({ database });
    if (!isSandboxProvider(ts.rt.payments)) throw new Error('the test server runs the sandbox');
    sandbox = ts.rt.payments;
  });
  afterAll(() => ts?.stop());

  const teamBalance = async (teamId: string) => {
    const balance = (await teamCreditsRepository.balance(ts.rt.db, teamId)) ?? -1;
    expect(await teamCreditsRepository.ledgerSum(ts.rt.db, teamId)).toBe(balance);
    return balance;
  };

  it('the owner buys a pack for the team: the webhook grants it to the team’s ledger once; nobody’s personal balance moves', async () => {
    const owner = await ts.signUp({ credits: 100 });
    const res = await owner.client.post('/api/teams', { name: 'Buyers' });
    expect(res.status).toBe(201);
    const team = (await res.json()) as TeamView;

    const started = await owner.client.post(`/api/teams/${team.id}/credits/checkout`, { pack: 'PACK_1500' });
    expect(started.status, await started.clone().text()).toBe(200);
    const path = new URL(((await started.json()) as { checkout_url: string }).checkout_url).pathname;
    expect(await (await owner.client.get(path)).text()).toContain('<p class="total">$24</p>');
    const paid = await postForm(owner.client, `${path}/pay`);
    expect(paid.status).toBe(303);
    const back = new URL(paid.headers.get('location') ?? '', ts.url);
    expect(back.pathname).toBe(`/app/teams/${team.id}`);
    expect(back.searchParams.get('purchase')).toBe('done');

    expect(await teamBalance(team.id)).toBe(1500);
    expect(await ts.rt.credits.balance(owner.userId)).toBe(100);
    const [grant] = await ts.rt.db.select().from(teamCreditLedger).where(eq(teamCreditLedger.teamId, team.id));
    expect(grant).toMatchObject({ delta: 1500, kind: 'grant', userId: owner.userId, reason: 'Team credits bought: 1,500' });
    // The same checkout paid again is the same order (the sandbox delivers the same event): nothing more.
    expect((await postForm(owner.client, `${path}/pay`)).status).toBe(303);
    expect(await teamBalance(team.id)).toBe(1500);
    // The person's return page does not take a team's order as theirs: refused, nothing credited anywhere.
    const returned = await owner.client.post('/api/credits/top-ups/return', Object.fromEntries(back.searchParams));
    expect([400, 403]).toContain(returned.status);
    expect(await ts.rt.credits.balance(owner.userId)).toBe(100);
    expect((await ts.rt.db.select().from(creditLedger).where(eq(creditLedger.userId, owner.userId))).map((l) => l.delta)).toEqual([100]);
    // The team's page shows the balance to the owner.
    expect(((await (await owner.client.get(`/api/teams/${team.id}`)).json()) as TeamView).credits).toBe(1500);
  });

  it('only the owner buys: a manager or member 403, someone outside the team 404, an unknown pack 400; nothing started', async () => {
    const owner = await ts.signUp();
    const team = (await (await owner.client.post('/api/teams', { name: 'Guarded' })).json()) as TeamView;
    const member = await ts.signUp();
    await owner.client.post(`/api/teams/${team.id}/invites`, { text: member.email, send: true });
    const token = decodeURIComponent((await ts.mailedLink(member.email, '/join/')).split('/join/')[1]);
    expect((await member.client.post(`/api/team-invites/${token}/accept`)).status).toBe(200);
    const outsider = await ts.signUp();

    expect((await member.client.post(`/api/teams/${team.id}/credits/checkout`, { pack: 'PACK_500' })).status).toBe(403);
    expect((await outsider.client.post(`/api/teams/${team.id}/credits/checkout`, { pack: 'PACK_500' })).status).toBe(404);
    expect((await owner.client.post(`/api/teams/${team.id}/credits/checkout`, { pack: 'PACK_1' })).status).toBe(400);
    expect(await teamBalance(team.id)).toBe(0);
  });

  const webhook = (event: { body: string; signature: string }) =>
    fetch(`${ts.url}/api/webhooks/sandbox`, {
      method: 'POST',
      body: event.body,
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: event.signature },
    });
  /** The team's spending (a member's team work), as the training and shoot paths write it. */
  const spend = (teamId: string, amount: number) =>
    ts.rt.db.transaction((tx) =>
      applyTeamChange(tx, ts.rt.events, {
        teamId,
        userId: null,
        delta: -amount,
        kind: 'debit',
        reason: 'Team training',
        idempotencyKey: `test-spend:${randomUUID()}`,
      }),
    );
  const teamOrder = async (teamId: string) => (await ts.rt.db.select().from(topUpPurchases).where(eq(topUpPurchases.teamId, teamId)))[0];

  it('a refund or chargeback of a team pack takes back what the team has not spent, once, recorded on the order; nobody’s own balance moves', async () => {
    const owner = await ts.signUp({ credits: 100 });
    const team = (await (await owner.client.post('/api/teams', { name: 'Refunded' })).json()) as TeamView;
    const started = await owner.client.post(`/api/teams/${team.id}/credits/checkout`, { pack: 'PACK_1500' });
    const path = new URL(((await started.json()) as { checkout_url: string }).checkout_url).pathname;
    expect((await postForm(owner.client, `${path}/pay`)).status).toBe(303);
    expect(await teamBalance(team.id)).toBe(1500);
    const order = await teamOrder(team.id);
    expect(order).toMatchObject({ userId: owner.userId, pack: 'PACK_1500', credits: 1500, reversedAt: null });
    expect(order.transactionId).toMatch(/^tran_sbx_/);
    await spend(team.id, 1000);

    // A refund names the payment and its order (Creem's refund object carries both).
    const refund = sandbox.signedEvent('refund.created', {
      id: 'ref_team',
      object: 'refund',
      status: 'succeeded',
      transaction: { id: order.transactionId, object: 'transaction' },
      order: { id: order.orderId, object: 'order' },
      mode: 'sandbox',
    });
    expect((await webhook(refund)).status).toBe(200);
    expect(await teamBalance(team.id)).toBe(0);
    // Credits granted later, then a chargeback of the same order and the refund replayed: nothing more is taken.
    await ts.rt.db.transaction((tx) =>
      applyTeamChange(tx, ts.rt.events, {
        teamId: team.id,
        userId: null,
        delta: 300,
        kind: 'grant',
        reason: 'Goodwill',
        idempotencyKey: `test-grant:${randomUUID()}`,
      }),
    );
    const dispute = sandbox.signedEvent('dispute.created', { id: 'dp_team', object: 'dispute', order: { id: order.orderId } });
    expect((await webhook(dispute)).status).toBe(200);
    expect((await webhook(refund)).status).toBe(200);
    expect(await teamBalance(team.id)).toBe(300);

    const ledger = await ts.rt.db
      .select()
      .from(teamCreditLedger)
      .where(eq(teamCreditLedger.teamId, team.id))
      .orderBy(asc(teamCreditLedger.createdAt));
    expect(ledger.map((l) => [l.delta, l.kind, l.reason])).toEqual([
      [1500, 'grant', 'Team credits bought: 1,500'],
      [-1000, 'debit', 'Team training'],
      [-500, 'adjustment', 'Team credits refunded: 500 unspent credits removed'],
      [300, 'grant', 'Goodwill'],
    ]);
    expect(await teamOrder(team.id)).toMatchObject({ reversedCredits: 500, reversedAt: expect.any(Date) });
    // The owner paid, but the reversal is the team's: their own balance and ledger are as they were.
    expect(await ts.rt.credits.balance(owner.userId)).toBe(100);
    expect(await ts.rt.credits.ledgerSum(owner.userId)).toBe(100);
  });

  it('the owner’s signed return grants the team’s order once, with the webhook and its replays in any order; other teams, members and forgeries are refused', async () => {
    const owner = await ts.signUp();
    const team = (await (await owner.client.post('/api/teams', { name: 'Returned' })).json()) as TeamView;
    const res = await owner.client.post(`/api/teams/${team.id}/credits/checkout`, { pack: 'PACK_500' });
    // The signed return address and event the sandbox's Pay makes, delivered here by the test in any order.
    const { back, event } = await payCapturingEvent(sandbox, ts.url, ((await res.json()) as { checkout_url: string }).checkout_url);
    expect(back.pathname).toBe(`/app/teams/${team.id}`);
    const params = Object.fromEntries(back.searchParams);

    // Another team's owner, a member of this team, and an altered address: refused, nothing granted.
    const other = await ts.signUp();
    const otherTeam = (await (await other.client.post('/api/teams', { name: 'Other' })).json()) as TeamView;
    expect((await other.client.post(`/api/teams/${otherTeam.id}/credits/return`, params)).status).toBe(403);
    expect((await other.client.post(`/api/teams/${team.id}/credits/return`, params)).status).toBe(404);
    const member = await ts.signUp();
    await owner.client.post(`/api/teams/${team.id}/invites`, { text: member.email, send: true });
    const token = decodeURIComponent((await ts.mailedLink(member.email, '/join/')).split('/join/')[1]);
    expect((await member.client.post(`/api/team-invites/${token}/accept`)).status).toBe(200);
    expect((await member.client.post(`/api/teams/${team.id}/credits/return`, params)).status).toBe(403);
    const altered = await owner.client.post(`/api/teams/${team.id}/credits/return`, { ...params, order_id: 'ord_other' });
    expect(altered.status).toBe(400);
    expect(await teamBalance(team.id)).toBe(0);
    expect(await teamBalance(otherTeam.id)).toBe(0);

    const results = await Promise.all([
      owner.client.post(`/api/teams/${team.id}/credits/return`, params),
      webhook(event),
      webhook(event),
      owner.client.post(`/api/teams/${team.id}/credits/return`, params),
      webhook(event),
    ]);
    for (const r of results) expect(r.status).toBe(200);
    const answers = await Promise.all([results[0], results[3]].map((r) => r.json()));
    expect(answers.filter((a) => a.credited).length).toBeLessThanOrEqual(1);
    for (const a of answers) expect(a).toMatchObject({ credits: 500, balance: 500 });
    expect(await teamBalance(team.id)).toBe(500);
    // The webhook told the order's transaction (the return does not): a refund can find it.
    expect(await teamOrder(team.id)).toMatchObject({ pack: 'PACK_500', credits: 500, transactionId: expect.stringMatching(/^tran_sbx_/) });
    expect(await ts.rt.credits.balance(owner.userId)).toBe(0);
  });
});
