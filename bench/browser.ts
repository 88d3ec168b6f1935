import { chromium } from '@playwright/test';
import { CHROMIUM_FLAGS } from '../playwright.config.ts';
// @ts-expect-error plain-JS helper shared with the npm scripts
import { node, run } from '../scripts/lib.mjs';

/** Debian's Chromium, installed first when missing (as `npm test` does), so a bench runs on a fresh machine too. */
export async function launchChromium() {
  if ((await run(node, ['scripts/ensure-chromium.mjs'])) !== 0) throw new Error('Chromium is missing and could not be installed');
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
}
