import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { admin } from '../helpers/admin.ts';
import { startTestServer, TEST_AUTH_SECRET, testDatabaseUrl } from '../helpers/server.ts';
import { clerkClaims, createSupabaseDatabase, type SupabaseTestDatabase } from '../helpers/supabase-db.ts';

describe('admin credits command (pglite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'likeness-admin-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('grants, removes and shows credits with a reason, each as a ledger row', async () => {
    const ts = await startTestServer({ dataDir });
    const { email, userId } = await ts.signUp();
    await ts.stop();
    const env = { DATA_DIR: dataDir };

    expect(await admin(env, 'credits', 'grant', email, '250', '--reason', 'Goodwill for an outage')).toMatchObject({
      code: 0,
      out: `Granted 250 credits to ${email}. Balance: 250.`,
    });
    expect((await admin(env, 'credits', 'remove', email.toUpperCase(), '100', '--reason=Duplicate grant')).code).toBe(0);
    const tooMuch = await admin(env, 'credits', 'remove', email, '1000', '--reason', 'x');
    expect(tooMuch.code).toBe(1);
    expect(tooMuch.err).toContain('has 150');

    expect((await admin(env, 'credits', 'grant', email, '10')).code).toBe(64);
    expect((await admin(env, 'credits', 'grant', email, '-5', '--reason', 'x')).code).toBe(64);
    expect((await admin(env, 'credits', 'grant', 'nobody@example.com', '5', '--reason', 'x')).code).toBe(1);
    expect((await admin(env, 'nonsense')).code).toBe(64);

    const shown = await admin(env, 'credits', 'show', email);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain(`${email}: 150 credits (ledger sum 150)`);
    expect(shown.out).toContain('Operator: Goodwill for an outage');
    expect(shown.out).toContain('Operator: Duplicate grant');

    const again = await startTestServer({ dataDir });
    try {
      expect(await again.rt.credits.balance(userId)).toBe(150);
      expect(await again.rt.credits.ledgerSum(userId)).toBe(150);
    } finally {
      await again.stop();
    }
    // Each command opens the embedded database afresh (~1–2 s each), slower when the suite runs in parallel.
  }, 90_000);

  it('tells the operator to stop the server when the embedded database is in use', async () => {
    const busyDir = mkdtempSync(join(tmpdir(), 'likeness-admin-busy-'));
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      mkdirSync(busyDir, { recursive: true });
      writeFileSync(join(busyDir, 'likeness.lock'), String(other.pid));
      const result = await admin({ DATA_DIR: busyDir }, 'credits', 'show', 'a@example.com');
      expect(result.code).toBe(73);
      expect(result.err).toContain('stop the Likeness server');
    } finally {
      other.kill();
      rmSync(busyDir, { recursive: true, force: true });
    }
  });
});

describe('admin credits command (postgres)', () => {
  it('changes the balance that a running server reads', async () => {
    const base = testDatabaseUrl();
    const name = `likeness_admin_${randomBytes(6).toString('hex')}`;
    const adminClient = new pg.Client({ connectionString: base });
    await adminClient.connect();
    await adminClient.query(`create database ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const ts = await startTestServer({ databaseUrl: url.toString() });
    try {
      const { client, email } = await ts.signUp();
      const env = { DATABASE_URL: url.toString(), AUTH_SECRET: TEST_AUTH_SECRET, DATA_DIR: ts.dataDir };
      expect((await admin(env, 'credits', 'grant', email, '40', '--reason', 'Support ticket 12')).code).toBe(0);
      expect((await (await client.get('/api/me')).json()).credits).toBe(40);
    } finally {
      await ts.stop();
      await adminClient.query(`drop database if exists ${name} with (force)`);
      await adminClient.end();
    }
  });
});

describe('admin credits command (hosted: users.email is written by the browser)', () => {
  let db: SupabaseTestDatabase;
  const dataDir = mkdtempSync(join(tmpdir(), 'likeness-admin-hosted-'));
  beforeAll(async () => {
    db = await createSupabaseDatabase();
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds the account by the address Clerk verified, never by one someone typed into users.email', async () => {
    const env = { DATABASE_URL: db.url, AUTH_SECRET: TEST_AUTH_SECRET, DATA_DIR: dataDir };
    const {
      rows: [customer],
    } = await db.owner.query<{ id: string }>(
      `insert into users (clerk_id, email, verified_email, full_name, credits) values ('user_customer', 'customer@example.com', 'customer@example.com', 'Customer', 0) returning id`,
    );
    // Another person's own user sync through Supabase: users.email is theirs to write, any address.
    const {
      rows: [copier],
    } = await db.asClaims<{ id: string }>(
      clerkClaims('user_copier'),
      `insert into users (clerk_id, email, full_name, credits) values ('user_copier', 'customer@example.com', 'Copier', 0) returning id`,
    );
    await db.owner.query(`update users set updated_at = now() where id = $1`, [customer.id]);

    const granted = await admin(env, 'credits', 'grant', 'Customer@example.com', '500', '--reason', 'Goodwill for a failed training');
    expect(granted).toMatchObject({ code: 0, out: 'Granted 500 credits to customer@example.com. Balance: 500.' });
    const balances = async () =>
      (await db.owner.query(`select id, credits from users where id = any($1)`, [[customer.id, copier.id]])).rows;
    expect(await balances()).toEqual(
      expect.arrayContaining([
        { id: customer.id, credits: 500 },
        { id: copier.id, credits: 0 },
      ]),
    );
    // An account without a verified address is reached by its id only, and named by what it is.
    expect((await admin(env, 'credits', 'show', 'copier@example.com')).code).toBe(1);
    const byId = await admin(env, 'credits', 'grant', '--id', copier.id, '5', '--reason', 'Ticket 7');
    expect(byId.code).toBe(0);
    expect(byId.out).toContain(`Granted 5 credits to ${copier.id} (Clerk user user_copier, no verified address yet`);
    expect((await admin(env, 'credits', 'show', '--clerk-id', 'user_copier')).out).toContain(': 5 credits (ledger sum 5)');
    expect((await admin(env, 'credits', 'grant', '--id', 'not-a-uuid', '5', '--reason', 'x')).err).toMatch(/--id takes a users.id/);

    // Two accounts verified at one address: nothing changes until the operator names one.
    await db.owner.query(`update users set verified_email = 'customer@example.com' where id = $1`, [copier.id]);
    const ambiguous = await admin(env, 'credits', 'grant', 'customer@example.com', '10', '--reason', 'x');
    expect(ambiguous.code).toBe(65);
    expect(ambiguous.err).toContain('2 accounts have the verified address customer@example.com. Nothing was changed.');
    expect(ambiguous.err).toContain(`--id ${customer.id}`);
    expect(await balances()).toEqual(
      expect.arrayContaining([
        { id: customer.id, credits: 500 },
        { id: copier.id, credits: 5 },
      ]),
    );
  }, 120_000);
});
