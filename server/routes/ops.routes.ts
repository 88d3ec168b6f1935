import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { notFound, unauthorized } from '../domain/errors.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Readiness } from '../ops/readiness.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compares in constant time whatever the lengths (both sides are hashed to 32 bytes first). */
function sameToken(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * What operators and orchestrators call: liveness (the process answers), readiness (it may take traffic) and,
 * when METRICS_TOKEN is set, Prometheus metrics behind that bearer token.
 */
export function opsRoutes(deps: { readiness: Readiness; metrics: Metrics; metricsToken?: string }) {
  const app = new Hono<AppEnv>();

  app.get('/healthz', (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ status: 'ok' });
  });

  app.get('/readyz', async (c) => {
    const report = await deps.readiness.check();
    c.header('Cache-Control', 'no-store');
    return c.json(report, report.ready ? 200 : 503);
  });

  app.get('/metrics', async (c) => {
    const token = deps.metricsToken;
    if (!token) throw notFound();
    const [scheme, given] = (c.req.header('authorization') ?? '').split(' ', 2);
    if (scheme?.toLowerCase() !== 'bearer' || !given || !sameToken(given, token)) {
      c.header('WWW-Authenticate', 'Bearer realm="metrics"');
      throw unauthorized('A valid metrics token is required.');
    }
    const { registry } = deps.metrics;
    c.header('Cache-Control', 'no-store');
    return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
  });

  return app;
}
