import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROMO_TEXTS } from '@common/promo.ts';
import { promoCodes, rateLimits, users } from '../../server/db/schema.ts';
import { admin } from '../helpers/admin.ts';
import {
  createScratchDatabase,
  startTestServer,
  TEST_AUTH_SECRET,
  testDatabases,
  type TestClient,
  type TestServer,
} from '../helpers/server.ts';

/** Issue 50 item 3: promo codes, created by an operator and redeemed on the credits page. */

let n = 0;
const uniqueCode = (prefix = 'CODE') => `${prefix}${Date.now().toString(36).toUpperCase()}${n++}`;

describe.each(testDatabases())('promo codes (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database });
  });
  afterAll(() => ts?.stop());

  const redeem = async (client: TestClient, code: unknown) => {
    const res = await client.post('/api/credits/promo', { code });
    return { status: res.status, body: (await res.json()) as { message?: string; credits?: number; balance?: number } };
  };
  /** Accounts without sessions, for the service's own parallel test (each a users row). */
  async function accounts(count: number): Promise<string[]> {
    const rows = await ts.rt.db
      .insert(users)
      .values(Array.from({ length: count }, (_, i) => ({ clerkId: `promo-${uniqueCode()}-${i}` })))
      .returning({ id: users.id });
    return rows.map((r) => r.id);
  }

  it('redeems a code once per account, normalising spaces and case, and shows it as a promo line', async () => {
    const { client, userId } = await ts.signUp();
    const code = uniqueCode('LAUNCH');
    await ts.rt.promoCodes.create({ code: code.toLowerCase(), credits: 250, maxRedemptions: 10, expiresAt: null, accountId: null });
    const typed = ` ${code.slice(0, 3).toLowerCase()} ${code.slice(3)}  `;
    expect(await redeem(client, typed)).toEqual({ status: 200, body: { credits: 250, balance: 250 } });
    expect(await redeem(client, code)).toMatchObject({ status: 409, body: { message: PROMO_TEXTS.alreadyRedeemed } });
    expect(await ts.rt.credits.balance(userId)).toBe(250);
    const history = await (await client.get('/api/credits/history?kind=promo')).json();
    expect(history.lines).toMatchObject([{ kind: 'promo', amount: 250, reason: `Promo code ${code}` }]);
  });

  it('says clearly why a code cannot be used: unknown, expired, used up, disabled, another account’s', async () => {
    const { client, userId } = await ts.signUp();
    const other = await ts.signUp();
    expect(await redeem(client, 'NO-SUCH-CODE')).toMatchObject({ status: 404, body: { message: PROMO_TEXTS.unknown } });
    const expired = uniqueCode('OLD');
    await ts.rt.promoCodes.create({
      code: expired,
      credits: 5,
      maxRedemptions: 5,
      expiresAt: new Date(Date.now() + 60_000),
      accountId: null,
    });
    await ts.rt.db
      .update(promoCodes)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(promoCodes.code, expired));
    expect(await redeem(client, expired)).toMatchObject({ status: 410, body: { message: PROMO_TEXTS.expired } });
    const single = uniqueCode('ONE');
    await ts.rt.promoCodes.create({ code: single, credits: 5, maxRedemptions: 1, expiresAt: null, accountId: null });
    expect((await redeem(other.client, single)).status).toBe(200);
    expect(await redeem(client, single)).toMatchObject({ status: 409, body: { message: PROMO_TEXTS.usedUp } });
    const disabled = uniqueCode('OFF');
    await ts.rt.promoCodes.create({ code: disabled, credits: 5, maxRedemptions: 5, expiresAt: null, accountId: null });
    await ts.rt.promoCodes.disable(disabled.toLowerCase());
    expect(await redeem(client, disabled)).toMatchObject({ status: 404, body: { message: PROMO_TEXTS.unknown } });
    const theirs = uniqueCode('VIP');
    await ts.rt.promoCodes.create({ code: theirs, credits: 5, maxRedemptions: 5, expiresAt: null, accountId: other.userId });
    expect(await redeem(client, theirs)).toMatchObject({ status: 404, body: { message: PROMO_TEXTS.unknown } });
    for (const bad of ['', 'a', 'x'.repeat(41), 'no!', 42, null]) expect((await redeem(client, bad)).status, String(bad)).toBe(400);
    expect(await ts.rt.credits.balance(userId)).toBe(0);
  });

  it('takes the last use once under 20 parallel redemptions, and one account’s 20 parallel tries grant once', async () => {
    const code = uniqueCode('LAST');
    await ts.rt.promoCodes.create({ code, credits: 100, maxRedemptions: 3, expiresAt: null, accountId: null });
    const [first, second, ...crowd] = await accounts(22);
    for (const id of [first, second]) await ts.rt.promoCodes.redeem(id, code, `10.0.0.${id.slice(0, 2)}`);
    const results = await Promise.allSettled(crowd.map((id, i) => ts.rt.promoCodes.redeem(id, code, `10.1.${i}.1`)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as Error).message).toBe(PROMO_TEXTS.usedUp);
    const [row] = await ts.rt.db.select().from(promoCodes).where(eq(promoCodes.code, code));
    expect(row.redeemedCount).toBe(3);

    const many = uniqueCode('MANY');
    await ts.rt.promoCodes.create({ code: many, credits: 7, maxRedemptions: 100, expiresAt: null, accountId: null });
    const [one] = await accounts(1);
    const tries = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => ts.rt.promoCodes.redeem(one, many, `10.2.${i}.1`)));
    expect(tries.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    // 20 tries of one account in an hour: the rate limit refused those past 10, the others found it redeemed.
    expect(await ts.rt.credits.balance(one)).toBe(7);
  });

  it('allows 10 attempts an hour per account and per client address', async () => {
    // Every request of this file came from 127.0.0.1, whose hour is already used up: start its count afresh.
    await ts.rt.db.delete(rateLimits).where(eq(rateLimits.key, 'promo:addr:127.0.0.1'));
    const { client } = await ts.signUp();
    for (let i = 0; i < 10; i++) expect((await redeem(client, `NOPE${i}X`)).status).toBe(404);
    expect(await redeem(client, 'NOPE11X')).toMatchObject({ status: 429, body: { message: PROMO_TEXTS.tooMany } });
    const ids = await accounts(11);
    for (const id of ids.slice(0, 10))
      await expect(ts.rt.promoCodes.redeem(id, 'NOPEADDR', '203.0.113.9')).rejects.toThrow(PROMO_TEXTS.unknown);
    await expect(ts.rt.promoCodes.redeem(ids[10], 'NOPEADDR', '203.0.113.9')).rejects.toThrow(PROMO_TEXTS.tooMany);
  });
});

describe('npm run admin -- promo (postgres)', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let ts: TestServer;
  beforeAll(async () => {
    scratch = await createScratchDatabase();
    ts = await startTestServer({ databaseUrl: scratch.url });
  });
  afterAll(async () => {
    await ts?.stop();
    await scratch?.drop();
  });

  it('creates, lists and disables codes, refusing bad amounts, dates and duplicates with a clear message', async () => {
    const env = { DATABASE_URL: scratch.url, AUTH_SECRET: TEST_AUTH_SECRET };
    expect(await admin(env, 'promo', 'create', ' spring 26 ', '--credits', '500', '--max', '100', '--expires', '2099-01-31')).toMatchObject(
      {
        code: 0,
        out: 'Created SPRING26: 500 credits, 0/100 redeemed, expires 2099-01-31T23:59:59.000Z, any account.',
      },
    );
    for (const [args, message] of [
      [['--credits', '-5', '--max', '1'], '--credits must be a whole number'],
      [['--credits', '0', '--max', '1'], 'credits: must be a whole number from 1 to 100,000'],
      [['--credits', '10.5', '--max', '1'], '--credits must be a whole number'],
      [['--credits', '1e9', '--max', '1'], '--credits must be a whole number'],
      [['--credits', '999999999', '--max', '1'], 'credits: must be a whole number from 1 to 100,000'],
      [['--credits', '5', '--max', '0'], 'max redemptions: must be a whole number'],
      [['--credits', '5', '--max', '1', '--expires', 'someday'], '--expires must be a date'],
      [['--credits', '5', '--max', '1', '--expires', '2001-01-01'], 'expires: must be a date in the future'],
      [['--credits', '5', '--max', '1', '--account', 'bob'], '--account must be a users.id'],
    ] as const) {
      const result = await admin(env, 'promo', 'create', 'BADONE', ...args);
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.err, args.join(' ')).toContain(message);
    }
    expect(await admin(env, 'promo', 'create', 'Spring26', '--credits', '5', '--max', '1')).toMatchObject({
      code: 65,
      err: 'A promo code SPRING26 exists already.',
    });
    expect((await admin(env, 'promo', 'disable', 'spring26')).out).toMatch(/^Disabled SPRING26: .*DISABLED/);
    expect(await admin(env, 'promo', 'disable', 'NOPE')).toMatchObject({ code: 1, err: PROMO_TEXTS.unknown });
    const list = await admin(env, 'promo', 'list');
    expect(list.out.split('\n')).toHaveLength(1);
    expect(list.out).toContain('SPRING26: 500 credits, 0/100 redeemed');
    const { client } = await ts.signUp();
    expect((await client.post('/api/credits/promo', { code: 'SPRING26' })).status).toBe(404);
  });
});
