import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { admin } from '../helpers/admin.ts';
import { startTestServer, TEST_AUTH_SECRET, testDatabaseUrl } from '../helpers/server.ts';

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
