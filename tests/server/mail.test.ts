import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { and, eq, or, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { authUsers, authVerifications, loraTrainings, mailOutbox, users } from '../../server/db/schema.ts';
import { finishTraining } from '../../server/services/trainings.service.ts';
import { enqueueShootReady, recipientAddress } from '../../server/services/mail.service.ts';
import { parseMetrics } from '../helpers/metrics-text.ts';
import { headerOf, headerSection, startTestSmtp, linkIn, type TestSmtp } from '../helpers/smtp.ts';
import { createClerkTestKeys, TEST_SPA_ORIGIN } from '../helpers/clerk.ts';
import { creemEnv, startFakeCreem } from '../fakes/creem-server.ts';
import { startTestServer, testDatabases, TestClient, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import { readServerSentEvents } from '../helpers/sse.ts';

const STRONG = 'violet-harbour-lantern-92';
const FAST_MAIL = { MAIL_RETRY_SECONDS: '0.2', MAIL_TIMEOUT_SECONDS: '1' };

/** A link from a message, on the test server (links name PUBLIC_URL or http://localhost:<PORT>). */
/** The texts of the mail the test SMTP server received for an address (the test server reads its links). */
const mailboxOf = (smtp: TestSmtp) => (email: string) => smtp.to(email).map((m) => m.mail.text ?? '');

const onServer = (link: string) => {
  const u = new URL(link);
  return u.pathname + u.search;
};

async function trainingRow(ts: TestServer, userId: string, characterName: string): Promise<string> {
  const id = randomUUID();
  await ts.rt.db
    .insert(loraTrainings)
    .values({ id, userId, characterName, requestId: randomUUID(), provider: 'builtin', nextRunAt: new Date(Date.now() + 3600_000) });
  return id;
}

const endTraining = (ts: TestServer, id: string, status: 'COMPLETED' | 'FAILED') =>
  finishTraining(
    ts.rt,
    id,
    status === 'COMPLETED' ? { status, loraFileUrl: `/media/loras/x/${id}.json`, result: {} } : { status, error: 'broken' },
  );

describe('mail configuration', () => {
  it('refuses a malformed SMTP_URL or MAIL_FROM, naming the variable', () => {
    for (const bad of ['not a url', 'http://mail.example.com', 'smtp://', 'smtp://host:587/\r\nBcc: x@y.z']) {
      expect(() => loadConfig({ SMTP_URL: bad })).toThrowError(ConfigError);
      try {
        loadConfig({ SMTP_URL: bad });
      } catch (err) {
        expect((err as ConfigError).issues.join('\n')).toMatch(/^SMTP_URL: must be a URL like smtp:\/\//);
      }
    }
    expect(() => loadConfig({ MAIL_FROM: 'Likeness <no-reply@example.com>\r\nBcc: victim@example.com' })).toThrowError(/MAIL_FROM/);
    expect(loadConfig({ SMTP_URL: 'smtps://u:p%40ss@smtp.example.com:465', MAIL_FROM: 'Likeness <hello@example.com>' }).mailFrom).toBe(
      'Likeness <hello@example.com>',
    );
    expect(loadConfig({}).mailFrom).toBe('Likeness <support@likeness.app>');
  });
});

describe.each(testDatabases())('mail over SMTP (%s)', (database) => {
  let smtp: TestSmtp;
  let ts: TestServer;
  const logLines: { msg: string; level: number; [k: string]: unknown }[] = [];
  beforeAll(async () => {
    smtp = await startTestSmtp();
    ts = await startTestServer({
      database,
      mailbox: mailboxOf(smtp),
      env: { SMTP_URL: smtp.url, METRICS_TOKEN: 'metrics-token-metrics-token', LOG_LEVEL: 'info', ...FAST_MAIL },
      runtime: { mailPollMs: 100, logDestination: { write: (line: string) => void logLines.push(JSON.parse(line)) } },
    });
    // A fresh PGlite takes a minute to start on a busy machine.
  }, 180_000);
  afterEach(() => {
    smtp.mode = 'accept';
  });
  afterAll(async () => {
    await ts?.stop();
    await smtp?.close();
  });

  it('password reset: same answer for any address, a single-use one-hour link, the sign-up password rule, every session signed out', async () => {
    const { client: oldSession, email } = await ts.signUp();
    const visitor = ts.client();
    const known = await visitor.post('/api/auth/request-password-reset', { email });
    const unknown = await visitor.post('/api/auth/request-password-reset', { email: `nobody-${randomUUID()}@example.com` });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(await known.json()).toEqual(await unknown.json());

    const [mail] = await smtp.waitFor(email, 2).then((all) => all.filter((m) => /Reset your Likeness password/.test(m.mail.subject ?? '')));
    expect(mail.mail.from?.value[0]).toMatchObject({ name: 'Likeness', address: 'support@likeness.app' });
    expect(mail.mail.text).toContain('The link works once, for one hour.');
    expect(mail.mail.html).toContain('support@likeness.app');
    expect(headerOf(mail, 'list-unsubscribe')).toBeUndefined();
    const link = linkIn(mail, '/api/auth/reset-password/');

    // Opening the link leads to the 'Set a new password' page with its token.
    const opened = await visitor.get(onServer(link));
    expect(opened.status).toBe(302);
    const target = new URL(opened.headers.get('location')!, ts.url);
    expect(target.pathname).toBe('/reset-password');
    const token = target.searchParams.get('token')!;
    expect(token).toBeTruthy();

    // An altered token leads to the same page with an error; the database holds only its hash.
    const altered = await visitor.get(onServer(link.replace(token, `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`)));
    expect(new URL(altered.headers.get('location')!, ts.url).searchParams.get('error')).toBe('INVALID_TOKEN');
    const stored = await ts.rt.db.select().from(authVerifications);
    expect(stored.some((v) => v.identifier.includes(token))).toBe(false);

    // A weak password changes nothing (and leaves the token usable).
    const weak = await visitor.post('/api/auth/reset-password', { token, newPassword: 'password123' });
    expect(weak.status).toBe(400);
    expect((await weak.json()).code).toBe('WEAK_PASSWORD');
    // So does the account's own address, as at sign-up: the rule knows whose token it is.
    const ownAddress = await visitor.post('/api/auth/reset-password', { token, newPassword: email });
    expect(ownAddress.status).toBe(400);
    expect((await ownAddress.json()).code).toBe('WEAK_PASSWORD');

    // The old session's event stream ends with it, within 5 seconds.
    const res = await fetch(`${ts.url}/api/events`, { headers: { cookie: oldSession.cookieHeader() } });
    expect(res.status).toBe(200);
    const events: string[] = [];
    const ended = readServerSentEvents(res.body!, (event) => events.push(event)).catch(() => undefined);
    await waitFor('the stream is ready', async () => events.includes('ready'));

    const reset = await visitor.post('/api/auth/reset-password', { token, newPassword: STRONG });
    expect(reset.status, await reset.clone().text()).toBe(200);
    // Every session of the account is signed out, its stream included.
    expect(await (await oldSession.get('/api/auth/get-session')).json()).toBeNull();
    await Promise.race([
      ended,
      new Promise((_, reject) => setTimeout(() => reject(new Error('stream still open 5 s after the reset')), 5000)),
    ]);
    expect(events.at(-1)).toBe('signed-out');
    // Used once: a second use changes nothing.
    const again = await visitor.post('/api/auth/reset-password', { token, newPassword: 'another-strong-passphrase-7' });
    expect(again.status).toBe(400);
    expect((await again.json()).code).toBe('INVALID_TOKEN');
    // The new password signs in; the old one does not.
    expect((await ts.client().post('/api/auth/sign-in/email', { email, password: 'correct-horse-1' })).status).toBe(401);
    expect((await ts.client().post('/api/auth/sign-in/email', { email, password: STRONG })).status).toBe(200);
  });

  it('an expired reset link is refused and changes nothing', async () => {
    const { email, userId } = await ts.signUp();
    await ts.client().post('/api/auth/request-password-reset', { email });
    const mail = (await smtp.waitFor(email, 2)).find((m) => /Reset/.test(m.mail.subject ?? ''))!;
    const link = linkIn(mail, '/api/auth/reset-password/');
    const token = new URL(link).pathname.split('/').pop()!;
    const [{ clerkId }] = await ts.rt.db.select({ clerkId: users.clerkId }).from(users).where(eq(users.id, userId));
    const expired = await ts.rt.db
      .update(authVerifications)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(authVerifications.value, clerkId))
      .returning();
    expect(expired).toHaveLength(1);
    expect(new URL((await ts.client().get(onServer(link))).headers.get('location')!, ts.url).searchParams.get('error')).toBe(
      'INVALID_TOKEN',
    );
    const res = await ts.client().post('/api/auth/reset-password', { token, newPassword: STRONG });
    expect(res.status).toBe(400);
    expect((await ts.client().post('/api/auth/sign-in/email', { email, password: 'correct-horse-1' })).status).toBe(200);
  });

  it('setting the password, by one reset link or on the profile, ends every other reset link of the account', async () => {
    const { email } = await ts.signUp();
    const other = await ts.signUp();
    const resetTokens = async (address: string, count: number) =>
      (await smtp.waitFor(address, count))
        .filter((m) => /Reset/.test(m.mail.subject ?? ''))
        .map((m) => new URL(linkIn(m, '/api/auth/reset-password/')).pathname.split('/').pop()!);
    const requestReset = async (address: string) =>
      expect((await ts.client().post('/api/auth/request-password-reset', { email: address })).status).toBe(200);
    await requestReset(email);
    await requestReset(email);
    await requestReset(other.email);
    const [first, second] = await resetTokens(email, 3);
    const [othersToken] = await resetTokens(other.email, 2);

    // Two links out; one sets the password, and the other no longer works.
    expect((await ts.client().post('/api/auth/reset-password', { token: second, newPassword: STRONG })).status).toBe(200);
    const stale = await ts.client().post('/api/auth/reset-password', { token: first, newPassword: 'another-strong-passphrase-7' });
    expect(stale.status).toBe(400);
    expect((await stale.json()).code).toBe('INVALID_TOKEN');
    expect((await ts.client().post('/api/auth/sign-in/email', { email, password: STRONG })).status).toBe(200);

    // A link sent before a change of password on the profile no longer works after it. (The fourth mail says the
    // password was changed.)
    await requestReset(email);
    const [, , third] = await resetTokens(email, 5);
    const signedIn = ts.client();
    expect((await signedIn.post('/api/auth/sign-in/email', { email, password: STRONG })).status).toBe(200);
    const changed = await signedIn.post('/api/auth/change-password', { currentPassword: STRONG, newPassword: 'quiet-meadow-compass-38' });
    expect(changed.status).toBe(200);
    const afterChange = await ts.client().post('/api/auth/reset-password', { token: third, newPassword: 'another-strong-passphrase-7' });
    expect(afterChange.status).toBe(400);
    expect((await afterChange.json()).code).toBe('INVALID_TOKEN');
    expect((await ts.client().post('/api/auth/sign-in/email', { email, password: 'quiet-meadow-compass-38' })).status).toBe(200);

    // Another account's link is untouched.
    expect((await ts.client().post('/api/auth/reset-password', { token: othersToken, newPassword: STRONG })).status).toBe(200);
  });

  it("a password change on the profile or by a reset link mails the owner, with the way back in if it wasn't them", async () => {
    const { client, email } = await ts.signUp();
    const changedMails = async (count: number) =>
      (await smtp.waitFor(email, count)).filter((m) => m.mail.subject === 'Your Likeness password was changed');

    // A wrong current password changes nothing and tells nobody.
    expect((await client.post('/api/auth/change-password', { currentPassword: 'not-the-password-1', newPassword: STRONG })).status).toBe(
      400,
    );
    expect((await client.post('/api/auth/change-password', { currentPassword: 'correct-horse-1', newPassword: STRONG })).status).toBe(200);
    const [onProfile] = await changedMails(2);
    expect(onProfile.mail.text).toContain('was changed on your profile');
    expect(onProfile.mail.text).toContain("If this wasn't you, reset your password");
    expect(new URL(linkIn(onProfile, '/forgot-password')).pathname).toBe('/forgot-password');
    expect(headerOf(onProfile, 'list-unsubscribe')).toBeUndefined();

    await ts.client().post('/api/auth/request-password-reset', { email });
    const resetMail = (await smtp.waitFor(email, 3)).find((m) => /Reset your Likeness password/.test(m.mail.subject ?? ''))!;
    const token = new URL(linkIn(resetMail, '/api/auth/reset-password/')).pathname.split('/').pop()!;
    expect((await ts.client().post('/api/auth/reset-password', { token, newPassword: 'quiet-meadow-compass-38' })).status).toBe(200);
    const [, byLink] = await changedMails(4);
    expect(byLink.mail.text).toContain('was set with a reset link');
    expect(smtp.to(email)).toHaveLength(4);
  });

  it('a refused link address is answered 403 and logged as a short warning, never as an error', async () => {
    logLines.length = 0;
    const long = `https://evil.example/${'x'.repeat(5000)}`;
    expect((await ts.client().get(`/api/auth/reset-password/abc?callbackURL=${encodeURIComponent(long)}`)).status).toBe(403);
    const verify = { email: 'someone@example.com', callbackURL: 'https://evil.example/\u0000' };
    expect((await ts.client().post('/api/auth/send-verification-email', verify)).status).toBe(403);
    const refusals = logLines.filter((l) => l.msg.startsWith('better-auth: '));
    expect(refusals.map((l) => l.level)).toEqual([40, 40]);
    for (const l of refusals) expect(l.msg.length).toBeLessThan(260);
    expect(logLines.filter((l) => l.level >= 50)).toEqual([]);
  });

  /** A sign-up whose link nobody opened yet: an account that cannot sign in until it is confirmed. */
  async function pendingSignUp(): Promise<{ email: string; loginId: string }> {
    const email = `pending-${randomUUID().slice(0, 8)}@example.com`;
    expect((await ts.client().post('/api/auth/sign-up/email', { email, password: STRONG, name: 'Pending Person' })).status).toBe(200);
    const [login] = await ts.rt.db.select().from(authUsers).where(eq(authUsers.email, email));
    return { email, loginId: login.id };
  }
  const confirmed = async (email: string) =>
    (await ts.rt.db.select({ v: authUsers.emailVerified }).from(authUsers).where(eq(authUsers.email, email)))[0].v;

  it('verification: a mail at sign-up whose link confirms the address and signs in; an altered link does not', async () => {
    const { email } = await pendingSignUp();
    const [mail] = await smtp.waitFor(email);
    expect(mail.mail.subject).toBe('Confirm your e-mail address');
    const link = linkIn(mail, '/api/auth/verify-email');
    const client = ts.client();

    const altered = await client.get(onServer(link).replace('token=', 'token=x'));
    // An altered link goes to the page that says the link is not valid, and where to get a new one.
    const refusedAt = new URL(altered.headers.get('location')!, ts.url);
    expect(refusedAt.pathname).toBe('/verify-email');
    expect(refusedAt.searchParams.get('error')).toBe('INVALID_TOKEN');
    expect(await confirmed(email)).toBe(false);
    expect((await client.get('/api/me')).status).toBe(401);

    // A sign-up's link leads straight on to the app (the session cookie comes with that redirect).
    const ok = await client.get(onServer(link));
    expect(ok.status).toBe(302);
    expect(ok.headers.get('location')).toBe('/app/create-image');
    expect(ok.headers.getSetCookie().some((c) => c.startsWith('likeness.session_token='))).toBe(true);
    expect((await (await client.get('/api/auth/get-session')).json()).user.emailVerified).toBe(true);

    // 'Send again' for an address already confirmed sends nothing more.
    const before = smtp.to(email).length;
    await client.post('/api/auth/send-verification-email', { email });
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.to(email).length).toBe(before);
  });

  /** The reset tokens stored for an account, and the account mail of `kind` written for an address. */
  const storedTokens = async (userId: string) => {
    const [{ clerkId }] = await ts.rt.db.select({ clerkId: users.clerkId }).from(users).where(eq(users.id, userId));
    return ts.rt.db.select().from(authVerifications).where(eq(authVerifications.value, clerkId!));
  };
  const outboxRows = (email: string, kind: 'password-reset' | 'verify-email') =>
    ts.rt.db
      .select()
      .from(mailOutbox)
      .where(and(eq(mailOutbox.toAddress, email), eq(mailOutbox.kind, kind)));
  /** Runs `work` while the database refuses rows with a real CHECK constraint on `table`. */
  async function whileRefused(table: 'mail_outbox' | 'auth_verifications', check: string, work: () => Promise<void>) {
    await ts.rt.db.execute(sql.raw(`alter table ${table} add constraint test_refuses check (${check}) not valid`));
    try {
      await work();
    } finally {
      await ts.rt.db.execute(sql.raw(`alter table ${table} drop constraint test_refuses`));
    }
  }
  const failedRequestLogged = () => logLines.some((l) => l.level >= 50 && JSON.stringify(l).includes('test_refuses'));

  it('a reset token and its mail commit together: when either cannot be written, neither is kept', async () => {
    const { email, userId } = await ts.signUp();
    await smtp.waitFor(email); // the verification mail
    const [{ clerkId }] = await ts.rt.db.select({ clerkId: users.clerkId }).from(users).where(eq(users.id, userId));

    // The outbox refuses the message: no token is left that nobody was sent.
    logLines.length = 0;
    await whileRefused('mail_outbox', "kind <> 'password-reset'", async () => {
      expect((await ts.client().post('/api/auth/request-password-reset', { email })).status).toBe(200);
    });
    expect(failedRequestLogged()).toBe(true);
    expect(await storedTokens(userId)).toEqual([]);
    expect(await outboxRows(email, 'password-reset')).toEqual([]);

    // The token cannot be stored: no mail carries a link that would not work.
    logLines.length = 0;
    await whileRefused('auth_verifications', `value <> '${clerkId}'`, async () => {
      expect((await ts.client().post('/api/auth/request-password-reset', { email })).status).toBe(200);
    });
    expect(failedRequestLogged()).toBe(true);
    expect(await storedTokens(userId)).toEqual([]);
    expect(await outboxRows(email, 'password-reset')).toEqual([]);

    // With both writable again: one token, one mail, and the mailed link opens the 'Set a new password' page.
    expect((await ts.client().post('/api/auth/request-password-reset', { email })).status).toBe(200);
    expect(await storedTokens(userId)).toHaveLength(1);
    expect(await outboxRows(email, 'password-reset')).toHaveLength(1);
    const mails = (await smtp.waitFor(email, 2)).filter((m) => /Reset/.test(m.mail.subject ?? ''));
    expect(mails).toHaveLength(1);
    const opened = await ts.client().get(onServer(linkIn(mails[0], '/api/auth/reset-password/')));
    expect(new URL(opened.headers.get('location')!, ts.url).pathname).toBe('/reset-password');
  });

  it('a verification token exists only in its mail: nothing is stored for it, and a refused outbox row leaves no link anywhere', async () => {
    const { email, loginId } = await pendingSignUp();
    const client = ts.client();
    const tokensOfLogin = () => ts.rt.db.select().from(authVerifications).where(eq(authVerifications.value, loginId));
    const [first] = await smtp.waitFor(email);
    // The link is a signed, expiring token the server keeps nowhere but in the outbox row.
    const token = new URL(linkIn(first, '/api/auth/verify-email')).searchParams.get('token')!;
    expect(await tokensOfLogin()).toEqual([]);
    expect((await ts.rt.db.select().from(authVerifications)).some((v) => v.identifier.includes(token) || v.value.includes(token))).toBe(
      false,
    );

    logLines.length = 0;
    await whileRefused('mail_outbox', "kind <> 'verify-email'", async () => {
      expect((await client.post('/api/auth/send-verification-email', { email })).status).toBe(500);
    });
    expect(failedRequestLogged()).toBe(true);
    expect(await outboxRows(email, 'verify-email')).toHaveLength(1); // the sign-up's only
    expect(await tokensOfLogin()).toEqual([]);

    // 'Send again' works again, and its link confirms the address.
    expect((await client.post('/api/auth/send-verification-email', { email })).status).toBe(200);
    const [, again] = await smtp.waitFor(email, 2);
    expect((await client.get(onServer(linkIn(again, '/api/auth/verify-email')))).status).toBe(302);
    expect((await (await client.get('/api/auth/get-session')).json()).user.emailVerified).toBe(true);
  });

  it('a new account and its confirmation mail commit together: when the mail cannot be written, no account is made', async () => {
    const email = `new-${randomUUID().slice(0, 8)}@example.com`;
    const accounts = () => ts.rt.db.select().from(authUsers).where(eq(authUsers.email, email));
    const signUp = () => ts.client().post('/api/auth/sign-up/email', { email, password: STRONG, name: 'New Person' });

    logLines.length = 0;
    await whileRefused('mail_outbox', "kind <> 'verify-email'", async () => {
      const refused = await signUp();
      expect(refused.status).toBe(422);
      expect((await refused.json()).code).toBe('FAILED_TO_CREATE_USER');
    });
    expect(failedRequestLogged()).toBe(true);
    expect(await accounts()).toEqual([]);
    expect(await outboxRows(email, 'verify-email')).toEqual([]);

    // With the outbox writable: one account, one mail, whose link confirms the address.
    const made = await signUp();
    expect(made.status, await made.clone().text()).toBe(200);
    const [account] = await accounts();
    expect(account).toBeTruthy();
    expect(await outboxRows(email, 'verify-email')).toHaveLength(1);
    const [mail] = await smtp.waitFor(email);
    const link = linkIn(mail, '/api/auth/verify-email');
    const opened = await ts.client().get(onServer(link));
    expect(opened.headers.get('location')).toBe('/app/create-image');
    const [confirmed] = await accounts();
    expect(confirmed).toMatchObject({ id: account.id, emailVerified: true });
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.to(email)).toHaveLength(1);
  });

  it('character ready and training failed: once each, with a one-click unsubscribe; names cannot inject headers and are escaped', async () => {
    const { userId, email } = await ts.signUp();
    await smtp.waitFor(email); // the verification mail
    const evil = 'Ann<b>ie</b>\r\nBcc: victim@example.com';
    const ready = await trainingRow(ts, userId, evil);
    await endTraining(ts, ready, 'COMPLETED');
    await endTraining(ts, ready, 'COMPLETED'); // a replay ends nothing and mails nothing
    const failed = await trainingRow(ts, userId, 'Bob');
    await endTraining(ts, failed, 'FAILED');

    const all = await smtp.waitFor(email, 3);
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.to(email)).toHaveLength(3);
    expect(smtp.received.some((m) => m.to.includes('victim@example.com'))).toBe(false);
    const readyMail = all.find((m) => m.mail.subject?.startsWith('Your character'))!;
    expect(readyMail.mail.subject).toBe('Your character Ann<b>ie</b> Bcc: victim@example.com is ready');
    expect(headerSection(readyMail)).not.toMatch(/^Bcc:/im);
    expect(headerOf(readyMail, 'to')).toBe(email);
    expect(readyMail.mail.html).toContain('Ann&lt;b&gt;ie&lt;/b&gt;');
    expect(readyMail.mail.html).not.toContain('<b>ie</b>');
    expect(linkIn(readyMail, '/app/create-image')).toContain(`character=${ready}`);
    expect(readyMail.mail.text).toContain('Create images with');

    const failedMail = all.find((m) => m.mail.subject?.startsWith('Training of'))!;
    expect(failedMail.mail.subject).toBe('Training of Bob failed — 500 credits are back in your account');

    // RFC 8058: both headers, and the link in the body; the POST a mail client makes unsubscribes.
    const header = headerOf(failedMail, 'list-unsubscribe') ?? '';
    expect(headerOf(failedMail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const unsubscribe = /<([^>]+)>/.exec(header)![1];
    expect(linkIn(failedMail, '/mail/unsubscribe')).toBe(unsubscribe);
    const forged = new URL(unsubscribe);
    forged.searchParams.set('u', randomUUID());
    const refused = await fetch(ts.url + forged.pathname + forged.search, {
      method: 'POST',
      body: new URLSearchParams({ 'List-Unsubscribe': 'One-Click' }),
    });
    expect(refused.status).toBe(400);
    const altered = await fetch(ts.url + onServer(unsubscribe).slice(0, -2) + 'xx');
    expect(altered.status).toBe(400);
    expect(await altered.text()).toContain('This unsubscribe link is not valid');
    const [{ on }] = await ts.rt.db.select({ on: users.emailNotifications }).from(users).where(eq(users.id, userId));
    expect(on).toBe(true);

    const oneClick = await fetch(ts.url + onServer(unsubscribe), {
      method: 'POST',
      body: new URLSearchParams({ 'List-Unsubscribe': 'One-Click' }),
    });
    expect(oneClick.status).toBe(204);
    const next = await trainingRow(ts, userId, 'Cleo');
    await endTraining(ts, next, 'COMPLETED');
    const rows = await ts.rt.db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.dedupeKey, `character-ready:${next}`));
    expect(rows).toHaveLength(0);

    // The link opened again once off says so and offers to subscribe again.
    const page = await fetch(ts.url + onServer(unsubscribe));
    expect(await page.text()).toContain('You are unsubscribed');
    const again = await fetch(ts.url + onServer(unsubscribe), { method: 'POST', body: new URLSearchParams({ action: 'subscribe' }) });
    expect(await again.text()).toContain('Notifications are on');
  });

  it('opening the unsubscribe link (or a mail scanner fetching it) changes nothing: a page names the masked address and asks', async () => {
    const { userId, email } = await ts.signUp({ email: `jane.doe.${randomUUID().slice(0, 8)}@example.com` });
    const link = onServer(ts.rt.mail.links.url(userId));
    const notifications = async () =>
      (await ts.rt.db.select({ on: users.emailNotifications }).from(users).where(eq(users.id, userId)))[0].on;
    expect(await notifications()).toBe(true);
    for (let i = 0; i < 3; i++) {
      const page = await fetch(ts.url + link);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toMatch(/Stop notification e.{1,8}mails\?/);
      expect(html).toContain(`j•••${email.split('@')[0].slice(-1)}@example.com`);
      expect(html).not.toContain(email);
      expect(html).toMatch(
        /<form method="post" action="\/mail\/unsubscribe\?u=[^"]+"><input type="hidden" name="action" value="unsubscribe">/,
      );
    }
    expect(await notifications()).toBe(true);
    // The page's button is the POST that acts.
    const done = await fetch(ts.url + link, { method: 'POST', body: new URLSearchParams({ action: 'unsubscribe' }) });
    expect(await done.text()).toContain('You are unsubscribed');
    expect(await notifications()).toBe(false);
    // A link replayed after the account is erased is refused, saying nothing about whom it named.
    await ts.rt.erasure.eraseSelected({ email });
    for (const method of ['GET', 'POST']) {
      const gone = await fetch(ts.url + link, {
        method,
        body: method === 'POST' ? new URLSearchParams({ 'List-Unsubscribe': 'One-Click' }) : undefined,
      });
      expect(gone.status).toBe(400);
      expect(await gone.text()).toContain('This unsubscribe link is not valid');
    }
  });

  it('recipients: the sign-in address with built-in accounts; in Clerk mode nothing until the verified address is known (never users.email)', async () => {
    const { userId, email } = await ts.signUp();
    await ts.rt.db.update(users).set({ email: 'written-by-the-browser@example.com' }).where(eq(users.id, userId));
    expect(await recipientAddress(ts.rt.db, userId)).toEqual({ to: email });
    // A Clerk person (no built-in login): nothing until the server knows the verified address, then that.
    const [clerkPerson] = await ts.rt.db
      .insert(users)
      .values({ clerkId: `user_${randomUUID()}`, email: 'typed-by-the-browser@example.com' })
      .returning();
    expect(await recipientAddress(ts.rt.db, clerkPerson.id)).toEqual({ wait: 'no verified address known for this person yet' });
    await ts.rt.db.update(users).set({ verifiedEmail: 'verified@example.com' }).where(eq(users.id, clerkPerson.id));
    expect(await recipientAddress(ts.rt.db, clerkPerson.id)).toEqual({ to: 'verified@example.com' });
    expect(await recipientAddress(ts.rt.db, randomUUID())).toEqual({ skip: 'the account no longer exists' });
  });

  it('the profile switch turns notifications off and on', async () => {
    const { client, userId } = await ts.signUp();
    expect(await (await client.get('/api/me/notifications')).json()).toEqual({ email_notifications: true });
    const off = await client.fetch('/api/me/notifications', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email_notifications: false }),
    });
    expect(off.status).toBe(200);
    const id = await trainingRow(ts, userId, 'Dee');
    await endTraining(ts, id, 'COMPLETED');
    expect(
      await ts.rt.db
        .select()
        .from(mailOutbox)
        .where(eq(mailOutbox.dedupeKey, `character-ready:${id}`)),
    ).toHaveLength(0);
    const bad = await client.fetch('/api/me/notifications', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email_notifications: 'yes' }),
    });
    expect(bad.status).toBe(400);
    expect((await new TestClient(ts.url).get('/api/me/notifications')).status).toBe(401);
  });

  it('shoot ready: one message per shoot however often it is enqueued', async () => {
    const { userId, email } = await ts.signUp();
    await smtp.waitFor(email);
    const shoot = { id: randomUUID(), pack: 'Studio <Headshots>', photos: 12 };
    await ts.rt.db.transaction(async (tx) => {
      expect(await enqueueShootReady(tx, userId, shoot)).toBe(true);
      expect(await enqueueShootReady(tx, userId, shoot)).toBe(false);
    });
    await ts.rt.db.transaction((tx) => enqueueShootReady(tx, userId, shoot));
    const mails = await smtp.waitFor(email, 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.to(email)).toHaveLength(2);
    const mail = mails.find((m) => m.mail.subject?.includes('photo shoot'))!;
    expect(mail.mail.subject).toBe('Your Studio <Headshots> photo shoot is ready (12 photos)');
    expect(mail.mail.html).toContain('Studio &lt;Headshots&gt;');
    expect(linkIn(mail, shoot.id)).toBeTruthy();
    expect(headerOf(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
  });

  it('low balance: a paid action that leaves less than it cost mails once per period with Top up; not with notifications off', async () => {
    const { client, userId, email } = await ts.signUp({ credits: 15 });
    await smtp.waitFor(email);
    expect(await (await client.get('/api/credits/low-balance')).json()).toEqual({ low: false, balance: 15, last: null });

    // A generation (10 credits, the paid-job path) leaves 5: less than another one costs.
    expect((await client.post('/api/image/generate-image', generationRequestBody())).status).toBe(200);
    expect(await (await client.get('/api/credits/low-balance')).json()).toEqual({
      low: true,
      balance: 5,
      last: { kind: 'generation', cost: 10 },
    });
    const mail = (await smtp.waitFor(email, 2)).find((m) => /balance is low/.test(m.mail.subject ?? ''))!;
    expect(mail.mail.subject).toBe('Your Likeness balance is low: 5 credits left');
    expect(mail.mail.text).toContain('Your last action cost 10 credits, more than you have left.');
    expect(linkIn(mail, '/app/credits')).toBeTruthy();
    expect(headerOf(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');

    // Topped up, then low again in the same period (a debit through the credits service): no second message.
    await ts.rt.credits.grant(userId, 100, 'test grant', `test:${randomUUID()}`);
    await ts.rt.credits.debit(userId, 100, 'Character training', `training:${randomUUID()}`);
    const lowRows = () =>
      ts.rt.db
        .select({ key: mailOutbox.dedupeKey })
        .from(mailOutbox)
        .where(and(eq(mailOutbox.userId, userId), eq(mailOutbox.kind, 'low-balance')));
    expect(await lowRows()).toHaveLength(1);
    expect((await lowRows())[0].key).toMatch(new RegExp(`^low-balance:${userId}:\\d{4}-\\d{2}-01T00:00:00\\.000Z$`));
    expect(await (await client.get('/api/credits/low-balance')).json()).toEqual({
      low: true,
      balance: 5,
      last: { kind: 'training', cost: 100 },
    });

    // A balance that still pays for the last action is not low, and nothing is mailed.
    const other = await ts.signUp({ credits: 30 });
    await ts.rt.credits.debit(other.userId, 10, 'Character training', `training:${randomUUID()}`);
    expect(await (await other.client.get('/api/credits/low-balance')).json()).toMatchObject({ low: false, balance: 20 });

    // Notifications off: low, but no message is written.
    const quiet = await ts.signUp({ credits: 10 });
    await quiet.client.fetch('/api/me/notifications', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email_notifications: false }),
    });
    await ts.rt.credits.debit(quiet.userId, 10, 'Character training', `training:${randomUUID()}`);
    expect(await (await quiet.client.get('/api/credits/low-balance')).json()).toMatchObject({ low: true, balance: 0 });
    expect(
      await ts.rt.db
        .select()
        .from(mailOutbox)
        .where(and(eq(mailOutbox.userId, quiet.userId), eq(mailOutbox.kind, 'low-balance'))),
    ).toHaveLength(0);
    expect(smtp.to(email)).toHaveLength(2);
  });

  it('an SMTP failure is retried with backoff and the message arrives once; the causing action never waits for it', async () => {
    const { userId, email } = await ts.signUp();
    await smtp.waitFor(email);
    smtp.mode = 'fail';
    const refusedBefore = smtp.refused;
    const id = await trainingRow(ts, userId, 'Eve');
    await endTraining(ts, id, 'COMPLETED');
    await waitFor('a refused attempt', async () => smtp.refused > refusedBefore);
    const [row] = await ts.rt.db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.dedupeKey, `character-ready:${id}`));
    await waitFor('the retry scheduled', async () => {
      const [r] = await ts.rt.db.select().from(mailOutbox).where(eq(mailOutbox.id, row.id));
      return r.attempts >= 1 && r.status === 'PENDING' && r.lastError?.includes('Try again later');
    });
    smtp.mode = 'accept';
    await smtp.waitFor(email, 2);
    await new Promise((r) => setTimeout(r, 500));
    expect(smtp.to(email).filter((m) => m.mail.subject === 'Your character Eve is ready')).toHaveLength(1);
    const [sent] = await ts.rt.db.select().from(mailOutbox).where(eq(mailOutbox.id, row.id));
    expect(sent.status).toBe('SENT');
    expect(sent.payload).toEqual({});
    const metrics = parseMetrics(
      await (await fetch(`${ts.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-metrics-token' } })).text(),
    );
    expect(metrics.get('likeness_mail_total{kind="character-ready",outcome="retried"}')).toBeGreaterThanOrEqual(1);
    expect(metrics.get('likeness_mail_total{kind="character-ready",outcome="sent"}')).toBeGreaterThanOrEqual(1);
  });

  it('a hanging SMTP server times out and is tried later; a reset request is answered at once meanwhile', async () => {
    const { email } = await ts.signUp();
    await smtp.waitFor(email);
    smtp.mode = 'hang';
    const started = Date.now();
    const res = await ts.client().post('/api/auth/request-password-reset', { email });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    const row = await waitFor(
      'a timed-out attempt',
      async () => {
        const rows = await ts.rt.db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, email));
        return rows.find((r) => r.kind === 'password-reset' && r.attempts >= 1 && r.status === 'PENDING');
      },
      15_000,
    );
    expect(row.lastError).toMatch(/greeting never received|timeout|no answer/i);
    smtp.mode = 'accept';
    await smtp.waitFor(email, 2);
  });

  it('gives a message up 24 hours after it was written, with a log line and a metric', async () => {
    const { email } = await pendingSignUp();
    await smtp.waitFor(email);
    smtp.mode = 'fail';
    await ts.client().post('/api/auth/send-verification-email', { email });
    const row = await waitFor('the second confirmation row', async () =>
      (await ts.rt.db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, email))).find(
        (r) => r.kind === 'verify-email' && r.status === 'PENDING',
      ),
    );
    await ts.rt.db
      .update(mailOutbox)
      .set({ createdAt: new Date(Date.now() - 25 * 3600_000), nextRunAt: new Date() })
      .where(eq(mailOutbox.id, row.id));
    await waitFor(
      'given up',
      async () => (await ts.rt.db.select().from(mailOutbox).where(eq(mailOutbox.id, row.id)))[0].status === 'FAILED',
    );
    expect(logLines.some((l) => l.msg === 'mail given up: not delivered within 24 hours' && l.mailId === row.id)).toBe(true);
    const metrics = parseMetrics(
      await (await fetch(`${ts.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-metrics-token' } })).text(),
    );
    expect(metrics.get('likeness_mail_total{kind="verify-email",outcome="given_up"}')).toBe(1);
  });

  it('gives a reset mail up once its one-hour link has expired, rather than send a link that no longer works', async () => {
    const { email } = await ts.signUp();
    await smtp.waitFor(email);
    smtp.mode = 'fail';
    await ts.client().post('/api/auth/request-password-reset', { email });
    const row = await waitFor('a failed attempt at the reset mail', async () =>
      (await ts.rt.db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, email))).find(
        (r) => r.kind === 'password-reset' && r.attempts > 0,
      ),
    );
    // Still failing an hour later: the next attempt would be within the day the outbox otherwise keeps trying.
    await ts.rt.db
      .update(mailOutbox)
      .set({ createdAt: new Date(Date.now() - 61 * 60_000), nextRunAt: new Date() })
      .where(eq(mailOutbox.id, row.id));
    await waitFor(
      'given up',
      async () => (await ts.rt.db.select().from(mailOutbox).where(eq(mailOutbox.id, row.id)))[0].status === 'FAILED',
    );
    expect(logLines.some((l) => l.msg === 'mail given up: its link expired before it was delivered' && l.mailId === row.id)).toBe(true);
    expect(smtp.to(email).filter((m) => /Reset/.test(m.mail.subject ?? ''))).toHaveLength(0);
  });
});

describe('mail requests are rate-limited per address and client address', () => {
  let smtp: TestSmtp;
  let ts: TestServer;
  beforeAll(async () => {
    smtp = await startTestSmtp();
    ts = await startTestServer({
      mailbox: mailboxOf(smtp),
      env: { SMTP_URL: smtp.url, AUTH_RATE_LIMIT: '2', ...FAST_MAIL },
      runtime: { mailPollMs: 100 },
    });
  });
  afterAll(async () => {
    await ts?.stop();
    await smtp?.close();
  });

  it('answers 429 past the limit, for known and unknown addresses alike', async () => {
    const visitor = ts.client();
    for (const email of ['someone@example.com', `nobody-${randomUUID()}@example.com`]) {
      expect((await visitor.post('/api/auth/request-password-reset', { email })).status).toBe(200);
      expect((await visitor.post('/api/auth/request-password-reset', { email })).status).toBe(200);
      const third = await visitor.post('/api/auth/request-password-reset', { email });
      expect(third.status).toBe(429);
      expect((await third.json()).message).toBe('Too many requests. Please wait a few minutes and try again.');
    }
    const bad = await visitor.post('/api/auth/request-password-reset', { email: 'a\u0000b@example.com' });
    expect(bad.status).toBe(400);
  });
});

describe('buying a plan with REQUIRE_VERIFIED_EMAIL=true', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ env: { REQUIRE_VERIFIED_EMAIL: 'true' }, runtime: { mailPollMs: 100 } });
  });
  afterAll(async () => ts?.stop());

  it('needs a confirmed address (a session of an account made before sign-up asked for one)', async () => {
    const { client, userId, email } = await ts.signUp();
    // Accounts made before sign-up asked for a confirmation are signed in unconfirmed until their sessions end.
    await ts.rt.db.update(authUsers).set({ emailVerified: false }).where(eq(authUsers.email, email));
    const body = { plan: 'BASIC', userId, email };
    const refused = await client.post('/api/billing/checkout', body);
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe('email_not_verified');
    // 'Send again' on the banner mails a link, from the local outbox, that confirms it.
    expect((await client.post('/api/auth/send-verification-email', { email })).status).toBe(200);
    await waitFor('the second confirmation', async () => (await ts.rt.mail.outbox!.list()).filter((m) => m.to === email).length === 2);
    const link = await ts.mailedLink(email, '/api/auth/verify-email');
    expect(link).toContain(encodeURIComponent('/verify-email'));
    expect(link).not.toContain('next');
    await client.get(link);
    expect((await client.post('/api/billing/checkout', body)).status).toBe(200);
  });
});

describe('the local outbox (no SMTP_URL)', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ runtime: { mailPollMs: 100 } });
  }, 180_000);
  afterAll(async () => ts?.stop());

  it('keeps each message in DATA_DIR and shows it at /sandbox/mail, clearly as a local outbox', async () => {
    const { email } = await ts.signUp({ name: 'Zed <script>alert(1)</script>' });
    await ts.client().post('/api/auth/request-password-reset', { email });
    const list = await waitFor('two messages', async () => {
      const page = await (await fetch(`${ts.url}/sandbox/mail`)).text();
      return (page.match(new RegExp(email, 'g')) ?? []).length >= 2 ? page : undefined;
    });
    expect(list).toContain('Local outbox — nothing here was sent; SMTP_URL is not set');
    const id = /href="\/sandbox\/mail\/([^"]+)">Reset your Likeness password/.exec(list)![1];
    const message = await (await fetch(`${ts.url}/sandbox/mail/${id}`)).text();
    expect(message).toContain('Local outbox');
    expect(message).toMatch(/\/api\/auth\/reset-password\/[A-Za-z0-9]+/);
    const html = await fetch(`${ts.url}/sandbox/mail/${id}/html`);
    expect(html.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await html.text()).toContain('Set a new password');
    expect((await fetch(`${ts.url}/sandbox/mail/../../auth-secret`)).status).toBe(404);
    expect((await fetch(`${ts.url}/sandbox/mail/2026-01-01T00-00-00.000Z-${randomUUID()}`)).status).toBe(404);
  });

  it('erasing an account removes its mail: the rows, and the copies the outbox kept', async () => {
    const { userId, email } = await ts.signUp();
    const id = await trainingRow(ts, userId, 'Fay');
    await endTraining(ts, id, 'COMPLETED');
    const mine = () =>
      ts.rt.db
        .select()
        .from(mailOutbox)
        .where(or(eq(mailOutbox.userId, userId), eq(mailOutbox.toAddress, email)));
    expect((await mine()).length).toBeGreaterThanOrEqual(2);
    const listed = async () => ((await (await fetch(`${ts.url}/sandbox/mail`)).text()).match(new RegExp(email, 'g')) ?? []).length;
    await waitFor('the confirmation and the character mail in the outbox', async () => (await listed()) >= 2);
    const someoneElse = await ts.signUp();
    await waitFor("another person's confirmation in the outbox", async () =>
      (await ts.rt.mail.outbox!.list()).some((m) => m.to === someoneElse.email),
    );

    await ts.rt.erasure.eraseSelected({ email });
    expect(await mine()).toHaveLength(0);
    expect(await listed()).toBe(0);
    const files = await readdir(join(ts.rt.config.dataDir, 'outbox'));
    expect(files.some((name) => name.endsWith('.eml'))).toBe(true);
    for (const name of files.filter((n) => n.endsWith('.eml')))
      expect(await readFile(join(ts.rt.config.dataDir, 'outbox', name), 'utf8')).not.toContain(email);
    expect((await ts.rt.mail.outbox!.list()).some((m) => m.to === someoneElse.email)).toBe(true);
  });
});

describe('who may open the local outbox', () => {
  /** The app as @hono/node-server calls it for a connection whose socket comes from `remoteAddress`. */
  const fromPeer = (ts: TestServer, remoteAddress: string, path = '/sandbox/mail') =>
    buildApp(ts.rt).fetch(new Request(`http://likeness.test${path}`), { incoming: { socket: { remoteAddress } }, outgoing: {} });

  it("a developer's server: this machine's connections only, judged by the socket and never by a header", async () => {
    const ts = await startTestServer();
    try {
      const { email } = await ts.signUp();
      await ts.client().post('/api/auth/request-password-reset', { email });
      await waitFor('the reset mail', async () => (await ts.rt.mail.outbox!.list()).find((m) => m.to === email));
      expect((await fetch(`${ts.url}/sandbox/mail`)).status).toBe(200);
      for (const peer of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect((await fromPeer(ts, peer)).status).toBe(200);
      const id = (await ts.rt.mail.outbox!.list()).find((m) => m.to === email)!.id;
      for (const path of ['/sandbox/mail', `/sandbox/mail/${id}`, `/sandbox/mail/${id}/html`]) {
        for (const peer of ['192.0.2.7', '2001:db8::7', '::ffff:10.0.0.1']) {
          const res = await fromPeer(ts, peer, path);
          expect(res.status).toBe(404);
          const page = await res.text();
          expect(page).toContain('The local outbox is shown only on the machine this server runs on');
          expect(page).not.toContain(email);
          expect(page).not.toContain('reset-password');
        }
      }
      // The sign-up screen links to the outbox only for a caller the page would show it to.
      expect((await (await fromPeer(ts, '127.0.0.1', '/api/public-config')).json()).mailOutboxPage).toBe(true);
      expect((await (await fromPeer(ts, '192.0.2.7', '/api/public-config')).json()).mailOutboxPage).toBe(false);
      // A header names no machine: the same outside connection claiming to be local is refused too.
      const claimed = await buildApp(ts.rt).fetch(
        new Request('http://localhost/sandbox/mail', {
          headers: { 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1', host: 'localhost' },
        }),
        { incoming: { socket: { remoteAddress: '192.0.2.7' } }, outgoing: {} },
      );
      expect(claimed.status).toBe(404);
    } finally {
      await ts.stop();
    }
  });

  it('a public server, or one behind a proxy, shows it to nobody, also with SANDBOX_PAYMENTS=allow; MAIL_OUTBOX_PAGE=on opens it on purpose', async () => {
    const products = { BASIC: 'prod_b', STANDARD: 'prod_s', PROFESSIONAL: 'prod_p' };
    const creem = await startFakeCreem({ apiKey: 'creem_test_key', products: Object.values(products) });
    const publicServers: Record<string, string>[] = [
      {
        PUBLIC_URL: 'https://127.0.0.1:8443',
        ...creemEnv({ url: creem.url, apiKey: 'creem_test_key', webhookSecret: 'whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQ=', products }),
      },
      // The switch for the test checkout publishes no mail.
      { PUBLIC_URL: 'https://127.0.0.1:8443', SANDBOX_PAYMENTS: 'allow' },
      // Behind a reverse proxy on this machine every connection comes from loopback.
      { TRUST_PROXY: 'true' },
    ];
    try {
      for (const env of publicServers) {
        const ts = await startTestServer({ env });
        try {
          const res = await fetch(`${ts.url}/sandbox/mail`);
          expect(res.status).toBe(404);
          expect(await res.text()).toContain(
            'This server is public (it is reached over https or through a proxy), so its mail is not shown here.',
          );
        } finally {
          await ts.stop();
        }
      }
    } finally {
      await creem.stop();
    }
    const opened = await startTestServer({
      env: { PUBLIC_URL: 'https://127.0.0.1:8443', SANDBOX_PAYMENTS: 'allow', MAIL_OUTBOX_PAGE: 'on' },
    });
    try {
      expect((await fetch(`${opened.url}/sandbox/mail`)).status).toBe(200);
      expect((await fromPeer(opened, '192.0.2.7')).status).toBe(200);
    } finally {
      await opened.stop();
    }
    expect(() => loadConfig({ MAIL_OUTBOX_PAGE: 'yes' })).toThrow(/MAIL_OUTBOX_PAGE: must be "on" or empty/);
    // Four fresh servers: slow to start on a busy machine.
  }, 300_000);

  it('with SMTP there is no outbox page at all', async () => {
    const smtp = await startTestSmtp();
    const ts = await startTestServer({ env: { SMTP_URL: smtp.url, MAIL_OUTBOX_PAGE: 'on' } });
    try {
      const res = await fetch(`${ts.url}/sandbox/mail`);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain('Mail goes out over SMTP on this server (SMTP_URL is set), so nothing is kept here.');
    } finally {
      await ts.stop();
      await smtp.close();
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('two instances on one Postgres', () => {
  it('send each notification once, also when the SMTP server refuses the first attempts', async () => {
    const smtp = await startTestSmtp();
    const a = await startTestServer({
      database: 'postgres',
      mailbox: mailboxOf(smtp),
      env: { SMTP_URL: smtp.url, ...FAST_MAIL },
      runtime: { mailPollMs: 50 },
    });
    const b = await startTestServer({
      databaseUrl: a.rt.config.DATABASE_URL!,
      env: { SMTP_URL: smtp.url, ...FAST_MAIL },
      runtime: { mailPollMs: 50 },
    });
    try {
      const { userId, email } = await a.signUp();
      await smtp.waitFor(email);
      smtp.mode = 'fail';
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const id = await trainingRow(a, userId, `Twin ${i}`);
        ids.push(id);
        // Both instances end the same training (a webhook and the poller, say): one row, one message.
        await Promise.all([endTraining(a, id, i % 2 ? 'FAILED' : 'COMPLETED'), endTraining(b, id, i % 2 ? 'FAILED' : 'COMPLETED')]);
      }
      await waitFor('refused attempts', async () => smtp.refused >= 3);
      smtp.mode = 'accept';
      await smtp.waitFor(email, 13);
      await new Promise((r) => setTimeout(r, 1500));
      const notifications = smtp.to(email).filter((m) => /Twin/.test(m.mail.subject ?? ''));
      expect(notifications).toHaveLength(12);
      expect(new Set(notifications.map((m) => m.mail.messageId)).size).toBe(12);
      const rows = await a.rt.db.select().from(mailOutbox).where(eq(mailOutbox.userId, userId));
      expect(rows.every((r) => r.status === 'SENT')).toBe(true);
      expect(rows.some((r) => r.attempts > 0)).toBe(true);
    } finally {
      await b.stop();
      await a.stop();
      await smtp.close();
    }
  }, 180_000);
});

describe('links in mail from a hosted server whose SPA is served from its own host', () => {
  it("point at the SPA's origin for the app's pages, and at PUBLIC_URL for the server's own", async () => {
    const smtp = await startTestSmtp();
    const clerk = createClerkTestKeys();
    const ts = await startTestServer({
      env: {
        CLERK_JWT_KEY: clerk.publicKeyPem,
        ALLOWED_ORIGINS: TEST_SPA_ORIGIN,
        PUBLIC_URL: 'http://api.likeness.test',
        SMTP_URL: smtp.url,
        ...FAST_MAIL,
      },
      runtime: { mailPollMs: 100 },
    });
    try {
      const [person] = await ts.rt.db
        .insert(users)
        .values({ clerkId: `user_${randomUUID()}`, verifiedEmail: 'hosted.person@example.com' })
        .returning();
      const ready = await trainingRow(ts, person.id, 'Hana');
      await endTraining(ts, ready, 'COMPLETED');
      await enqueueShootReady(ts.rt.db, person.id, { id: randomUUID(), pack: 'Studio', photos: 8 });
      ts.rt.mail.sender.wake();
      const mails = await smtp.waitFor('hosted.person@example.com', 2);
      const character = mails.find((m) => m.mail.subject?.startsWith('Your character'))!;
      expect(linkIn(character, '/app/create-image')).toBe(`${TEST_SPA_ORIGIN}/app/create-image?character=${ready}`);
      const shoot = mails.find((m) => m !== character)!;
      expect(linkIn(shoot, '/app/photo-shoots/')).toMatch(new RegExp(`^${TEST_SPA_ORIGIN}/app/photo-shoots/`));
      expect(linkIn(character, '/mail/unsubscribe')).toMatch(/^http:\/\/api\.likeness\.test\/mail\/unsubscribe\?/);
    } finally {
      await ts.stop();
      await smtp.close();
    }
  }, 180_000);
});
