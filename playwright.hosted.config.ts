import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_FLAGS } from './playwright.config';
import { HOSTED_E2E } from './e2e/hosted/support/ports.mjs';

/**
 * The hosted deployment in a real browser (e2e/hosted): the hosted build served by our server in Clerk mode,
 * Supabase's offline stack on loopback, Clerk's script answered by the project's fake of clerk-js. Needs
 * TEST_DATABASE_URL (the Supabase database is a scratch database on that server); `npm test` runs it.
 */
const launchOptions = { executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS };

export default defineConfig({
  testDir: 'e2e/hosted',
  outputDir: process.env.PW_OUTPUT_DIR ? `${process.env.PW_OUTPUT_DIR}-hosted` : 'test-results-hosted',
  timeout: 120_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  // As the local suite (playwright.config.ts): its tests mostly wait, and four at once run its four long ones
  // side by side.
  workers: 4,
  retries: process.env.CI ? 1 : 0,
  reporter: [['list'], ['json']],
  use: {
    baseURL: `http://127.0.0.1:${HOSTED_E2E.port}`,
    trace: 'off',
    screenshot: 'only-on-failure',
    launchOptions,
  },
  projects: [
    { name: 'hosted-desktop', use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 800 }, launchOptions } },
    { name: 'hosted-phone', use: { ...devices['Pixel 7'], viewport: { width: 390, height: 844 }, launchOptions } },
  ],
  webServer: {
    command: 'node scripts/e2e-hosted-server.mjs',
    url: `http://127.0.0.1:${HOSTED_E2E.port}/api/health`,
    reuseExistingServer: !process.env.CI,
    timeout: 240_000,
    gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
  },
});
