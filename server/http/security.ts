import type { MiddlewareHandler } from 'hono';
import { forbidden } from './errors.ts';

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // React and framer-motion set style attributes; no inline <script> is ever allowed.
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

export function securityHeaders(opts: { hsts: boolean }): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const h = c.res.headers;
    h.set('Content-Security-Policy', CSP);
    h.set('X-Content-Type-Options', 'nosniff');
    h.set('Referrer-Policy', 'strict-origin-when-cross-origin');
    h.set('X-Frame-Options', 'DENY');
    h.set('Cross-Origin-Opener-Policy', 'same-origin');
    h.set('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
    if (opts.hsts) h.set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
  };
}

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

/**
 * Refuses cross-site state-changing requests (CSRF), on top of SameSite cookies. Browsers send Origin on
 * such requests; clients without one (curl, server-to-server webhooks) carry no ambient cookies to abuse.
 */
export function originCheck(opts: { publicUrl?: string; exemptPrefixes: string[] }): MiddlewareHandler {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method) || opts.exemptPrefixes.some((p) => c.req.path.startsWith(p))) return next();
    const origin = c.req.header('origin');
    if (origin && origin !== 'null') {
      if (!allowedOrigins(opts.publicUrl, c.req.raw).includes(origin)) throw forbidden('Cross-site request refused.', 'bad_origin');
    } else if (c.req.header('sec-fetch-site') === 'cross-site' || origin === 'null') {
      throw forbidden('Cross-site request refused.', 'bad_origin');
    }
    return next();
  };
}
