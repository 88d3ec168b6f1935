import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';

const root = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const apiPort = process.env.PORT ?? '3000';

export default defineConfig({
  plugins: [react(), tailwindcss()],
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
});
