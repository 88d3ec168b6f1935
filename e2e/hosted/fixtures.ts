import { test as base, expect, type BrowserContext, type Page } from '@playwright/test';
import { randomUUID } from 'node:crypto';
import { recordCspViolations } from '../support/csp-violations';
import { HOSTED_E2E } from './support/ports.mjs';

const CONTROL = `http://127.0.0.1:${HOSTED_E2E.controlPort}`;
export const ORIGIN = `http://127.0.0.1:${HOSTED_E2E.port}`;

export interface HostedUser {
  id: string;
  sid: string;
  email: string;
  firstName: string;
  lastName: string;
}

export function newHostedUser(firstName = 'Dana', lastName = 'Park'): HostedUser {
  const id = randomUUID().replace(/-/g, '').slice(0, 24);
  return { id: `user_${id}`, sid: `sess_${id}`, email: `hosted-${id.slice(0, 8)}@example.com`, firstName, lastName };
}

let fakeScript: Promise<string> | null = null;
const fakeClerkJs = () =>
  (fakeScript ??= fetch(`${CONTROL}/fake-clerk.js`).then((r) => {
    if (!r.ok) throw new Error(`fake clerk-js: ${r.status}`);
    return r.text();
  }));

// A 1×1 PNG, for Clerk's image host (avatars).
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNk+A8AAQUBAScY42YAAAAASUVORK5CYII=', 'base64');

/**
 * Clerk at the network layer, as the browser meets it: the Frontend API host serves clerk-js (the project's
 * fake, tests/fakes/clerk-js-browser.ts, configured for `user`), its UI script, and session tokens signed by
 * the suite's Clerk key; img.clerk.com serves avatars. Anything else asked of Clerk is refused and recorded.
 */
export async function routeClerk(context: BrowserContext, user: HostedUser, unexpected: string[]) {
  const api = HOSTED_E2E.frontendApi;
  await context.route(`${api}/**`, async (route) => {
    const url = new URL(route.request().url());
    const origin = route.request().headers().origin ?? '*';
    if (/^\/npm\/@clerk\/clerk-js@6\/dist\/clerk\.browser\.js$/.test(url.pathname)) {
      const config = { frontendApi: api, user: { id: user.id, firstName: user.firstName, lastName: user.lastName, email: user.email } };
      const body = `window.__likenessFakeClerk = ${JSON.stringify(config)};\n${await fakeClerkJs()}`;
      // Loaded with crossorigin="anonymous", as @clerk/shared's loadScript does: CORS applies.
      await route.fulfill({ status: 200, contentType: 'text/javascript', headers: { 'access-control-allow-origin': '*' }, body });
    } else if (/^\/npm\/@clerk\/ui@1\/dist\/ui\.browser\.js$/.test(url.pathname)) {
      await route.fulfill({
        status: 200,
        contentType: 'text/javascript',
        headers: { 'access-control-allow-origin': '*' },
        body: 'window.__internal_ClerkUICtor = function ClerkUI() {};',
      });
    } else if (route.request().method() === 'POST' && /^\/v1\/client\/sessions\/[^/]+\/tokens$/.test(url.pathname)) {
      const res = await fetch(`${CONTROL}/token`, {
        method: 'POST',
        body: JSON.stringify({ id: user.id, sid: user.sid, email: user.email, fullName: `${user.firstName} ${user.lastName}` }),
      });
      const { jwt } = (await res.json()) as { jwt: string };
      await route.fulfill({
        status: 200,
        contentType: 'application/json',
        headers: { 'access-control-allow-origin': origin, vary: 'Origin' },
        body: JSON.stringify({ object: 'token', jwt }),
      });
    } else {
      unexpected.push(`${route.request().method()} ${url.href}`);
      await route.abort();
    }
  });
  await context.route('https://img.clerk.com/**', (route) => route.fulfill({ status: 200, contentType: 'image/png', body: PIXEL }));
}

export const isPhone = (page: Page) => (page.viewportSize()?.width ?? 1280) < 768;

interface HostedFixtures {
  /** The person the fake Clerk signs in (a new one each test). */
  clerkUser: HostedUser;
  /** Requests to Clerk the fake does not serve (a test fails on any). */
  unexpectedClerkCalls: string[];
  /** CSP violations reported in any tab; a test fails on any unless it empties the array itself. */
  cspViolations: string[];
}

export const test = base.extend<HostedFixtures>({
  clerkUser: async ({}, use) => use(newHostedUser()),
  unexpectedClerkCalls: async ({}, use) => use([]),
  cspViolations: [
    async ({ context }, use) => {
      const violations = await recordCspViolations(context);
      await use(violations);
      expect(violations, 'no page reports a Content-Security-Policy violation').toEqual([]);
    },
    { auto: true },
  ],
  context: async ({ context, clerkUser, unexpectedClerkCalls }, use) => {
    await routeClerk(context, clerkUser, unexpectedClerkCalls);
    await use(context);
    expect(unexpectedClerkCalls, 'requests to Clerk the fake does not answer').toEqual([]);
  },
});

export { expect };
