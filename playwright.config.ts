import { availableParallelism } from 'node:os';
import { defineConfig, devices } from '@playwright/test';

const PORT = Number(process.env.E2E_PORT ?? 4310);
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const launchOptions = { executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS };

export default defineConfig({
  testDir: 'e2e',
  // The hosted deployment's suite has its own server and config (playwright.hosted.config.ts).
  testIgnore: ['hosted/**'],
  outputDir: process.env.PW_OUTPUT_DIR ?? 'test-results',
  timeout: 90_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  // One browser per core: four on 2 cores saved a minute on a fast day (6.1 -> 5.1 min) but on a slower one
  // (the same suite took 16-18 min) held the load at 17 and ran tests out of their time.
  workers: Math.max(2, availableParallelism()),
  retries: process.env.CI ? 1 : 0,
  reporter: [['list'], ['json']],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    trace: 'off',
    screenshot: 'only-on-failure',
    launchOptions,
  },
  projects: [
    { name: 'desktop', use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 800 }, launchOptions } },
    { name: 'phone', use: { ...devices['Pixel 7'], viewport: { width: 390, height: 844 }, launchOptions } },
  ],
  webServer: {
    command: `node scripts/e2e-server.mjs`,
    url: `http://127.0.0.1:${PORT}/api/health`,
    reuseExistingServer: !process.env.CI,
    timeout: 180_000,
    env: { E2E_PORT: String(PORT) },
  },
});
