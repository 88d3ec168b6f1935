import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clerkFrontendApi } from '@common/clerk-frontend-api.ts';
import {
  hostedContentSecurityPolicy,
  LOCAL_CONTENT_SECURITY_POLICY,
  PolicyInputError,
  staticHostHeaders,
} from '@common/content-security-policy.ts';
import { ConfigError } from '../../server/config.ts';
import { spaContentSecurityPolicy } from '../../server/http/spa-policy.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const key = (prefix: 'pk_test_' | 'pk_live_', decoded: string) => `${prefix}${Buffer.from(decoded).toString('base64')}`;
const DEV_KEY = key('pk_test_', 'foo-bar-13.clerk.accounts.dev$');
const LIVE_KEY = key('pk_live_', 'clerk.example.com$');
const SUPABASE = 'https://abcdefghijklmnop.supabase.co';

/** The policy the server sent before this change, word for word: local mode keeps it. */
const LOCAL_POLICY_BEFORE = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "media-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** A built SPA folder: index.html, build-mode.txt and, for a hosted build, hosted-build.json. */
function spaFolder(mode: 'hosted' | 'local', record?: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'likeness-spa-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="root"></div>');
  writeFileSync(join(dir, 'build-mode.txt'), mode);
  if (record) writeFileSync(join(dir, 'hosted-build.json'), JSON.stringify(record));
  return dir;
}
const hostedRecord = (over: Record<string, string> = {}) => ({
  VITE_CLERK_PUBLISHABLE_KEY: DEV_KEY,
  VITE_SUPABASE_URL: SUPABASE,
  VITE_API_URL: '',
  ...over,
});

describe('the hosted SPA policy', () => {
  it('opens exactly what a development instance (pk_test_) and the Supabase project need', () => {
    expect(hostedContentSecurityPolicy({ publishableKey: DEV_KEY, supabaseUrl: SUPABASE })).toBe(
      [
        "default-src 'self'",
        "script-src 'self' https://foo-bar-13.clerk.accounts.dev https://challenges.cloudflare.com",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob: https://img.clerk.com",
        "font-src 'self' data:",
        `connect-src 'self' https://foo-bar-13.clerk.accounts.dev ${SUPABASE} wss://abcdefghijklmnop.supabase.co`,
        "media-src 'self' blob:",
        "worker-src 'self' blob:",
        'frame-src https://challenges.cloudflare.com',
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
      ].join('; '),
    );
  });

  it('uses a production instance’s custom domain (pk_live_), and an API on another origin for connections and images', () => {
    const policy = hostedContentSecurityPolicy({
      publishableKey: LIVE_KEY,
      supabaseUrl: `${SUPABASE}/`,
      apiUrl: 'https://api.example.com/',
    });
    expect(policy).toContain("script-src 'self' https://clerk.example.com https://challenges.cloudflare.com;");
    expect(policy).toContain(
      `connect-src 'self' https://clerk.example.com ${SUPABASE} wss://abcdefghijklmnop.supabase.co https://api.example.com;`,
    );
    expect(policy).toContain("img-src 'self' data: blob: https://img.clerk.com https://api.example.com;");
    expect(policy).not.toMatch(/unsafe-eval|\*/);
  });

  it('opens connections to the checkout and portal workers when the build names them, and nothing else for them', () => {
    const policy = hostedContentSecurityPolicy({
      publishableKey: LIVE_KEY,
      supabaseUrl: SUPABASE,
      apiUrl: 'https://api.example.com',
      checkoutWorkerUrl: 'https://likeness-checkout.acct.workers.dev',
      portalWorkerUrl: 'https://api.example.com/portal',
    });
    expect(policy).toContain(
      `connect-src 'self' https://clerk.example.com ${SUPABASE} wss://abcdefghijklmnop.supabase.co https://api.example.com https://likeness-checkout.acct.workers.dev;`,
    );
    expect(policy).toContain("img-src 'self' data: blob: https://img.clerk.com https://api.example.com;");
    expect(policy.match(/workers\.dev/g)).toHaveLength(1);
  });

  it.each([
    ['VITE_CHECKOUT_WORKER_URL', 'checkoutWorkerUrl', 'https://checkout.example.workers.dev/?x=1', 'must not have a query'],
    ['VITE_PORTAL_WORKER_URL', 'portalWorkerUrl', 'https://user:pw@portal.example.workers.dev', 'must not carry credentials'],
    ['VITE_PORTAL_WORKER_URL', 'portalWorkerUrl', 'portal.example.workers.dev', 'is not a URL'],
  ])('refuses a bad worker address, naming %s', (name, field, value, message) => {
    expect(() => hostedContentSecurityPolicy({ publishableKey: DEV_KEY, supabaseUrl: SUPABASE, [field]: value })).toThrow(
      new RegExp(`^${name}: .*${message}`),
    );
  });

  it('reads the Frontend API host as @clerk/shared does (base64 with or without padding, then `$`)', () => {
    expect(clerkFrontendApi(LIVE_KEY)).toEqual({ host: 'clerk.example.com' });
    expect(clerkFrontendApi(LIVE_KEY.replace(/=+$/, ''))).toEqual({ host: 'clerk.example.com' });
  });

  it.each([
    ['a space', 'clerk example.com$'],
    ['a semicolon', "clerk.example.com; script-src 'unsafe-eval'$"],
    ['a quote', "clerk.example.com'$"],
    ['a path', 'clerk.example.com/npm$'],
    ['a port', 'clerk.example.com:8443$'],
    ['no `$` at the end', 'clerk.example.com'],
    ['no dot', 'localhost$'],
  ])('refuses a publishable key whose host has %s, naming VITE_CLERK_PUBLISHABLE_KEY', (_what, decoded) => {
    const run = () => hostedContentSecurityPolicy({ publishableKey: key('pk_live_', decoded), supabaseUrl: SUPABASE });
    expect(run).toThrow(PolicyInputError);
    expect(run).toThrow(/^VITE_CLERK_PUBLISHABLE_KEY: /);
  });

  it.each([
    ['a path', `${SUPABASE}/rest/v1`, 'must not have a path'],
    ['a query', `${SUPABASE}?x=1`, 'must not have a query'],
    ['credentials', 'https://user:secret@abcdefghijklmnop.supabase.co', 'must not carry credentials'],
    ['another scheme', 'ftp://abcdefghijklmnop.supabase.co', 'must be an http(s) URL'],
    ['no URL at all', 'abcdefghijklmnop.supabase.co', '"abcdefghijklmnop.supabase.co" is not a URL'],
  ])('refuses a Supabase URL with %s, naming VITE_SUPABASE_URL', (_what, supabaseUrl, message) => {
    expect(() => hostedContentSecurityPolicy({ publishableKey: DEV_KEY, supabaseUrl })).toThrow(`VITE_SUPABASE_URL: ${message}`);
  });

  it('refuses an http Supabase URL under an https PUBLIC_URL (mixed content), and takes it on http (local tests)', () => {
    expect(() =>
      hostedContentSecurityPolicy({
        publishableKey: DEV_KEY,
        supabaseUrl: 'http://127.0.0.1:54321',
        publicUrl: 'https://likeness.example',
      }),
    ).toThrow(/^VITE_SUPABASE_URL: is http while PUBLIC_URL is https/);
    expect(
      hostedContentSecurityPolicy({ publishableKey: DEV_KEY, supabaseUrl: 'http://127.0.0.1:54321', publicUrl: 'http://127.0.0.1:3000' }),
    ).toContain('http://127.0.0.1:54321 ws://127.0.0.1:54321');
  });

  it('writes _headers for static hosts with the policy, the other security headers, and app pages never kept', () => {
    const policy = hostedContentSecurityPolicy({ publishableKey: DEV_KEY, supabaseUrl: SUPABASE });
    expect(staticHostHeaders(policy).split('\n')).toEqual([
      '/*',
      `  Content-Security-Policy: ${policy}`,
      '  X-Content-Type-Options: nosniff',
      '  Referrer-Policy: strict-origin-when-cross-origin',
      '  X-Frame-Options: DENY',
      '  Cross-Origin-Opener-Policy: same-origin',
      '  Permissions-Policy: camera=(), microphone=(), geolocation=()',
      ...['/', '/index.html', '/app', '/app/*', '/sign-in', '/sign-in/*', '/sign-up', '/sign-up/*'].flatMap((path) => [
        path,
        '  Cache-Control: no-store',
      ]),
      '/assets/*',
      '  Cache-Control: public, max-age=31536000, immutable',
      '',
    ]);
  });
});

describe('the policy the server sends', () => {
  const folders: string[] = [];
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const folder = (...args: Parameters<typeof spaFolder>) => {
    const dir = spaFolder(...args);
    folders.push(dir);
    return dir;
  };

  it('keeps the strict local policy for the local build, for API answers and without a build', async () => {
    expect(LOCAL_CONTENT_SECURITY_POLICY).toBe(LOCAL_POLICY_BEFORE);
    server = await startTestServer({ app: { staticDir: folder('local') } });
    for (const path of ['/', '/app/create-image', '/api/health']) {
      expect((await fetch(`${server.url}${path}`)).headers.get('content-security-policy')).toBe(LOCAL_POLICY_BEFORE);
    }
    expect(spaContentSecurityPolicy(undefined, {}).policy).toBe(LOCAL_POLICY_BEFORE);
  }, 120_000);

  it('serves the hosted build with the policy of what it was built with, on every answer', async () => {
    const dir = folder('hosted', hostedRecord({ VITE_CLERK_PUBLISHABLE_KEY: LIVE_KEY }));
    server = await startTestServer({ app: { staticDir: dir } });
    const expected = hostedContentSecurityPolicy({ publishableKey: LIVE_KEY, supabaseUrl: SUPABASE });
    for (const path of ['/', '/sign-in', '/api/health']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.headers.get('content-security-policy')).toBe(expected);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
  }, 120_000);

  it('never lets the browser keep the SPA’s pages or an API answer, local and hosted (Back after Sign Out)', async () => {
    for (const build of [folder('local'), folder('hosted', hostedRecord({ VITE_CLERK_PUBLISHABLE_KEY: LIVE_KEY }))]) {
      mkdirSync(join(build, 'assets'), { recursive: true });
      writeFileSync(join(build, 'assets', 'app-1a2b3c.js'), 'export {};');
      server = await startTestServer({ app: { staticDir: build } });
      for (const path of ['/', '/index.html', '/app/profile', '/app/my-generations?page=2', '/sign-in', '/pricing', '/api/health']) {
        expect((await fetch(`${server.url}${path}`)).headers.get('cache-control'), path).toBe('no-store');
      }
      // Routes that choose their own keep it; the hashed assets are kept for good.
      expect((await fetch(`${server.url}/api/public-config`)).headers.get('cache-control')).toBe('private, max-age=300');
      expect((await fetch(`${server.url}/assets/app-1a2b3c.js`)).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      await server.stop();
      server = undefined;
    }
  }, 120_000);

  it('refuses to start on a hosted build whose settings cannot go into the header, naming the variable', () => {
    const bad = [
      [
        hostedRecord({ VITE_CLERK_PUBLISHABLE_KEY: key('pk_live_', 'clerk.example.com; img-src *$') }),
        {},
        /^VITE_CLERK_PUBLISHABLE_KEY: decodes to/,
      ],
      [hostedRecord({ VITE_SUPABASE_URL: `${SUPABASE}/rest/v1?apikey=x` }), {}, /^VITE_SUPABASE_URL: must not have a query/],
      [
        hostedRecord({ VITE_SUPABASE_URL: 'https://me:pw@abcdefghijklmnop.supabase.co' }),
        {},
        /^VITE_SUPABASE_URL: must not carry credentials/,
      ],
      [
        hostedRecord({ VITE_SUPABASE_URL: 'http://abcdefghijklmnop.supabase.co' }),
        { publicUrl: 'https://likeness.example' },
        /^VITE_SUPABASE_URL: is http while PUBLIC_URL is https/,
      ],
      [hostedRecord(), { clerkPublishableKey: LIVE_KEY }, /^CLERK_PUBLISHABLE_KEY: differs from VITE_CLERK_PUBLISHABLE_KEY/],
    ] as const;
    for (const [record, opts, message] of bad) {
      const dir = folder('hosted', record);
      let error: unknown;
      try {
        spaContentSecurityPolicy(dir, opts);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues[0]).toMatch(message);
    }
    expect(() => spaContentSecurityPolicy(folder('hosted'), {})).toThrow(ConfigError);
  });
});
