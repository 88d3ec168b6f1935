import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { loadConfig } from '../../../server/config.ts';
import { buildApp } from '../../../server/app.ts';
import { startRuntime } from '../../../server/runtime.ts';
import { serveWithTimeouts } from '../../../server/http/timeouts.ts';
import { exploreGallery } from '../../../server/db/schema.ts';
import { mediaUrl } from '../../../server/providers/storage/index.ts';
import { createClerkTestKeys, createClerkWebhookSecret } from '../../../tests/helpers/clerk.ts';
import { createSupabaseDatabase } from '../../../tests/helpers/supabase-db.ts';
import { startWorker } from '../../../tests/helpers/workers.ts';
import { creemEnv, startFakeCreem } from '../../../tests/fakes/creem-server.ts';
import { startSupabaseFakes } from '../../../tests/fakes/supabase-stack.ts';
import { fakeClerkScript } from '../fake-clerk-script.ts';
import { HOSTED_E2E } from './ports.mjs';

/**
 * The hosted deployment on loopback for the hosted Playwright suite, as README's 'Deploy on Cloudflare' draws it: a
 * Supabase project (a scratch PostgreSQL database with supabase/migrations and its row-level security, the PostgREST
 * and Realtime fakes in front of it), Creem (the project's fake, whose checkout page pays and sends its signed
 * webhooks to our server), the checkout and portal workers built by wrangler and run in workerd (Miniflare), and our
 * server in Clerk + Creem mode on that same database, serving the hosted build (DIST_DIR, built by
 * scripts/e2e-hosted-server.mjs with the workers' addresses). Clerk itself is played in the browser by the fake
 * clerk-js (tests/fakes/clerk-js-browser.ts, routed in by e2e/hosted/fixtures.ts); its session tokens are
 * signed here with a key made for this run, which the server and the Supabase fakes verify (CLERK_JWT_KEY).
 *
 * A loopback-only control port hands the fixtures what they need: `/token` (a session token for a user,
 * as Clerk's Frontend API would hand out) and `/fake-clerk.js` (the fake, bundled once).
 */
const keys = createClerkTestKeys();
const db = await createSupabaseDatabase();
const supabase = await startSupabaseFakes({ databaseUrl: db.url, jwtKey: keys.publicKeyPem, port: HOSTED_E2E.supabasePort });
const origin = `http://127.0.0.1:${HOSTED_E2E.port}`;
const creemApiKey = 'creem_test_hosted_e2e';
const creemWebhookSecret = 'creem-webhook-secret-hosted-e2e';
const products = { BASIC: 'prod_e2e_basic', STANDARD: 'prod_e2e_standard', PROFESSIONAL: 'prod_e2e_professional' };
const creem = await startFakeCreem({
  apiKey: creemApiKey,
  products: Object.values(products),
  webhook: { url: `${origin}/api/webhooks/creem`, secret: creemWebhookSecret },
});
const dataDir = mkdtempSync(join(tmpdir(), 'likeness-e2e-hosted-'));
const config = loadConfig({
  ...process.env,
  NODE_ENV: 'test',
  PORT: String(HOSTED_E2E.port),
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  DATABASE_URL: db.url,
  AUTH_SECRET: 'hosted-e2e-secret-hosted-e2e-secret-0123',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  CLERK_JWT_KEY: keys.publicKeyPem,
  CLERK_PUBLISHABLE_KEY: HOSTED_E2E.publishableKey,
  CLERK_AUTHORIZED_PARTIES: origin,
  CLERK_WEBHOOK_SIGNING_SECRET: createClerkWebhookSecret(),
  ...creemEnv({ url: creem.url, apiKey: creemApiKey, webhookSecret: creemWebhookSecret, products }),
  TRAINING_DURATION_SECONDS: '4',
  TRAINING_POLL_SECONDS: '0.5',
});
const rt = await startRuntime(config, { sseHeartbeatMs: 5000 });
const staticDir = fileURLToPath(new URL(`../../../${process.env.DIST_DIR ?? 'dist-hosted'}`, import.meta.url));
const app = buildApp(rt, { staticDir });

// The SPA asks these for checkout and the portal link (VITE_CHECKOUT_WORKER_URL, VITE_PORTAL_WORKER_URL).
const workerBindings = {
  ALLOWED_ORIGINS: origin,
  CLERK_JWT_KEY: keys.publicKeyPem,
  SUPABASE_URL: supabase.url,
  SUPABASE_SERVICE_ROLE_KEY: supabase.serviceKey,
  CREEM_API_KEY: creemApiKey,
  CREEM_SERVER_URL: creem.url,
  CREEM_PRODUCT_BASIC: products.BASIC,
  CREEM_PRODUCT_STANDARD: products.STANDARD,
  CREEM_PRODUCT_PROFESSIONAL: products.PROFESSIONAL,
};
const workers = await Promise.all([
  startWorker('checkout', workerBindings, { port: HOSTED_E2E.checkoutWorkerPort }),
  startWorker('portal', workerBindings, { port: HOSTED_E2E.portalWorkerPort }),
]);

/** A small explore gallery (as an operator publishes one): two women and two men, headshots and photos. */
async function seedExplore() {
  const people = [
    { gender: 'female', style: 'headshot', hue: 20 },
    { gender: 'female', style: 'photo', hue: 90 },
    { gender: 'male', style: 'headshot', hue: 200 },
    { gender: 'male', style: 'photo', hue: 300 },
  ];
  for (const [i, p] of people.entries()) {
    const id = randomUUID();
    const key = `explore/${id}.jpeg`;
    const image = await sharp({ create: { width: 256, height: 256, channels: 3, background: `hsl(${p.hue}, 55%, 55%)` } })
      .jpeg()
      .toBuffer();
    await rt.storage.put(key, image, 'image/jpeg');
    await rt.db.insert(exploreGallery).values({
      id,
      imageUrl: mediaUrl(key),
      prompt: `Explore ${i + 1}: a ${p.gender} ${p.style}`,
      width: 1024,
      height: 1024,
      style: p.style,
      gender: p.gender,
      ethnicity: 'white',
      hairColor: 'brown',
      isFeatured: i === 0,
      createdAt: new Date(Date.now() - i * 1000),
    });
  }
}
await seedExplore();
const script = await fakeClerkScript();

const control = createServer(async (req, res) => {
  try {
    if (req.method === 'GET' && req.url === '/fake-clerk.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      return;
    }
    if (req.method === 'POST' && req.url === '/token') {
      let text = '';
      for await (const chunk of req) text += chunk;
      const user = JSON.parse(text) as { id: string; sid: string; email: string; fullName: string };
      // Clerk's session token, customised as the README asks (role, and the profile claims with email_verified).
      const jwt = await keys.mint({
        sub: user.id,
        sid: user.sid,
        azp: origin,
        email: user.email,
        email_verified: true,
        full_name: user.fullName,
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jwt }));
      return;
    }
    res.writeHead(404).end();
  } catch (err) {
    res.writeHead(500).end(String(err));
  }
});
await new Promise<void>((resolve) => control.listen(HOSTED_E2E.controlPort, '127.0.0.1', resolve));
// Last: Playwright starts the tests once this answers, so everything above must be up by then.
serveWithTimeouts({ fetch: app.fetch, port: HOSTED_E2E.port, hostname: '127.0.0.1' });

async function stop() {
  control.close();
  await Promise.all(workers.map((worker) => worker.stop().catch(() => {})));
  await rt.close().catch(() => {});
  await creem.stop().catch(() => {});
  await supabase.stop().catch(() => {});
  await db.drop().catch(() => {});
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
console.log(`hosted e2e server on ${origin} (Supabase ${supabase.url}, data ${dataDir})`);
