import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('public config', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ env: { SUPPORT_EMAIL: 'help@example.org' } });
  });
  afterAll(() => ts?.stop());

  it('gives anonymous visitors the contact address from SUPPORT_EMAIL, and nothing else', async () => {
    const res = await fetch(`${ts.url}/api/public-config`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ supportEmail: 'help@example.org' });
    expect(res.headers.get('cache-control')).toContain('max-age');
  });
});
