import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeHistoryCursor, type HistoryPage, type LedgerLine, type SpendSummary } from '@common/credits.ts';
import { loraTrainings, photoPacks, photoShoots, shootPhotos } from '../../server/db/schema.ts';
import { paidJobDebitKey } from '../../server/services/paid-jobs.ts';
import { cancelRefundKey, photoRefundKey, shootDebitKey } from '../../server/services/shoots.service.ts';
import { trainingDebitKey } from '../../server/services/trainings.service.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import { startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';

/** Issue 50 item 1: the credits page's history, its CSV and the spend sums, over the real HTTP API. */

const history = async (client: TestClient, query = '') => {
  const res = await client.get(`/api/credits/history${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as HistoryPage;
};

function postForm(client: TestClient, path: string) {
  return client.fetch(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
}

describe.each(testDatabases())('credits history (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database });
  });
  afterAll(() => ts?.stop());

  it('shows every kind of ledger line, newest first, with its balance after and a link to its image, shoot or character', async () => {
    const { client, userId, email } = await ts.signUp();
    // A plan bought in the sandbox: the plan grant.
    const { checkout_url } = await (await client.post('/api/billing/checkout', { plan: 'BASIC', userId, email })).json();
    expect((await postForm(client, `${new URL(checkout_url).pathname}/pay`)).status).toBe(303);

    // A generation, its upscale and an edit through the API (likeness_start_paid_job writes these debits).
    const gen = await client.post('/api/image/generate-image', generationRequestBody({ seed: 7 }));
    expect(gen.status).toBe(200);
    const source = (await gen.json()).generation as { id: string };
    const up = await client.post('/api/image/upscale', { generation_id: source.id, factor: 2 });
    expect(up.status).toBe(200);
    const upscaled = (await up.json()).generation as { id: string };
    const ed = await client.post(
      '/api/image/edit',
      generationRequestBody({ prompt: 'in a red jacket', seed: 3, source_id: source.id, strength: 0.5 }),
    );
    expect(ed.status).toBe(200);
    const edited = (await ed.json()).generation as { id: string };

    // A character's training, a shoot and its refunds, a prompt extraction: the keys their services write.
    const [character] = await ts.rt.db
      .insert(loraTrainings)
      .values({ userId, characterName: 'Mara', triggerWord: 'mara', status: 'COMPLETED' })
      .returning();
    const [pack] = await ts.rt.db.select().from(photoPacks).limit(1);
    const [shoot] = await ts.rt.db
      .insert(photoShoots)
      .values({ userId, packId: pack.id, loraId: character.id, packName: pack.name, characterName: 'Mara', photoCount: 2, cost: 20 })
      .returning();
    const [photo] = await ts.rt.db
      .insert(shootPhotos)
      .values({ shootId: shoot.id, userId, position: 0, prompt: 'p', width: 512, height: 512, seed: 1 })
      .returning();
    const c = ts.rt.credits;
    await c.debit(userId, 500, 'character training: Mara', trainingDebitKey(character.id));
    await c.refund(userId, 500, 'character training failed', trainingDebitKey(character.id));
    await c.debit(userId, 20, 'Photo shoot: x (2 photos)', shootDebitKey(shoot.id));
    await c.refund(userId, 10, 'Refund: photo shoot photo failed', photoRefundKey(photo.id));
    await c.refund(userId, 10, 'Refund: photo shoot cancelled', cancelRefundKey(shoot.id));
    await c.debit(userId, 2, 'Detailed caption', paidJobDebitKey({ kind: 'caption', id: randomUUID() }));
    await c.grant(userId, 500, 'Top-up: 500 credits', `topup:sandbox:tx:${randomUUID()}`);
    await c.grant(userId, 50, 'Promo code LAUNCH', `promo:${randomUUID()}:${userId}`);
    await c.apply({ userId, delta: -5, kind: 'adjustment', reason: 'Operator: fix', idempotencyKey: `admin:${randomUUID()}` });

    const { lines, next_cursor } = await history(client);
    expect(next_cursor).toBeNull();
    const shape = lines.map((l) => [l.kind, l.amount, l.link]);
    expect(shape).toEqual([
      ['adjustment', -5, null],
      ['promo', 50, null],
      ['topup', 500, null],
      ['prompt', -2, null],
      ['refund', 10, { type: 'shoot', id: shoot.id }],
      ['refund', 10, { type: 'shoot', id: shoot.id }],
      ['shoot', -20, { type: 'shoot', id: shoot.id }],
      ['refund', 500, { type: 'character', id: character.id }],
      ['training', -500, { type: 'character', id: character.id }],
      ['edit', -10, { type: 'image', id: edited.id }],
      ['upscale', -5, { type: 'image', id: upscaled.id }],
      ['generation', -10, { type: 'image', id: source.id }],
      ['plan', 1500, null],
    ]);
    // Each line's balance after follows from the one before it.
    for (let i = 0; i < lines.length - 1; i++) expect(lines[i].balance_after).toBe(lines[i + 1].balance_after + lines[i].amount);
    expect(lines[0].balance_after).toBe(await ts.rt.credits.balance(userId));
    expect(lines.at(-1)).toMatchObject({ balance_after: 1500, reason: expect.stringContaining('Basic plan credits') });

    // Filtered by kind.
    expect((await history(client, '?kind=refund')).lines.map((l) => l.amount)).toEqual([10, 10, 500]);
    expect((await history(client, '?kind=upscale')).lines.map((l) => l.link)).toEqual([{ type: 'image', id: upscaled.id }]);

    // Someone else sees none of it.
    const other = await ts.signUp();
    expect((await history(other.client)).lines.filter((l) => l.kind !== 'adjustment')).toEqual([]);

    // This period's spend by kind and the spend per day.
    const spend = (await (await client.get('/api/credits/spend?days=90')).json()) as SpendSummary;
    expect(Object.fromEntries(spend.by_kind.map((k) => [k.kind, k.credits]))).toEqual({
      generation: 10,
      shoot: 20,
      upscale: 5,
      edit: 10,
      training: 500,
      prompt: 2,
    });
    expect(spend.refunded).toBe(520);
    expect(spend.per_day).toHaveLength(90);
    expect(spend.per_day.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), credits: 547 - 520 });
    expect(spend.per_day.slice(0, -1).every((d) => d.credits === 0)).toBe(true);
    expect(((await (await client.get('/api/credits/spend')).json()) as SpendSummary).per_day).toHaveLength(30);
  }, 60_000);

  it('pages by keyset without skipping or repeating a line, and streams the whole history as CSV', async () => {
    const { client, userId } = await ts.signUp();
    for (let i = 1; i <= 120; i++)
      await ts.rt.credits.grant(userId, i, i === 7 ? '=HYPERLINK("x"), "quoted"' : `Grant ${i}`, `promo:${randomUUID()}`);
    const seen: LedgerLine[] = [];
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null) {
      const page: HistoryPage = await history(client, cursor ? `?cursor=${encodeURIComponent(cursor)}` : '');
      seen.push(...page.lines);
      cursor = page.next_cursor;
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen.map((l) => l.amount)).toEqual(Array.from({ length: 120 }, (_, i) => 120 - i));

    const csv = await client.get('/api/credits/history.csv?kind=promo');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('content-disposition')).toMatch(/attachment; filename="?[^"]*credits-promo-/);
    const rows = (await csv.text()).trimEnd().split('\r\n');
    expect(rows[0]).toBe('Date (UTC),Kind,Description,Amount,Balance after,Link');
    expect(rows).toHaveLength(121);
    expect(rows[1]).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z,Promo,Grant 120,120,7260,$/);
    // A formula is made inert and quotes are escaped.
    expect(rows).toContain(`${seen[113].created_at},Promo,"'=HYPERLINK(""x""), ""quoted""",7,28,`);
  }, 60_000);

  it('refuses a bad kind, a forged cursor and a bad range with a clear message', async () => {
    const { client } = await ts.signUp();
    const bad = async (path: string, message: string) => {
      const res = await client.get(path);
      expect(res.status).toBe(400);
      expect((await res.json()).message ?? '').toContain(message);
    };
    await bad('/api/credits/history?kind=bitcoin', 'kind: must be one of generation');
    await bad('/api/credits/history?cursor=nonsense', 'cursor: is not a page of this list');
    await bad(
      `/api/credits/history?cursor=${encodeURIComponent(encodeHistoryCursor({ at: '2026-13-45 99:00:00+00', id: randomUUID() }))}`,
      'cursor',
    );
    await bad("/api/credits/history?cursor=2026-01-01 00:00:00+00|1' or 1=1", 'cursor');
    await bad('/api/credits/spend?days=365', 'days: must be 30 or 90');
    await bad('/api/credits/history.csv?kind=nope', 'kind');
    expect((await ts.client().get('/api/credits/history')).status).toBe(401);
  });
});
