import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, readyz, startTestServer, testDatabaseUrl, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';
import { readServerSentEvents } from '../helpers/sse.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

/** A user's event stream, read as a browser's EventSource would, keeping every event in order. */
async function openStream(ts: TestServer, cookie: string) {
  const controller = new AbortController();
  const res = await fetch(`${ts.url}/api/events`, { headers: { cookie }, signal: controller.signal });
  const events: { event: string; data: string }[] = [];
  void readServerSentEvents(res.body!, (event, data) => events.push({ event, data })).catch(() => undefined);
  return {
    events,
    credits: () => events.filter((e) => e.event === 'credits').map((e) => JSON.parse(e.data).credits as number),
    close: () => controller.abort(),
  };
}

describe('realtime fan-out through database blips (postgres)', () => {
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  beforeAll(() => admin.connect());
  afterAll(() => admin.end());

  /** Backends of this instance's LISTEN session (its application_name carries the instance id). */
  const listenerPids = async (ts: TestServer) =>
    (
      await admin.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [
        `likeness:${ts.rt.database.instanceId}`,
      ])
    ).rows.map((r) => r.pid);

  describe('LISTEN connection terminated', () => {
    let ts: TestServer;
    beforeAll(async () => {
      ts = await startTestServer({ database: 'postgres' });
    });
    afterAll(() => ts?.stop());

    it('three times: exactly one listener afterwards, and each event delivered once', async () => {
      const { client, userId } = await ts.signUp();
      const stream = await openStream(ts, client.cookieHeader());
      await waitFor('the stream to open', async () => stream.credits().length === 1);

      for (let i = 0; i < 3; i++) {
        const [pid] = await listenerPids(ts);
        expect(pid).toBeDefined();
        await admin.query('select pg_terminate_backend($1)', [pid]);
        await waitFor('a new listener', async () => {
          const pids = await listenerPids(ts);
          return pids.length === 1 && pids[0] !== pid && ts.rt.database.listenerStatus().up;
        });
      }
      // A reconnect storm would show as more sessions a moment later.
      await new Promise((r) => setTimeout(r, 1500));
      expect(await listenerPids(ts)).toHaveLength(1);
      expect(stream.events.filter((e) => e.event === 'resync')).toHaveLength(3);

      const seen = stream.events.length;
      await ts.rt.credits.grant(userId, 40, 'test', `grant:${randomUUID()}`);
      await waitFor('the grant', async () => stream.credits().includes(40));
      await new Promise((r) => setTimeout(r, 1000));
      expect(stream.events.slice(seen)).toEqual([{ event: 'credits', data: JSON.stringify({ type: 'credits', credits: 40 }) }]);
      await stream.close();
    });
  });

  describe('database outage of several seconds', () => {
    let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
    let proxy: TcpProxy;
    let viaProxy: TestServer;
    let direct: TestServer;

    beforeAll(async () => {
      scratch = await createScratchDatabase();
      const target = new URL(scratch.url);
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      const proxied = new URL(scratch.url);
      proxied.host = `127.0.0.1:${proxy.port}`;
      viaProxy = await startTestServer({ databaseUrl: proxied.toString() });
      direct = await startTestServer({ databaseUrl: scratch.url });
    });
    afterAll(async () => {
      await viaProxy?.stop();
      await direct?.stop();
      await proxy?.stop();
      await scratch?.drop();
    });

    it('reports not ready while Postgres is away, recovers when it is back, and the browser catches up', async () => {
      const { client, userId } = await direct.signUp();
      const stream = await openStream(viaProxy, client.cookieHeader());
      await waitFor('the stream to open', async () => stream.credits().length === 1);
      expect((await readyz(viaProxy)).status).toBe(200);

      await proxy.stop();
      const down = await waitFor('not ready', async () => {
        const r = await readyz(viaProxy);
        return r.status === 503 && r.body.failing.includes('realtime') && r;
      });
      expect(down.body.failing).toEqual(expect.arrayContaining(['database', 'realtime']));
      // Changed through the other instance while this one cannot hear it.
      await direct.rt.credits.grant(userId, 40, 'test', `grant:${randomUUID()}`);
      await new Promise((r) => setTimeout(r, 4000));
      expect(viaProxy.rt.database.listenerStatus().up).toBe(false);

      await proxy.start();
      await waitFor('ready again', async () => (await readyz(viaProxy)).status === 200, 30_000);
      await waitFor('the missed balance', async () => stream.credits().at(-1) === 40);
      expect(stream.events.some((e) => e.event === 'resync')).toBe(true);
      expect(await listenerPids(viaProxy)).toHaveLength(1);
      await stream.close();
    });
  });
});
