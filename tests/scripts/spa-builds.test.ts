/**
 * `npm run build` makes one of two SPAs: the hosted one when the VITE_ hosted variables
 * are set, the local one without them. Each carries only its own adapter: the local build no Clerk or
 * Supabase code, the hosted build no built-in sign-in forms or local data adapter, and Clerk and Supabase
 * only as lazy chunks. A hosted build with a publishable key that is not pk_test_/pk_live_ stops at start
 * with the spec's message (checked in Chromium, as a visitor would meet it).
 *
 * Builds for real (vite), so it takes a minute on two cores.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { chromium } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_PUBLISHABLE_KEY } from '../../common/identity-key.ts';
import { hostedContentSecurityPolicy, staticHostHeaders } from '../../common/content-security-policy.ts';
import { CHROMIUM_FLAGS } from '../../playwright.config.ts';
import { TEST_PUBLISHABLE_KEY } from '../helpers/clerk.ts';

const root = join(import.meta.dirname, '..', '..');
const HOSTED = {
  VITE_CLERK_PUBLISHABLE_KEY: TEST_PUBLISHABLE_KEY,
  VITE_SUPABASE_URL: 'https://project.supabase.test',
  VITE_SUPABASE_ANON_KEY: 'anon-key',
  VITE_API_URL: 'https://api.likeness.test',
  VITE_CHECKOUT_WORKER_URL: 'https://likeness-checkout.workers.test',
  VITE_PORTAL_WORKER_URL: 'https://likeness-portal.workers.test/portal',
};

/** Code that only the local adapter and the built-in sign-in have. */
const LOCAL_ONLY = ['/get-session', '/sign-in/email', 'Sign-in failed. Please try again.', 'new EventSource('];
/** Code that only the hosted adapter has (Clerk's SDK and supabase-js name themselves in their requests). */
const HOSTED_ONLY = ['@clerk/react', 'supabase-js', '__client_uat'];

function build(outDir: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITE_')));
  return new Promise((resolve) => {
    const child = spawn(
      join(root, 'node_modules/.bin/node'),
      [join(root, 'node_modules/.bin/vite'), 'build', '--logLevel', 'error', '--outDir', outDir, '--emptyOutDir'],
      {
        cwd: root,
        env: { ...clean, ...env },
      },
    );
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}

const scripts = (dir: string) => readdirSync(join(dir, 'assets')).filter((f) => f.endsWith('.js'));
const read = (dir: string, file: string) => readFileSync(join(dir, 'assets', file), 'utf8');
const holding = (dir: string, needle: string) => scripts(dir).filter((f) => read(dir, f).includes(needle));
/** The entry script index.html loads. */
const entryOf = (dir: string) => /src="\/assets\/([^"]+\.js)"/.exec(readFileSync(join(dir, 'index.html'), 'utf8'))![1];

/** Serves a build as a static host does for an SPA: files, else index.html. */
function serve(dir: string): Promise<Server> {
  const types: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html' };
  const server = createServer((req, res) => {
    const path = join(dir, new URL(req.url ?? '/', 'http://x').pathname);
    const file = existsSync(path) && !path.endsWith('/') && extname(path) ? path : join(dir, 'index.html');
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('the two SPA builds', () => {
  const work = mkdtempSync(join(tmpdir(), 'likeness-builds-'));
  const local = join(work, 'local');
  const hosted = join(work, 'hosted');

  beforeAll(async () => {
    for (const [dir, env] of [
      [local, {}],
      [hosted, HOSTED],
    ] as const) {
      const result = await build(dir, env);
      expect(result.code, result.output).toBe(0);
    }
  }, 240_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('says which build it is', () => {
    expect(readFileSync(join(local, 'build-mode.txt'), 'utf8')).toBe('local');
    expect(readFileSync(join(hosted, 'build-mode.txt'), 'utf8')).toBe('hosted');
  });

  it('the local build holds the local adapter and no Clerk or Supabase code', () => {
    for (const needle of HOSTED_ONLY) expect(holding(local, needle), needle).toEqual([]);
    for (const needle of LOCAL_ONLY) expect(holding(local, needle).length, needle).toBeGreaterThan(0);
  });

  it('the hosted build holds no built-in sign-in or local adapter, and Clerk and Supabase only as lazy chunks', () => {
    for (const needle of LOCAL_ONLY) expect(holding(hosted, needle), needle).toEqual([]);
    const clerk = holding(hosted, '@clerk/react');
    const supabase = holding(hosted, 'supabase-js');
    expect(clerk.length).toBeGreaterThan(0);
    expect(supabase.length).toBeGreaterThan(0);
    const entry = entryOf(hosted);
    expect(clerk).not.toContain(entry);
    expect(supabase).not.toContain(entry);
    // The build's public configuration is in it; our server's address too.
    expect(holding(hosted, HOSTED.VITE_API_URL).length).toBeGreaterThan(0);
    // And the checkout and portal workers' addresses, which the subscription page calls instead of our server.
    expect(holding(hosted, HOSTED.VITE_CHECKOUT_WORKER_URL).length).toBeGreaterThan(0);
    expect(holding(hosted, HOSTED.VITE_PORTAL_WORKER_URL).length).toBeGreaterThan(0);
  });

  it('the hosted build writes its Content-Security-Policy and the security headers to _headers; the local build none', () => {
    const policy = hostedContentSecurityPolicy({
      publishableKey: HOSTED.VITE_CLERK_PUBLISHABLE_KEY,
      supabaseUrl: HOSTED.VITE_SUPABASE_URL,
      apiUrl: HOSTED.VITE_API_URL,
      checkoutWorkerUrl: HOSTED.VITE_CHECKOUT_WORKER_URL,
      portalWorkerUrl: HOSTED.VITE_PORTAL_WORKER_URL,
    });
    const headers = readFileSync(join(hosted, '_headers'), 'utf8');
    expect(headers).toBe(staticHostHeaders(policy));
    expect(headers).toContain(
      "  Content-Security-Policy: default-src 'self'; script-src 'self' https://fake-instance.clerk.accounts.dev https://challenges.cloudflare.com;",
    );
    expect(headers).toContain(
      `connect-src 'self' https://fake-instance.clerk.accounts.dev https://project.supabase.test wss://project.supabase.test https://api.likeness.test https://likeness-checkout.workers.test https://likeness-portal.workers.test;`,
    );
    expect(headers).toContain('  X-Content-Type-Options: nosniff\n');
    // What the server reads when it serves this build (server/http/spa-policy.ts).
    expect(JSON.parse(readFileSync(join(hosted, 'hosted-build.json'), 'utf8'))).toEqual({
      VITE_CLERK_PUBLISHABLE_KEY: HOSTED.VITE_CLERK_PUBLISHABLE_KEY,
      VITE_SUPABASE_URL: HOSTED.VITE_SUPABASE_URL,
      VITE_API_URL: HOSTED.VITE_API_URL,
      VITE_CHECKOUT_WORKER_URL: HOSTED.VITE_CHECKOUT_WORKER_URL,
      VITE_PORTAL_WORKER_URL: HOSTED.VITE_PORTAL_WORKER_URL,
    });
    expect(existsSync(join(local, '_headers'))).toBe(false);
    expect(existsSync(join(local, 'hosted-build.json'))).toBe(false);
  });

  it('a hosted build whose settings cannot go into a header is refused, naming each variable', async () => {
    const badKey = `pk_live_${Buffer.from("clerk.example.com; script-src 'unsafe-eval'$").toString('base64')}`;
    const result = await build(join(work, 'bad-policy'), {
      ...HOSTED,
      VITE_CLERK_PUBLISHABLE_KEY: badKey,
      VITE_SUPABASE_URL: 'https://me:pw@project.supabase.test',
    });
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("The hosted build's Content-Security-Policy cannot be written");
    expect(result.output).toContain('VITE_CLERK_PUBLISHABLE_KEY: decodes to');
    expect(result.output).toContain('VITE_SUPABASE_URL: must not carry credentials');
    expect(existsSync(join(work, 'bad-policy', '_headers'))).toBe(false);
  }, 60_000);

  it('a partial hosted configuration is refused, naming what is missing', async () => {
    const result = await build(join(work, 'partial'), { VITE_CLERK_PUBLISHABLE_KEY: TEST_PUBLISHABLE_KEY });
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('The hosted build needs VITE_SUPABASE_URL and VITE_SUPABASE_ANON_KEY as well');
  }, 60_000);

  // Needs Debian's Chromium, which `npm test` installs before the browser suites (scripts/ensure-chromium.mjs).
  it.runIf(existsSync('/usr/bin/chromium'))(
    `a hosted build with a bad publishable key stops at start with '${INVALID_PUBLISHABLE_KEY}'`,
    async () => {
      const bad = join(work, 'bad-key');
      const result = await build(bad, { ...HOSTED, VITE_CLERK_PUBLISHABLE_KEY: 'sk_live_not_a_publishable_key' });
      expect(result.code, result.output).toBe(0);
      const server = await serve(bad);
      const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
      try {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (err) => errors.push(err.message));
        await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/app/create-image`);
        await page.getByRole('alert').filter({ hasText: INVALID_PUBLISHABLE_KEY }).waitFor();
        expect(errors).toContain(INVALID_PUBLISHABLE_KEY);
      } finally {
        await browser.close();
        await new Promise((r) => server.close(r));
      }
    },
    120_000,
  );
});
