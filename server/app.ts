import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Runtime } from './runtime.ts';
import type { AppEnv } from './http/context.ts';
import { notFound, payloadTooLarge } from './domain/errors.ts';
import { errorResponse } from './http/error-response.ts';
import { cors, noStoreByDefault, originCheck, securityHeaders, SPA_PAGE_CACHE_CONTROL } from './http/security.ts';
import { spaContentSecurityPolicy } from './http/spa-policy.ts';
import { storableUrl } from './http/validate.ts';
import { closeAfterRefusedBody } from './http/timeouts.ts';
import { observeRequests } from './http/observe.ts';
import { authRoutes } from './routes/auth.routes.ts';
import { meRoutes } from './routes/me.routes.ts';
import { eventsRoutes } from './routes/events.routes.ts';
import { uploadsRoutes } from './routes/uploads.routes.ts';
import { captionsRoutes } from './routes/captions.routes.ts';
import { billingRoutes, webhookRoutes } from './routes/billing.routes.ts';
import { clerkWebhookRoutes } from './routes/clerk-webhook.routes.ts';
import { sandboxRoutes } from './routes/sandbox.routes.ts';
import { sandboxTopUpsRoutes } from './routes/sandbox-top-ups.routes.ts';
import { generationsRoutes } from './routes/generations.routes.ts';
import { downloadRoutes, mediaRoutes } from './routes/media.routes.ts';
import { publicConfigRoutes } from './routes/public-config.routes.ts';
import { libraryRoutes } from './routes/library.routes.ts';
import { creditsRoutes } from './routes/credits.routes.ts';
import { exploreRoutes } from './routes/explore.routes.ts';
import { falWebhookRoutes, trainingsRoutes } from './routes/trainings.routes.ts';
import { opsRoutes } from './routes/ops.routes.ts';
import { shootsRoutes } from './routes/shoots.routes.ts';
import { teamsRoutes } from './routes/teams.routes.ts';
import { notificationPreferencesRoutes, outboxRoutes, outboxShownTo, unsubscribeRoutes } from './routes/mail.routes.ts';
import { outboxPageAccess } from './config.ts';
import { closeConnectionsWhileStopping } from './ops/shutdown.ts';

/** Paths that enforce their own body limit (streamed uploads) or authenticate by signature (webhooks). */
const OWN_BODY_LIMIT = ['/api/upload', '/api/trainings/check-photo'];
const NO_ORIGIN_CHECK = ['/api/webhooks/'];

export interface BuildAppOptions {
  /** Folder of the built SPA; served with an index.html fallback when it exists. */
  staticDir?: string;
}

/**
 * Builds the HTTP app from a started runtime; no I/O happens here but reading the SPA's shell and build
 * record (a hosted build whose settings cannot go into a header throws ConfigError).
 */
export function buildApp(rt: Runtime, opts: BuildAppOptions = {}) {
  const { config, logger } = rt;
  const app = new Hono<AppEnv>();

  app.use('*', observeRequests({ logger, metrics: rt.metrics }));
  app.use('*', closeConnectionsWhileStopping(rt.readiness.isStopping));
  // The hosted SPA's policy opens Clerk's and Supabase's origins; anything else keeps the local one.
  const csp = spaContentSecurityPolicy(opts.staticDir, { publicUrl: config.PUBLIC_URL, clerkPublishableKey: config.clerk?.publishableKey });
  if (csp.mode === 'hosted') logger.info({ contentSecurityPolicy: csp.policy }, 'Serving the hosted SPA with this Content-Security-Policy');
  app.use('*', securityHeaders({ hsts: config.secureCookies, contentSecurityPolicy: csp.policy }));
  app.use('*', storableUrl());
  app.use('*', closeAfterRefusedBody());
  // A hosted SPA on another origin (Clerk mode only: config refuses ALLOWED_ORIGINS otherwise).
  const spaOrigins = config.ALLOWED_ORIGINS;
  if (spaOrigins.length) {
    app.use('/api/*', cors({ origins: spaOrigins, exemptPrefixes: NO_ORIGIN_CHECK }));
    app.use('/media/*', cors({ origins: spaOrigins, exemptPrefixes: [] }));
  }
  app.use('/api/*', noStoreByDefault());
  app.use('/api/*', originCheck({ publicUrl: config.PUBLIC_URL, exemptPrefixes: NO_ORIGIN_CHECK, spaOrigins }));
  const limitBody = bodyLimit({
    maxSize: config.BODY_LIMIT_BYTES,
    onError: () => {
      throw payloadTooLarge();
    },
  });
  app.use('/api/*', async (c, next) => {
    const { method } = c.req;
    if (method === 'GET' || method === 'HEAD' || OWN_BODY_LIMIT.some((p) => c.req.path.startsWith(p))) return next();
    // A declared length is judged from the header, as bodyLimit does, but without bodyLimit's look at the body:
    // that turns the request into a web stream, and the route's JSON is then read through it instead of
    // straight from the socket by @hono/node-server (docs/decisions/014-generate-path.md). Chunked bodies,
    // whose size is known only once read, go through bodyLimit.
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number.parseInt(length, 10) > config.BODY_LIMIT_BYTES) throw payloadTooLarge();
      return next();
    }
    return limitBody(c, next);
  });

  app.route('/', opsRoutes({ readiness: rt.readiness, metrics: rt.metrics, metricsToken: config.METRICS_TOKEN }));
  app.get('/api/health', (c) => c.json({ ok: true, database: rt.database.kind }));
  app.route(
    '/api/public-config',
    publicConfigRoutes({
      supportEmail: config.SUPPORT_EMAIL,
      uploadRetentionDays: config.UPLOAD_RETENTION_DAYS,
      // The outbox page's own rule (below): it must say what /sandbox/mail would do for this caller.
      mailOutboxPage: (c) => Boolean(rt.mail.outbox) && outboxShownTo(c, outboxPageAccess(config)),
    }),
  );
  // Built-in accounts only; with Clerk, /api/auth/* does not exist (404).
  if (rt.identity.handle) {
    app.route('/api/auth', authRoutes({ identity: rt.identity, proxy: { trustProxy: config.TRUST_PROXY, proxyHops: config.PROXY_HOPS } }));
  }
  app.route('/api/me/notifications', notificationPreferencesRoutes(rt));
  app.route('/api/me', meRoutes(rt));
  app.route('/api/events', eventsRoutes({ ...rt, heartbeatMs: rt.options.sseHeartbeatMs, streamLimits: rt.options.streamLimits }));
  app.route('/api/upload', uploadsRoutes(rt));
  app.route('/api/image', captionsRoutes(rt));
  app.route('/api', generationsRoutes(rt));
  app.route('/api/download', downloadRoutes(rt));
  app.route('/media', mediaRoutes(rt));
  app.route('/api/library', libraryRoutes(rt));
  app.route(
    '/api/credits',
    creditsRoutes({
      ...rt,
      publicUrl: config.PUBLIC_URL,
      spaOrigins,
      proxy: { trustProxy: config.TRUST_PROXY, proxyHops: config.PROXY_HOPS },
    }),
  );
  app.route('/api/explore', exploreRoutes(rt));
  app.route('/api', trainingsRoutes({ ...rt, proxy: { trustProxy: config.TRUST_PROXY, proxyHops: config.PROXY_HOPS } }));
  app.route('/api', shootsRoutes(rt));
  app.route('/api', teamsRoutes({ ...rt, publicUrl: config.PUBLIC_URL, spaOrigins }));
  app.route('/api/webhooks/fal', falWebhookRoutes(rt));

  app.route(
    '/api/billing',
    billingRoutes({ ...rt, publicUrl: config.PUBLIC_URL, spaOrigins, requireVerifiedEmail: config.REQUIRE_VERIFIED_EMAIL }),
  );
  app.route('/api/webhooks', webhookRoutes(rt));
  if (rt.clerkWebhooks) app.route('/api/webhooks/clerk', clerkWebhookRoutes({ clerkWebhooks: rt.clerkWebhooks }));

  app.all('/api/*', () => {
    throw notFound('No such API endpoint.');
  });

  // One-click unsubscribe (outside /api: mail clients post it without an Origin) and the local outbox (only for
  // this machine unless MAIL_OUTBOX_PAGE=on); before the SPA's catch-all.
  app.route('/mail', unsubscribeRoutes({ db: rt.db, links: rt.mail.links }));
  app.route('/sandbox/mail', outboxRoutes({ outbox: rt.mail.outbox, access: outboxPageAccess(config) }));
  // The sandbox's test payment pages; before the SPA's catch-all.
  if (rt.sandboxTopUps) {
    app.route('/sandbox/top-up', sandboxTopUpsRoutes({ ...rt, sandboxTopUps: rt.sandboxTopUps, publicUrl: config.PUBLIC_URL }));
  }
  if (rt.sandboxPayments) {
    app.route('/sandbox', sandboxRoutes({ ...rt, sandboxPayments: rt.sandboxPayments, publicUrl: config.PUBLIC_URL }));
  }

  if (opts.staticDir && existsSync(join(opts.staticDir, 'index.html'))) {
    const indexHtml = readFileSync(join(opts.staticDir, 'index.html'), 'utf8');
    app.use(
      '/assets/*',
      serveStatic({
        root: opts.staticDir,
        onFound: (_path, c) => c.header('Cache-Control', 'public, max-age=31536000, immutable'),
      }),
    );
    // The SPA's page itself (/ and /index.html) is never kept: see SPA_PAGE_CACHE_CONTROL.
    app.use(
      '*',
      serveStatic({
        root: opts.staticDir,
        onFound: (path, c) => c.header('Cache-Control', path.endsWith('.html') ? SPA_PAGE_CACHE_CONTROL : 'public, max-age=3600'),
      }),
    );
    // Client-side routes: every other GET gets the SPA shell.
    app.get('*', (c) => {
      c.header('Cache-Control', SPA_PAGE_CACHE_CONTROL);
      return c.html(indexHtml);
    });
  }

  // Every JSON error body also gets the request's id (observeRequests).
  app.onError((err, c) => errorResponse(err, c, logger));
  app.notFound((c) => c.json({ message: 'Not found.', code: 'not_found' }, 404));
  return app;
}
export type App = ReturnType<typeof buildApp>;
