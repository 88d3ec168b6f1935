/**
 * The one runner loop of the durable jobs (server/jobs/leased-runner.ts, docs/decisions/021): on real Postgres,
 * two instances' runners share the due rows so each is worked on once, never more at a time than their slots;
 * a row whose instance died is taken over once its lease runs out; work that fails is given back and tried
 * again; and shutdown either waits for the work in flight or cuts it short. Mail rows serve as the payloads.
 */
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../server/db/index.ts';
import { createLeasedRunner, type RunnerSpec } from '../../server/jobs/leased-runner.ts';
import { createLogger } from '../../server/logger.ts';
import { createJobLeases, type JobLeases } from '../../server/repositories/job-leases.ts';
import { mailOutboxRepository as outbox, type MailRow } from '../../server/repositories/mail-outbox.repository.ts';
import { createScratchDatabase } from '../helpers/server.ts';

const logger = createLogger('silent');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('leased runner (postgres)', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let database: Database;
  let pool: pg.Pool;
  const open: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    database = await openDatabase({ databaseUrl: scratch.url, dataDir: '/nonexistent', logger });
    pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
  }, 60_000);
  beforeEach(async () => {
    for (const o of open.splice(0)) await o.close();
    await pool.query(`delete from mail_outbox`);
  });
  afterAll(async () => {
    for (const o of open.splice(0)) await o.close();
    await pool?.end();
    await database?.close();
    await scratch?.drop();
  });

  async function enqueue(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      await outbox.insert(database.db, { kind: 'test', toAddress: `p${i}@example.com`, dedupeKey: `test:${i}:${Math.random()}` });
    }
    const { rows } = await pool.query<{ id: string }>(`select id from mail_outbox order by created_at, id`);
    ids.push(...rows.map((r) => r.id));
    return ids;
  }

  function instance(owner: string, leaseMs: number, renew = true): JobLeases {
    const leases = createJobLeases({ db: database.db, owner, leaseMs, logger });
    if (renew) leases.start();
    open.push({ close: () => leases.releaseAll() });
    return leases;
  }

  function runner(leases: JobLeases, spec: Partial<RunnerSpec<'mail'>> & Pick<RunnerSpec<'mail'>, 'work'>) {
    const r = createLeasedRunner<'mail'>({
      kind: 'mail',
      logger,
      leases,
      concurrency: 2,
      pollMs: 60_000,
      claim: (limit) => outbox.claimDue(database.db, leases.claim(), limit),
      keyOf: (row) => row.id,
      afterWork: 'drop',
      failed: 'test work failed',
      retry: 'release',
      ...spec,
    });
    open.unshift(r);
    return r;
  }

  it('two instances work each due row once, never more at a time than their slots, and runNow waits for all of it', async () => {
    const ids = await enqueue(9);
    const done: string[] = [];
    let inFlight = 0;
    let most = 0;
    const work = (leases: JobLeases) => async (row: MailRow) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await sleep(20);
      done.push(row.id);
      inFlight--;
      await outbox.end(database.db, row.id, leases.owner, { status: 'SENT' });
    };
    const a = instance('instance-a', 5_000);
    const b = instance('instance-b', 5_000);
    const ra = runner(a, { work: work(a) });
    const rb = runner(b, { work: work(b) });
    await Promise.all([ra.runNow(), rb.runNow()]);
    expect([...done].sort()).toEqual([...ids].sort());
    expect(most).toBeLessThanOrEqual(4);
    expect(ra.running() + rb.running()).toBe(0);
    const { rows } = await pool.query(`select status, lease_owner from mail_outbox`);
    expect(rows.every((r) => r.status === 'SENT' && r.lease_owner === null)).toBe(true);
  });

  it('takes over a row once the lease of the instance that died on it has run out, and not before', async () => {
    const [id] = await enqueue(1);
    // Instance A claims the row and dies with it: its work never ends and its leases are never renewed.
    const dying = instance('instance-dead', 600, false);
    let claimedByDead = false;
    const ra = runner(dying, {
      work: async () => {
        claimedByDead = true;
        await new Promise(() => undefined);
      },
    });
    ra.wake();
    await expect.poll(() => claimedByDead).toBe(true);
    open.splice(open.indexOf(ra), 1);

    const b = instance('instance-b', 5_000);
    const takenOver: string[] = [];
    const rb = runner(b, {
      work: async (row) => {
        takenOver.push(row.id);
        await outbox.end(database.db, row.id, b.owner, { status: 'SENT' });
      },
    });
    await rb.runNow();
    expect(takenOver).toEqual([]);
    await sleep(700);
    await rb.runNow();
    expect(takenOver).toEqual([id]);
  });

  it('work that fails gives its row back at once and the row is tried again', async () => {
    const [id] = await enqueue(1);
    const a = instance('instance-a', 5_000);
    const attempts: string[] = [];
    const ra = runner(a, {
      work: async (row) => {
        attempts.push(row.id);
        if (attempts.length === 1) throw new Error('a passing failure');
        await outbox.end(database.db, row.id, a.owner, { status: 'SENT' });
      },
    });
    await ra.runNow();
    expect(attempts).toEqual([id, id]);
    expect(a.held('mail')).toBe(0);
  });

  it('shutdown waits for the work in flight, or with abortOnClose cuts it short; either way it claims nothing more', async () => {
    await enqueue(3);
    const a = instance('instance-a', 5_000);
    let finished = 0;
    let started = 0;
    const waits = runner(a, {
      concurrency: 1,
      work: async (row) => {
        started++;
        await sleep(150);
        finished++;
        await outbox.end(database.db, row.id, a.owner, { status: 'SENT' });
      },
    });
    waits.wake();
    await expect.poll(() => started).toBe(1);
    await waits.close();
    expect({ started, finished }).toEqual({ started: 1, finished: 1 });

    const b = instance('instance-b', 5_000);
    const seen: boolean[] = [];
    const cuts = runner(b, {
      concurrency: 1,
      abortOnClose: true,
      work: async (row, signal) => {
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        seen.push(signal.aborted);
        // Cut short: the row goes back for another instance.
        await b.release('mail', row.id);
      },
    });
    cuts.wake();
    await expect.poll(() => cuts.running()).toBe(1);
    await cuts.close();
    expect(seen).toEqual([true]);
    const { rows } = await pool.query(`select count(*)::int as n from mail_outbox where status = 'PENDING'`);
    expect(rows[0].n).toBe(2);
  });
});
