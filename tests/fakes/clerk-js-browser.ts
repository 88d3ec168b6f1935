/**
 * The project's fake of clerk-js (tests/helpers/fake-clerk.ts) as the browser script clerk-js is: the hosted
 * e2e suite answers `https://<frontend-api>/npm/@clerk/clerk-js@6/dist/clerk.browser.js` with this file,
 * bundled (e2e/hosted/fake-clerk-script.ts), so the production build's @clerk/react loads it exactly as it
 * loads the real one: a `<script>` from the Frontend API host, allowed by the page's Content-Security-Policy,
 * that leaves `window.Clerk`, then `Clerk.load(options)`. Nothing in the SPA is switched for the test.
 *
 * What it adds to the shared fake, as clerk-js does in a browser:
 *  - `mountSignIn`/`mountSignUp`: a small form ("Continue") instead of Clerk's widgets, which signs the
 *    configured user in and goes to the redirect URL through the SPA's router (`routerPush`);
 *  - the session survives reloads and is shared by the tabs of one browser (localStorage, as Clerk's client
 *    cookie does), with the `__client_uat` cookie clerk-js sets (the SPA reads it: src/app/hosted-mode.tsx);
 *  - session tokens come from the Frontend API (`POST /v1/client/sessions/<id>/tokens`, as clerk-js asks
 *    for them): the suite answers that route with a token minted by the test's Clerk keys.
 *
 * Configured by `window.__likenessFakeClerk` ({ frontendApi, user }), which the route prepends.
 */
import { createFakeClerk, type FakeClerkUser } from '../helpers/fake-clerk.ts';

interface FakeClerkConfig {
  frontendApi: string;
  user: FakeClerkUser;
}

interface LoadOptions {
  routerPush?: (to: string) => unknown;
  signInFallbackRedirectUrl?: string;
  signUpFallbackRedirectUrl?: string;
  afterSignOutUrl?: string;
}

const config = (window as unknown as { __likenessFakeClerk: FakeClerkConfig }).__likenessFakeClerk;
const SESSION_KEY = 'likeness-fake-clerk:session';
const user: FakeClerkUser = { ...config.user, createdAt: new Date('2026-02-03T04:05:06.000Z') };

let cached: { jwt: string; until: number } | null = null;
async function getToken(): Promise<string | null> {
  if (!fake.clerk.session) return null;
  if (cached && cached.until > Date.now()) return cached.jwt;
  const res = await fetch(`${config.frontendApi}/v1/client/sessions/${fake.clerk.session.id}/tokens`, { method: 'POST' });
  if (!res.ok) throw new Error(`Clerk answered ${res.status} for a session token`);
  const { jwt } = (await res.json()) as { jwt: string };
  // Clerk's tokens live 60 s and clerk-js refreshes them before; 30 s here.
  cached = { jwt, until: Date.now() + 30_000 };
  return jwt;
}

const signedIn = localStorage.getItem(SESSION_KEY) === user.id;
const fake = createFakeClerk({ user: signedIn ? user : null, getToken });
let options: LoadOptions = {};

function setClientCookie(signedInAt: number) {
  document.cookie = `__client_uat=${signedInAt}; path=/; SameSite=Lax`;
}

function mountForm(node: HTMLElement, props: { fallbackRedirectUrl?: string } | undefined, title: string, fallback: string | undefined) {
  const form = document.createElement('form');
  form.setAttribute('aria-label', title);
  form.className = 'rounded-xl border border-border bg-bg p-6 text-center';
  const heading = document.createElement('h1');
  heading.textContent = title;
  heading.className = 'mb-2 text-lg font-semibold';
  const who = document.createElement('p');
  who.textContent = `Test identity provider: continue as ${user.email}`;
  who.className = 'mb-4 text-sm';
  const button = document.createElement('button');
  button.type = 'submit';
  button.textContent = 'Continue';
  button.className = 'rounded-lg bg-brand px-4 py-2 text-white';
  form.append(heading, who, button);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    localStorage.setItem(SESSION_KEY, user.id);
    setClientCookie(Math.floor(Date.now() / 1000));
    fake.signIn(user);
    const to = props?.fallbackRedirectUrl ?? fallback ?? '/';
    if (options.routerPush) void options.routerPush(to);
    else window.location.assign(to);
  });
  node.replaceChildren(form);
}

const clerk = Object.assign(fake.clerk, {
  loaded: false,
  status: 'loading',
  async load(opts: LoadOptions) {
    options = opts ?? {};
    clerk.loaded = true;
    clerk.status = 'ready';
  },
  mountSignIn(node: HTMLElement, props?: { fallbackRedirectUrl?: string }) {
    mountForm(node, props, 'Sign in', options.signInFallbackRedirectUrl);
  },
  unmountSignIn(node: HTMLElement) {
    node.replaceChildren();
  },
  mountSignUp(node: HTMLElement, props?: { fallbackRedirectUrl?: string }) {
    mountForm(node, props, 'Sign up', options.signUpFallbackRedirectUrl);
  },
  unmountSignUp(node: HTMLElement) {
    node.replaceChildren();
  },
});

const signOut = fake.clerk.signOut;
clerk.signOut = async () => {
  localStorage.removeItem(SESSION_KEY);
  setClientCookie(0);
  cached = null;
  await signOut();
  // clerk-js goes to afterSignOutUrl once the session has ended.
  if (options.routerPush && options.afterSignOutUrl) await options.routerPush(options.afterSignOutUrl);
};

(window as unknown as { Clerk: typeof clerk }).Clerk = clerk;
