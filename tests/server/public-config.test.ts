import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('public config', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ env: { SUPPORT_EMAIL: 'help@example.org', UPLOAD_RETENTION_DAYS: '14' } });
  });
  afterAll(() => ts?.stop());

  it('gives anonymous visitors the contact address, the originals’ retention and whether the local outbox page is theirs to open, and nothing else', async () => {
    const res = await fetch(`${ts.url}/api/public-config`);
    expect(res.status).toBe(200);
    // No SMTP_URL, on the machine itself: mail is in the local outbox, at /sandbox/mail.
    expect(await res.json()).toEqual({ supportEmail: 'help@example.org', uploadRetentionDays: 14, mailOutboxPage: true });
    expect(res.headers.get('cache-control')).toContain('max-age');
    expect((await fetch(`${ts.url}/sandbox/mail`)).status).toBe(200);
  });

  it('says the outbox page is not there where mail goes out over SMTP', async () => {
    const smtp = await startTestServer({ env: { SMTP_URL: 'smtp://127.0.0.1:2525' } });
    try {
      expect(await (await fetch(`${smtp.url}/api/public-config`)).json()).toMatchObject({ mailOutboxPage: false });
      expect((await fetch(`${smtp.url}/sandbox/mail`)).status).toBe(404);
    } finally {
      await smtp.stop();
    }
  });
});
