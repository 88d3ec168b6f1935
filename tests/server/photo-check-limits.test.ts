import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimits } from '../../server/db/schema.ts';
import { startTestServer, type TestClient, type TestServer } from '../helpers/server.ts';

/**
 * The free photo check is bounded per client address as well as per account (sign-up is free, so one client
 * could otherwise run many accounts), with the same message, and the address follows TRUST_PROXY's rules.
 * A request the limits let through and that carries no file is answered 400 (no file field) before anything is
 * analysed, which keeps the real analyser out of this file.
 */
const TOO_MANY = 'Too many photos checked in a short time. Please wait a few minutes and try again.';
/** The per-address allowance (three accounts' worth of the per-account 300 in 10 minutes). */
const PER_ADDRESS = 900;

const checkFrom = (client: TestClient, forwardedFor?: string) =>
  client.fetch('/api/trainings/check-photo', {
    method: 'POST',
    body: new FormData(),
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
  });

async function filled(ts: TestServer, address: string, count = PER_ADDRESS) {
  await ts.rt.db.insert(rateLimits).values({ key: `photo-check-address:${address}`, count, windowStart: new Date() });
}

describe('photo check limits per client address', () => {
  describe('behind a trusted proxy (TRUST_PROXY=true, PROXY_HOPS=1)', () => {
    let ts: TestServer;
    beforeAll(async () => {
      ts = await startTestServer({ env: { TRUST_PROXY: 'true', PROXY_HOPS: '1' } });
    });
    afterAll(() => ts?.stop());

    it('refuses every account from an address that used its allowance, with the per-account message', async () => {
      await filled(ts, '203.0.113.7');
      for (const { client } of [await ts.signUp(), await ts.signUp()]) {
        const res = await checkFrom(client, '203.0.113.7');
        expect(res.status).toBe(429);
        expect((await res.json()).message).toBe(TOO_MANY);
      }
      // What a client writes left of the proxy's entry proves nothing: the proxy's entry counts.
      const { client } = await ts.signUp();
      expect((await checkFrom(client, '198.51.100.9, 203.0.113.7')).status).toBe(429);
      // The same fresh account from another address gets through the limits (and is told it sent no file).
      const other = await checkFrom(client, '198.51.100.9');
      expect(other.status).toBe(400);
      expect((await other.json()).message).toMatch(/no complete file field/);
    });

    it('counts each check against the address, up to its allowance, whichever account makes it', async () => {
      await filled(ts, '203.0.113.20', PER_ADDRESS - 2);
      const a = await ts.signUp();
      const b = await ts.signUp();
      expect((await checkFrom(a.client, '203.0.113.20')).status).toBe(400);
      expect((await checkFrom(b.client, '203.0.113.20')).status).toBe(400);
      expect((await checkFrom(b.client, '203.0.113.20')).status).toBe(429);
      expect((await checkFrom(a.client, '203.0.113.20')).status).toBe(429);
    });

    it('still limits each account on its own', async () => {
      const { client, userId } = await ts.signUp();
      await ts.rt.db.insert(rateLimits).values({ key: `photo-check:${userId}`, count: 300, windowStart: new Date() });
      const res = await checkFrom(client, '198.51.100.44');
      expect(res.status).toBe(429);
      expect((await res.json()).message).toBe(TOO_MANY);
    });
  });

  describe('without a trusted proxy (the default)', () => {
    let ts: TestServer;
    beforeAll(async () => {
      ts = await startTestServer();
    });
    afterAll(() => ts?.stop());

    it('keys on the connection’s address and ignores X-Forwarded-For', async () => {
      await filled(ts, '127.0.0.1');
      const { client } = await ts.signUp();
      expect((await checkFrom(client, '198.51.100.9')).status).toBe(429);
      expect((await checkFrom(client)).status).toBe(429);
    });
  });
});
