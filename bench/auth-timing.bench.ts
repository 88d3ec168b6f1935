import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../tests/helpers/server.ts';
import { loadNow, ms, onBothDatabases, percentile, printTable } from './stats.ts';

/**
 * Sign-up, sign-in and 'Forgot password?' for a new (unknown) address against one that has an account, taken in
 * turns so load drifts alike on both (issue 47: their timings must not tell the two apart). The test
 * tests/server/sign-up-enumeration.test.ts proves the same password hashing is done for both; this shows what is
 * left: the medians and their difference, beside the spread of each.
 */
const ROUNDS = 15;

type Row = {
  database: string;
  request: string;
  'new p50': string;
  'taken p50': string;
  difference: string;
  'new p10–p90': string;
  'taken p10–p90': string;
  load: string;
};

async function timed(work: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const res = await work();
  await res.arrayBuffer();
  if (res.status >= 500) throw new Error(`answered ${res.status}`);
  return performance.now() - started;
}

async function measure(database: 'pglite' | 'postgres'): Promise<Row[]> {
  // Limits far above what the rounds use: every request does its full work.
  const ts: TestServer = await startTestServer({ database, env: { AUTH_RATE_LIMIT: '100000', SIGN_UP_RATE_LIMIT: '100000' } });
  try {
    const owner = await ts.signUp();
    const post = (path: string, body: unknown) => ts.client().post(path, body);
    const fresh = () => `bench-${randomUUID().slice(0, 8)}@example.com`;
    const requests: Array<{ name: string; run: (email: string) => Promise<Response> }> = [
      { name: 'sign-up', run: (email) => post('/api/auth/sign-up/email', { email, password: 'another-strong-pass-77', name: 'Bench' }) },
      { name: 'sign-in (wrong password)', run: (email) => post('/api/auth/sign-in/email', { email, password: 'wrong-password-1' }) },
      { name: 'forgot password', run: (email) => post('/api/auth/request-password-reset', { email }) },
    ];
    const rows: Row[] = [];
    for (const request of requests) {
      // One of each first, not counted: the first call of a route loads its code.
      await request.run(fresh());
      await request.run(owner.email);
      const times = { new: [] as number[], taken: [] as number[] };
      for (let i = 0; i < ROUNDS; i++) {
        const order = i % 2 ? (['new', 'taken'] as const) : (['taken', 'new'] as const);
        for (const which of order) times[which].push(await timed(() => request.run(which === 'new' ? fresh() : owner.email)));
      }
      const p = (which: 'new' | 'taken', q: number) => percentile(times[which], q);
      rows.push({
        database,
        request: request.name,
        'new p50': ms(p('new', 50)),
        'taken p50': ms(p('taken', 50)),
        difference: ms(p('taken', 50) - p('new', 50)),
        'new p10–p90': `${ms(p('new', 10))} – ${ms(p('new', 90))}`,
        'taken p10–p90': `${ms(p('taken', 10))} – ${ms(p('taken', 90))}`,
        load: loadNow(),
      });
    }
    return rows;
  } finally {
    await ts.stop();
  }
}

export async function run(): Promise<void> {
  console.log(`${ROUNDS} rounds each, new and taken address in turns; the password is hashed once per sign-up and sign-in for both.`);
  printTable(await onBothDatabases('auth-timing', measure));
}
