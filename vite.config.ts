import { fileURLToPath } from 'node:url';
import { loadEnv } from 'vite';
import { configDefaults, defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { BUILD_MODE_FILE, buildMode } from './scripts/build-mode.mjs';
import {
  HOSTED_BUILD_FILE,
  PolicyInputError,
  hostedContentSecurityPolicy,
  staticHostHeaders,
  type HostedBuildRecord,
} from './common/content-security-policy.ts';
import { isPublishableKey } from './common/identity-key.ts';

/** The hosted policy, or the build stops with every bad variable named. */
function hostedPolicyOrStop(record: HostedBuildRecord): string {
  try {
    return hostedContentSecurityPolicy({
      publishableKey: record.VITE_CLERK_PUBLISHABLE_KEY,
      supabaseUrl: record.VITE_SUPABASE_URL,
      apiUrl: record.VITE_API_URL,
      checkoutWorkerUrl: record.VITE_CHECKOUT_WORKER_URL,
      portalWorkerUrl: record.VITE_PORTAL_WORKER_URL,
    });
  } catch (err) {
    if (err instanceof PolicyInputError)
      throw new Error(`The hosted build's Content-Security-Policy cannot be written:\n  ${err.issues.join('\n  ')}`);
    throw err;
  }
}

/** The suites that run the real server (tests/helpers/server.ts); see the 'server' project below. */
const SERVER_SUITES = 'tests/server/**/*.test.ts';

const root = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const apiPort = process.env.PORT ?? '3000';

export default defineConfig(({ mode }) => {
  // Local or hosted SPA, from the VITE_ hosted variables (scripts/build-mode.mjs).
  const env = loadEnv(mode, process.cwd(), 'VITE_');
  const spa = buildMode(env);
  // The hosted build's Content-Security-Policy, checked before anything is built (a bad value stops the build,
  // naming its variable, and never reaches a header): written to _headers for static hosts, and the values
  // it comes from to hosted-build.json, which the server reads when it serves this build.
  const hosted: HostedBuildRecord | undefined =
    spa === 'hosted'
      ? {
          VITE_CLERK_PUBLISHABLE_KEY: env.VITE_CLERK_PUBLISHABLE_KEY.trim(),
          VITE_SUPABASE_URL: env.VITE_SUPABASE_URL.trim(),
          VITE_API_URL: env.VITE_API_URL?.trim() ?? '',
          VITE_CHECKOUT_WORKER_URL: env.VITE_CHECKOUT_WORKER_URL?.trim() ?? '',
          VITE_PORTAL_WORKER_URL: env.VITE_PORTAL_WORKER_URL?.trim() ?? '',
        }
      : undefined;
  // A key that is not a publishable key at all still builds: the SPA stops at start with the spec's message
  // (product §5, §8), so there is no Clerk to allow and no _headers to write. Any other bad value stops the build.
  const policy = hosted && isPublishableKey(hosted.VITE_CLERK_PUBLISHABLE_KEY) ? hostedPolicyOrStop(hosted) : undefined;
  return {
    plugins: [
      react(),
      tailwindcss(),
      {
        name: 'likeness-build-mode',
        generateBundle() {
          this.emitFile({ type: 'asset', fileName: BUILD_MODE_FILE, source: spa });
          if (hosted) this.emitFile({ type: 'asset', fileName: HOSTED_BUILD_FILE, source: `${JSON.stringify(hosted, null, 2)}\n` });
          if (policy) this.emitFile({ type: 'asset', fileName: '_headers', source: staticHostHeaders(policy) });
        },
      },
    ],
    // A build-time constant, so the other mode's adapter is dead code and never bundled (src/main.tsx).
    define: { __HOSTED_BUILD__: JSON.stringify(spa === 'hosted') },
    resolve: {
      alias: [
        { find: '@common', replacement: root('./common') },
        { find: '@', replacement: root('./src') },
        // The browser's zod runs jitless (src/zod-jitless.ts); tests and the server keep the stock one.
        ...(process.env.VITEST ? [] : [{ find: /^zod$/, replacement: root('./src/zod-jitless.ts') }]),
      ],
    },
    server: {
      port: Number(process.env.VITE_PORT ?? 5173),
      // The API server serves these; Vite serves the SPA with hot reload.
      proxy: Object.fromEntries(
        ['/api', '/media', '/sandbox'].map((p) => [p, { target: `http://127.0.0.1:${apiPort}`, changeOrigin: false }]),
      ),
    },
    // Current browsers (Chrome 66+, Safari 17+, Firefox 115+) preload modules themselves; the polyfill only cost
    // the landing's entry bytes (bench/landing.bench.ts).
    build: { outDir: 'dist', sourcemap: false, chunkSizeWarningLimit: 600, modulePreload: { polyfill: false } },
    test: {
      environment: 'node',
      setupFiles: ['tests/setup.ts'],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
      // Vitest's default (one worker fewer than the cores) runs one file at a time on 2 cores; most server
      // files wait on timers, sockets and child processes, so two at once took the suite from 985 s to 775 s,
      // and four at once from 597 s to 467 s (on a busy 2-core machine; the CPU was still not always in use).
      maxWorkers: 4,
      projects: [
        {
          extends: true,
          test: {
            name: 'server',
            include: [SERVER_SUITES],
            globalSetup: ['tests/global-setup.ts'],
            // A worker runs its server suites one after another in one process: each suite no longer loads
            // the whole server anew (about 2 s of CPU a file). Nothing they share keeps state between suites
            // (each test server has its own data folder or scratch database, and its own runtime).
            isolate: false,
          },
        },
        {
          extends: true,
          test: {
            name: 'other',
            include: ['tests/**/*.test.{ts,tsx}', 'common/**/*.test.ts', 'server/**/*.test.ts', 'src/**/*.test.{ts,tsx}'],
            // The component suites (jsdom, Testing Library's cleanup, a module mock) need a fresh module graph each.
            exclude: [...configDefaults.exclude, SERVER_SUITES],
          },
        },
      ],
    },
  };
});
