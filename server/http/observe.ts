import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { AppEnv } from './context.ts';

/** Probes poll every few seconds; their lines are kept at debug level so they do not drown the rest. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics', '/api/health']);

/** A caller's X-Request-Id is kept (a proxy's id ties its logs to ours) when it is a plain token. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Gives every request an id (X-Request-Id on the answer and `requestId` in every JSON error body, so a user's
 * report can be found in the logs), then writes one log line and the HTTP metrics for it. The line has the
 * route pattern, never the raw path or query (checkout links carry signatures), and no header, cookie or
 * body: nothing in it identifies a person beyond the users row id.
 */
export function observeRequests(deps: { logger: Logger; metrics: Metrics }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const given = c.req.header('x-request-id');
    const requestId = given && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
    c.set('requestId', requestId);
    await next();

    if (c.res.status >= 400) await addRequestIdToErrorBody(c, requestId);
    setHeader(c, 'X-Request-Id', requestId);
    const route = routePath(c) || 'unmatched';
    const status = c.res.status;
    const seconds = (performance.now() - started) / 1000;
    deps.metrics.httpRequest(c.req.method, route, status, seconds);
    const line = {
      requestId,
      method: c.req.method,
      route,
      status,
      durationMs: Math.round(seconds * 10_000) / 10,
      userId: c.get('userId'),
    };
    const level = PROBES.has(route) ? 'debug' : status >= 500 ? 'warn' : 'info';
    deps.logger[level](line, 'request');
  };
}

function setHeader(c: Context, name: string, value: string) {
  try {
    c.res.headers.set(name, value);
  } catch {
    // Some responses (e.g. from fetch or Response.redirect) have immutable headers.
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(name, value);
  }
}

async function addRequestIdToErrorBody(c: Context, requestId: string) {
  if (!c.res.headers.get('content-type')?.startsWith('application/json')) return;
  let body: unknown;
  try {
    body = await c.res.clone().json();
  } catch {
    return;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body) || 'requestId' in body) return;
  const old = c.res;
  const headers = new Headers(old.headers);
  headers.delete('content-length');
  // Hono copies the previous answer's headers into a new one; clearing it first keeps the stale length out.
  c.res = undefined;
  c.res = new Response(JSON.stringify({ ...body, requestId }), { status: old.status, statusText: old.statusText, headers });
}
