import { expect, signUp, test } from './fixtures';
import { recordCspViolations } from './support/csp-violations';

/**
 * The local build under the server's strict Content-Security-Policy: no page reports a violation (zod's JIT
 * probe, `new Function('')`, did on every app page until the SPA set zod's jitless mode). The hosted build's
 * pages are checked the same way by its own suite (e2e/hosted/fixtures.ts).
 */
const PUBLIC = ['/', '/how-it-works', '/pricing', '/faq', '/terms-of-service', '/privacy-policy', '/sign-in', '/sign-up'];
const APP = ['create-image', 'ai-videos', 'character-training', 'my-generations', 'explore', 'favorites', 'subscription', 'profile'];

test('no page of the local build reports a Content-Security-Policy violation', async ({ page, context }) => {
  test.setTimeout(120_000);
  const violations = await recordCspViolations(context);
  for (const path of PUBLIC) {
    const res = await page.goto(path);
    expect(res!.headers()['content-security-policy']).toContain("script-src 'self';");
    await expect(page.locator('#root')).not.toBeEmpty();
  }
  await signUp(page);
  for (const path of APP) {
    await page.goto(`/app/${path}`);
    await expect(page.getByRole('main')).toBeVisible();
    // Each page's own requests and lazy chunks have run.
    await page.waitForLoadState('networkidle');
  }
  expect(violations).toEqual([]);
});
