import { fileURLToPath } from 'node:url';
import { loadEnv } from 'vite';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { BUILD_MODE_FILE, buildMode } from './scripts/build-mode.mjs';

const root = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const apiPort = process.env.PORT ?? '3000';

export default defineConfig(({ mode }) => {
  // Local or hosted SPA, from the VITE_ hosted variables (scripts/build-mode.mjs).
  const spa = buildMode(loadEnv(mode, process.cwd(), 'VITE_'));
  return {
    plugins: [
      react(),
      tailwindcss(),
      {
        name: 'likeness-build-mode',
        generateBundle() {
          this.emitFile({ type: 'asset', fileName: BUILD_MODE_FILE, source: spa });
        },
      },
    ],
    // A build-time constant, so the other mode's adapter is dead code and never bundled (src/main.tsx).
    define: { __HOSTED_BUILD__: JSON.stringify(spa === 'hosted') },
    resolve: {
      alias: { '@common': root('./common'), '@': root('./src') },
    },
    server: {
      port: Number(process.env.VITE_PORT ?? 5173),
      // The API server serves these; Vite serves the SPA with hot reload.
      proxy: Object.fromEntries(['/api', '/media', '/sandbox'].map((p) => [p, { target: `http://127.0.0.1:${apiPort}`, changeOrigin: false }])),
    },
    build: { outDir: 'dist', sourcemap: false, chunkSizeWarningLimit: 600 },
    test: {
      include: ['tests/**/*.test.{ts,tsx}', 'common/**/*.test.ts', 'server/**/*.test.ts', 'src/**/*.test.{ts,tsx}'],
      environment: 'node',
      setupFiles: ['tests/setup.ts'],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
    },
  };
});
