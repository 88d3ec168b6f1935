import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { clientAddress } from '../../server/http/client-address.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const LIMIT = 3;
const PASSWORD = 'correct-horse-1';

describe('clientAddress', () => {
  const proxied = { trustProxy: true, proxyHops: 1 };
  it('uses the socket peer unless a proxy is trusted', () => {
    expect(clientAddress('10.0.0.1', '1.2.3.4', { trustProxy: false, proxyHops: 1 })).toBe('10.0.0.1');
  });
  it('takes the entry the trusted proxies appended, never a client-written one', () => {
    expect(clientAddress('10.0.0.1', '6.6.6.6, 1.2.3.4', proxied)).toBe('1.2.3.4');
    expect(clientAddress('10.0.0.1', '6.6.6.6, 1.2.3.4, 10.0.0.9', { trustProxy: true, proxyHops: 2 })).toBe('1.2.3.4');
    expect(clientAddress('10.0.0.1', '1.2.3.4', { trustProxy: true, proxyHops: 3 })).toBe('1.2.3.4');
  });
  it('keys IPv6 callers by their /64 and unwraps IPv4-mapped addresses', () => {
    expect(clientAddress('2001:db8:1:2:aaaa::1', undefined, proxied)).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:db8:1:2:bbbb:cccc:dddd:eeee', undefined, proxied)).toBe('2001:db8:1:2::/64');
    expect(clientAddress('::ffff:192.0.2.7', undefined, proxied)).toBe('192.0.2.7');
  });
});

describe('sign-in limits', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ env: { AUTH_RATE_LIMIT: String(LIMIT), TRUST_PROXY: 'true' } });
  });
  afterAll(() => ts?.stop());

  /** A sign-in as arriving through the trusted proxy from `address` (the proxy appends it last). */
  const signIn = (email: string, password: string, address: string, opts: { form?: boolean; spoof?: string } = {}) =>
    ts.client().fetch('/api/auth/sign-in/email', {
      method: 'POST',
      headers: {
        'content-type': opts.form ? 'application/x-www-form-urlencoded' : 'application/json',
        'x-forwarded-for': opts.spoof ? `${opts.spoof}, ${address}` : address,
      },
      body: opts.form ? new URLSearchParams({ email, password }).toString() : JSON.stringify({ email, password }),
    });
  const newAccount = async () => (await ts.signUp({ email: `owner-${randomUUID().slice(0, 8)}@example.com` })).email;

  it('counts form-encoded guesses like JSON ones', async () => {
    const email = await newAccount();
    const answers = [];
    for (let i = 0; i < LIMIT + 1; i++) answers.push((await signIn(email, `wrong-guess-${i}`, '203.0.113.10', { form: true })).status);
    expect(answers).toEqual([...Array(LIMIT).fill(401), 429]);
    // The right password from the guessing address is refused too: the limit does not reveal it.
    expect((await signIn(email, PASSWORD, '203.0.113.10', { form: true })).status).toBe(429);
  });

  it('ignores client-written X-Forwarded-For entries', async () => {
    const email = await newAccount();
    const answers = [];
    for (let i = 0; i < LIMIT + 1; i++)
      answers.push((await signIn(email, `wrong-guess-${i}`, '203.0.113.20', { spoof: `198.51.100.${i}` })).status);
    expect(answers).toEqual([...Array(LIMIT).fill(401), 429]);
  });

  it('never counts a successful sign-in, and a success forgives earlier typos', async () => {
    const email = await newAccount();
    const answers = [];
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < LIMIT - 1; i++) answers.push((await signIn(email, 'typo-typo-typo', '203.0.113.30')).status);
      answers.push((await signIn(email, PASSWORD, '203.0.113.30')).status);
    }
    for (let i = 0; i < LIMIT + 1; i++) answers.push((await signIn(email, PASSWORD, '203.0.113.30')).status);
    expect(answers).toEqual([401, 401, 200, 401, 401, 200, ...Array(LIMIT + 1).fill(200)]);
  });

  it('does not let guesses from elsewhere lock the owner out', async () => {
    const email = await newAccount();
    expect((await signIn(email, PASSWORD, '192.0.2.50')).status).toBe(200); // the owner's usual address
    // Three attackers each use up their tries on the owner's account, and try on.
    for (const attacker of ['203.0.113.41', '203.0.113.42', '203.0.113.43']) {
      for (let i = 0; i < LIMIT; i++) expect((await signIn(email, `guess-${i}`, attacker)).status).toBe(401);
      expect((await signIn(email, 'guess-again', attacker)).status).toBe(429);
    }
    // From the usual address the owner gets straight in.
    expect((await signIn(email, PASSWORD, '192.0.2.50')).status).toBe(200);
    // From a new address too, after a slowdown for the 9 failures past the limit (~1.5 s), not a refusal.
    const started = Date.now();
    expect((await signIn(email, PASSWORD, '192.0.2.99')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
  }, 120_000); // 17 sign-ins, each hashing a password: well past 30 s on a busy machine
});

describe('sign-up', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer();
  });
  afterAll(() => ts?.stop());

  const signUp = (body: Record<string, unknown>, form = false) =>
    ts.client().fetch('/api/auth/sign-up/email', {
      method: 'POST',
      headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
      body: form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body),
    });

  it.each([
    ['password', /one of the ten most common passwords/],
    ['aaaaaaaa', /repeated characters/],
    ['Summer2024!', /similar to a common password/],
    ['marialopez7', /contains your name or e-mail address/],
  ])('refuses the weak password %s, whatever the encoding', async (password, why) => {
    for (const form of [false, true]) {
      const res = await signUp({ email: `maria.lopez-${randomUUID().slice(0, 6)}@example.com`, name: 'Maria Lopez', password }, form);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.message).toMatch(/^This password is too easy to guess/);
      expect(body.message).toMatch(why);
    }
  });

  it('refuses text Postgres cannot store and over-long fields, naming the field', async () => {
    const email = () => `x-${randomUUID().slice(0, 6)}@example.com`;
    const cases: [Record<string, unknown>, string][] = [
      [{ email: email(), name: 'Nul\u0000Name', password: PASSWORD }, 'name'],
      [{ email: email(), name: 'Lone \ud800', password: PASSWORD }, 'name'],
      [{ email: email(), name: 'x'.repeat(101), password: PASSWORD }, 'name'],
      [{ email: `a\u0000${email()}`, name: 'Ann', password: PASSWORD }, 'email'],
      [{ email: email(), name: 'Ann', password: 42 }, 'password'],
    ];
    for (const [body, field] of cases) {
      const res = await signUp(body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect((await res.json()).message).toMatch(new RegExp(`^${field}: `));
    }
    const signIn = await ts.client().post('/api/auth/sign-in/email', { email: 'a\u0000b@example.com', password: PASSWORD });
    expect(signIn.status).toBe(400);
    expect((await signIn.json()).message).toMatch(/^email: /);
  });

  it('answers a taken e-mail as a new one, for a strong password and a weak one alike (issue 47)', async () => {
    const { email } = await ts.signUp();
    const fresh = `x-${randomUUID().slice(0, 6)}@example.com`;
    for (const password of ['another-strong-passphrase', 'password']) {
      const taken = await signUp({ email, name: 'Someone Else', password });
      const unused = await signUp({ email: fresh, name: 'Someone Else', password });
      expect(taken.status).toBe(unused.status);
      expect(taken.status).toBe(password === 'password' ? 400 : 200);
    }
  });
});
