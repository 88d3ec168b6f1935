// The hosted e2e deployment's addresses and build settings (plain Node: read by scripts/e2e-hosted-server.mjs
// before anything is built, and by the Playwright config, the fixtures and the server). Ports follow E2E_PORT
// (the local suite uses it and E2E_PORT + 100), so two engineers' suites never meet.
const base = Number(process.env.E2E_PORT ?? 4310);

/** Clerk's Frontend API host for this suite: a name that exists nowhere; the browser's requests to it are routed. */
export const FRONTEND_API_HOST = 'clerk.likeness-e2e.test';

export const HOSTED_E2E = {
  /** Our server, serving the hosted build. */
  port: base + 5,
  /** The Supabase fakes (PostgREST and Realtime). */
  supabasePort: base + 6,
  /** Loopback-only control port of e2e/hosted/support/server.ts. */
  controlPort: base + 7,
  /** The Cloudflare checkout and portal workers (workers/), run in workerd by the server's setup. */
  checkoutWorkerPort: base + 8,
  portalWorkerPort: base + 9,
  frontendApi: `https://${FRONTEND_API_HOST}`,
  publishableKey: `pk_test_${Buffer.from(`${FRONTEND_API_HOST}$`).toString('base64').replace(/=+$/, '')}`,
  distDir: 'dist-hosted',
};

/** The VITE_ variables of the hosted build the suite runs against. */
export const HOSTED_E2E_BUILD_ENV = {
  VITE_CLERK_PUBLISHABLE_KEY: HOSTED_E2E.publishableKey,
  VITE_SUPABASE_URL: `http://127.0.0.1:${HOSTED_E2E.supabasePort}`,
  VITE_SUPABASE_ANON_KEY: 'sb_publishable_likeness_test_key',
  VITE_API_URL: '',
  VITE_CHECKOUT_WORKER_URL: `http://127.0.0.1:${HOSTED_E2E.checkoutWorkerPort}`,
  VITE_PORTAL_WORKER_URL: `http://127.0.0.1:${HOSTED_E2E.portalWorkerPort}`,
};
