/**
 * The SPA's Content-Security-Policy and the other security headers, one definition for the server (which
 * serves either build) and the hosted build's `dist/_headers` (static hosts). Plain TypeScript, no
 * dependencies: vite.config.ts imports it too.
 *
 * The local SPA talks only to its own origin. The hosted SPA also needs, exactly as Clerk's CSP guide lists
 * (clerk.com/docs/guides/secure/best-practices/csp-headers) and no more:
 *  - Clerk's Frontend API host, from the publishable key: clerk-js and its UI are scripts from there
 *    (`/npm/@clerk/clerk-js@6/dist/clerk.browser.js`, `/npm/@clerk/ui@1/dist/ui.browser.js`), and every
 *    sign-in and token call goes there (script-src, connect-src);
 *  - https://img.clerk.com: avatars and logos (img-src);
 *  - https://challenges.cloudflare.com: the bot-protection challenge on sign-up, a script and a frame;
 *  - blob: workers (worker-src 'self' blob:), which clerk-js starts for its session-token refresh timers;
 * and the Supabase project's origin for connections: PostgREST over https, Realtime over wss; and, when the build
 * names them, the Cloudflare checkout and portal workers' origins (connections only).
 * No 'unsafe-eval' (zod runs jitless in the SPA), no inline script, no wildcard host.
 */
import { clerkFrontendApi } from './clerk-frontend-api.ts';

export const CLERK_IMAGE_ORIGIN = 'https://img.clerk.com';
export const CLERK_CHALLENGE_ORIGIN = 'https://challenges.cloudflare.com';

type Directives = [name: string, ...sources: string[]][];

const render = (directives: Directives) => directives.map((d) => d.join(' ')).join('; ');

/** The local SPA's policy (and the server's for everything that is not the hosted SPA): own origin only. */
export const LOCAL_CONTENT_SECURITY_POLICY = render([
  ['default-src', "'self'"],
  ['script-src', "'self'"],
  // React and framer-motion set style attributes; no inline <script> is ever allowed.
  ['style-src', "'self'", "'unsafe-inline'"],
  ['img-src', "'self'", 'data:', 'blob:'],
  ['font-src', "'self'", 'data:'],
  ['connect-src', "'self'"],
  ['media-src', "'self'", 'blob:'],
  ['object-src', "'none'"],
  ['base-uri', "'self'"],
  ['form-action', "'self'"],
  ['frame-ancestors', "'none'"],
]);

/** The security headers every page of either build gets, the CSP aside (HSTS is the server's, for https). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
};

/** What the hosted policy is built from, and the variable each value comes from (named in errors). */
export interface HostedPolicyInput {
  /** Clerk's publishable key (VITE_CLERK_PUBLISHABLE_KEY). */
  publishableKey: string;
  /** The Supabase project's URL (VITE_SUPABASE_URL). */
  supabaseUrl: string;
  /** Our server when it is on another origin than the SPA (VITE_API_URL); '' or undefined: same origin. */
  apiUrl?: string;
  /** The server's public address (PUBLIC_URL), when the server serves the SPA: https forbids an http Supabase. */
  publicUrl?: string;
  /** The checkout and portal workers (VITE_CHECKOUT_WORKER_URL, VITE_PORTAL_WORKER_URL); '' or undefined: our server. */
  checkoutWorkerUrl?: string;
  portalWorkerUrl?: string;
}

export class PolicyInputError extends Error {
  constructor(readonly issues: string[]) {
    super(issues.join('\n'));
  }
}

/**
 * `value` as a bare web origin (scheme://host[:port]), or why not; `what` names the variable. `path: true` accepts
 * an address with a path (a worker on a route), still without credentials, query or fragment.
 */
function originOf(
  name: string,
  value: string,
  what: string,
  opts: { path?: boolean } = {},
): { origin: string; protocol: string } | { error: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { error: `${name}: ${JSON.stringify(value)} is not a URL (${what})` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { error: `${name}: must be an http(s) URL (${what})` };
  if (url.username || url.password) return { error: `${name}: must not carry credentials (${what})` };
  if (url.search || value.includes('?')) return { error: `${name}: must not have a query (${what})` };
  if (url.hash || value.includes('#')) return { error: `${name}: must not have a fragment (${what})` };
  if (url.pathname !== '/' && !opts.path) return { error: `${name}: must not have a path (${what})` };
  return { origin: url.origin, protocol: url.protocol };
}

/** The origins the hosted SPA needs besides its own, checked; throws PolicyInputError naming each bad variable. */
export function hostedOrigins(input: HostedPolicyInput) {
  const issues: string[] = [];
  const clerk = clerkFrontendApi(input.publishableKey.trim());
  if ('error' in clerk) issues.push(`VITE_CLERK_PUBLISHABLE_KEY: ${clerk.error}`);
  const supabase = originOf('VITE_SUPABASE_URL', input.supabaseUrl.trim(), 'the Supabase project URL, like https://<ref>.supabase.co');
  if ('error' in supabase) issues.push(supabase.error);
  else if (supabase.protocol === 'http:' && input.publicUrl?.startsWith('https://')) {
    issues.push(
      'VITE_SUPABASE_URL: is http while PUBLIC_URL is https; the browser refuses http requests from an https page (mixed content): use the https project URL',
    );
  }
  const apiUrl = input.apiUrl?.trim();
  const api = apiUrl
    ? originOf('VITE_API_URL', apiUrl.replace(/\/$/, ''), "this server's address, like https://api.example.com")
    : undefined;
  if (api && 'error' in api) issues.push(api.error);
  const workers: string[] = [];
  for (const [name, value] of [
    ['VITE_CHECKOUT_WORKER_URL', input.checkoutWorkerUrl],
    ['VITE_PORTAL_WORKER_URL', input.portalWorkerUrl],
  ] as const) {
    if (!value?.trim()) continue;
    const worker = originOf(name, value.trim(), 'a Cloudflare worker, like https://checkout.example.workers.dev', { path: true });
    if ('error' in worker) issues.push(worker.error);
    else if (!workers.includes(worker.origin)) workers.push(worker.origin);
  }
  if (issues.length || 'error' in clerk || 'error' in supabase || (api && 'error' in api)) throw new PolicyInputError(issues);
  const supabaseOrigin = supabase.origin;
  return {
    clerkFrontendApi: `https://${clerk.host}`,
    supabase: supabaseOrigin,
    supabaseRealtime: supabaseOrigin.replace(/^http/, 'ws'),
    api: api?.origin,
    workers,
  };
}

/** The hosted SPA's Content-Security-Policy (see the top of this file for why each origin is there). */
export function hostedContentSecurityPolicy(input: HostedPolicyInput): string {
  const o = hostedOrigins(input);
  const api = o.api ? [o.api] : [];
  return render([
    ['default-src', "'self'"],
    ['script-src', "'self'", o.clerkFrontendApi, CLERK_CHALLENGE_ORIGIN],
    // Clerk's widgets style themselves at run time (CSS-in-JS), as React sets style attributes.
    ['style-src', "'self'", "'unsafe-inline'"],
    ['img-src', "'self'", 'data:', 'blob:', CLERK_IMAGE_ORIGIN, ...api],
    ['font-src', "'self'", 'data:'],
    ['connect-src', "'self'", o.clerkFrontendApi, o.supabase, o.supabaseRealtime, ...api, ...o.workers.filter((w) => !api.includes(w))],
    ['media-src', "'self'", 'blob:'],
    ['worker-src', "'self'", 'blob:'],
    ['frame-src', CLERK_CHALLENGE_ORIGIN],
    ['object-src', "'none'"],
    ['base-uri', "'self'"],
    ['form-action', "'self'"],
    ['frame-ancestors', "'none'"],
  ]);
}

/**
 * The paths where a static host serves the SPA's page to a person who may be signed in: the browser keeps none
 * of them (Back after Sign Out must not show an account, issue 54 item 0). Listed one by one, since a host adds
 * up the headers of every rule a path matches ('/*' would put no-store on the assets too).
 */
export const SPA_PAGE_PATHS = ['/', '/index.html', '/app', '/app/*', '/sign-in', '/sign-in/*', '/sign-up', '/sign-up/*'] as const;

/**
 * A `_headers` file (Netlify, Cloudflare Pages) with `policy` and the security headers on every path, the SPA's
 * signed-in pages never kept and the hashed assets kept for good.
 */
export function staticHostHeaders(policy: string): string {
  const lines = ['/*', `  Content-Security-Policy: ${policy}`, ...Object.entries(SECURITY_HEADERS).map(([k, v]) => `  ${k}: ${v}`)];
  for (const path of SPA_PAGE_PATHS) lines.push(path, '  Cache-Control: no-store');
  lines.push('/assets/*', '  Cache-Control: public, max-age=31536000, immutable');
  return `${lines.join('\n')}\n`;
}

/** The hosted build's record of what it was built with (dist/hosted-build.json), read back by the server. */
export const HOSTED_BUILD_FILE = 'hosted-build.json';
export interface HostedBuildRecord {
  VITE_CLERK_PUBLISHABLE_KEY: string;
  VITE_SUPABASE_URL: string;
  VITE_API_URL: string;
  /** Absent from a build made before the workers existed: our server answers checkout and portal. */
  VITE_CHECKOUT_WORKER_URL?: string;
  VITE_PORTAL_WORKER_URL?: string;
}
