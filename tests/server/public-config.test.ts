import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('public config', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ env: { SUPPORT_EMAIL: 'help@example.org', UPLOAD_RETENTION_DAYS: '14' } });
  });
  afterAll(() => ts?.stop());

  it('gives anonymous visitors the contact address and the originals’ retention, and nothing else', async () => {
    const res = await fetch(`${ts.url}/api/public-config`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ supportEmail: 'help@example.org', uploadRetentionDays: 14 });
    expect(res.headers.get('cache-control')).toContain('max-age');
  });
});
