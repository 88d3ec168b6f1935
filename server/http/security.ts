import type { MiddlewareHandler } from 'hono';
import { LOCAL_CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from '@common/content-security-policy.ts';
import { forbidden } from '../domain/errors.ts';

/**
 * The security headers of every response: `contentSecurityPolicy` is the local policy unless the server
 * serves the hosted SPA (server/http/spa-policy.ts), the rest is common/content-security-policy.ts's.
 */
export function securityHeaders(opts: { hsts: boolean; contentSecurityPolicy?: string }): MiddlewareHandler {
  const policy = opts.contentSecurityPolicy ?? LOCAL_CONTENT_SECURITY_POLICY;
  return async (c, next) => {
    await next();
    const h = c.res.headers;
    // A route may set a stricter policy of its own (a mail message shown alone in the local outbox).
    if (!h.has('Content-Security-Policy')) h.set('Content-Security-Policy', policy);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) h.set(name, value);
    if (opts.hsts) h.set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
  };
}

/**
 * API answers are a person's own data: none is kept by the browser (or a shared cache) unless its route says
 * otherwise, so nothing of an account can be read back from the cache after Sign Out (issue 54 item 0).
 */
export function noStoreByDefault(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
  };
}

/** The SPA's page (index.html, whatever the path): its app pages show an account, so the browser keeps none. */
export const SPA_PAGE_CACHE_CONTROL = 'no-store';

/** Origins allowed to make state-changing requests: the configured public address and the request's own host. */
export function allowedOrigins(publicUrl: string | undefined, request?: Request): string[] {
  const origins = new Set<string>();
  if (publicUrl) origins.add(new URL(publicUrl).origin);
  const host = request?.headers.get('host');
  if (host) {
    origins.add(`http://${host}`);
    origins.add(`https://${host}`);
  }
  return [...origins];
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const crossSiteRefused = () => forbidden('Cross-site request refused.', 'bad_origin');

/**
 * Refuses cross-site state-changing requests (CSRF), on top of SameSite cookies. Browsers send Origin on
 * such requests; clients without one (curl, server-to-server webhooks) carry no ambient cookies to abuse.
 * `spaOrigins` are a hosted SPA's own origins (Clerk mode, whose sessions are bearer tokens, not cookies).
 */
export function originCheck(opts: { publicUrl?: string; exemptPrefixes: string[]; spaOrigins?: string[] }): MiddlewareHandler {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method) || opts.exemptPrefixes.some((p) => c.req.path.startsWith(p))) return next();
    const origin = c.req.header('origin');
    if (origin && origin !== 'null') {
      if (!allowedOrigins(opts.publicUrl, c.req.raw).includes(origin) && !opts.spaOrigins?.includes(origin)) throw crossSiteRefused();
    } else if (c.req.header('sec-fetch-site') === 'cross-site' || origin === 'null') {
      throw crossSiteRefused();
    }
    return next();
  };
}

/**
 * CORS for a hosted SPA served from another origin (ALLOWED_ORIGINS, Clerk mode). Its calls carry a bearer
 * token, never cookies, so no credentials are allowed. Allowed origins get their preflight answered and
 * every answer (errors included) readable; any other origin's preflight is refused, and so is its
 * state-changing request (originCheck), while its reads stay unreadable to it.
 */
export function cors(opts: { origins: string[]; exemptPrefixes: string[] }): MiddlewareHandler {
  const allowed = new Set(opts.origins);
  return async (c, next) => {
    if (opts.exemptPrefixes.some((p) => c.req.path.startsWith(p))) return next();
    const origin = c.req.header('origin');
    const permitted = origin !== undefined && allowed.has(origin);
    if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method')) {
      if (!permitted) throw crossSiteRefused();
      return c.body(null, 204, {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': 'GET, HEAD, POST, PATCH, DELETE',
        'Access-Control-Allow-Headers': 'Authorization, Content-Type',
        'Access-Control-Max-Age': '600',
        Vary: 'Origin',
      });
    }
    await next();
    c.res.headers.append('Vary', 'Origin');
    if (permitted) {
      c.res.headers.set('Access-Control-Allow-Origin', origin);
      // Downloads are named by the server (product §7); a user's report quotes the request id.
      c.res.headers.set('Access-Control-Expose-Headers', 'Content-Disposition, X-Request-Id');
    }
  };
}

/**
 * Where the SPA that made this request lives: its origin when it is one of the hosted SPA's (another
 * origin than the server's), else the server's own address. Checkouts and portals send people back there.
 */
export function spaUrlOf(request: Request, opts: { publicUrl?: string; spaOrigins: string[] }): string {
  const origin = request.headers.get('origin');
  if (origin && opts.spaOrigins.includes(origin)) return origin;
  return serverUrlOf(request, opts.publicUrl);
}

/** The address this server is reached at (no trailing slash): PUBLIC_URL, else the request's own origin. */
export function serverUrlOf(request: Request, publicUrl?: string): string {
  return publicUrl?.replace(/\/$/, '') ?? new URL(request.url).origin;
}
