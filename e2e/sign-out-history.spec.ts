import type { Page } from '@playwright/test';
import { CHROMIUM_FLAGS } from '../playwright.config';
import { ORIGIN, expect, isPhone, newUser, signUp, test } from './fixtures';

// Playwright starts Chromium without its back/forward cache; a person's browser has it, and it is what brought
// a signed-in page back on Back (issue 54 item 0). Asked for here, for this file's browser.
test.use({
  launchOptions: { executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS, ignoreDefaultArgs: ['--disable-back-forward-cache'] },
});

/** The paths of the pages the browser brought back from its back/forward cache in this tab, in order. */
const restored = (page: Page) => page.evaluate(() => (sessionStorage.getItem('restored') ?? '').trim().split(' ').filter(Boolean));

/** Signs up, opens two app pages, signs out from the avatar's menu, then goes Back twice: sign-in each time. */
async function signOutAndGoBack(page: Page) {
  await page.addInitScript(() => {
    addEventListener('pageshow', (e) => {
      if (e.persisted) sessionStorage.setItem('restored', `${sessionStorage.getItem('restored') ?? ''} ${location.pathname}`);
    });
  });
  const user = await signUp(page, newUser('Robin Vale'));
  await page.goto('/app/my-generations');
  await expect(page.getByRole('heading', { name: 'My Generations' })).toBeVisible({ timeout: 30_000 });
  await page.goto('/app/profile');
  await expect(page.getByText(user.email).first()).toBeVisible({ timeout: 30_000 });

  const avatar = page.getByRole('button', { name: 'Account menu: Robin Vale' }).locator('visible=true');
  await (isPhone(page) ? avatar.tap() : avatar.click());
  const signOut = page.getByRole('menu').getByRole('menuitem', { name: 'Sign out' });
  await (isPhone(page) ? signOut.tap() : signOut.click());
  await expect(page).toHaveURL(`${ORIGIN}/`);
  await expect(page.getByRole('link', { name: /Try Now/ }).first()).toHaveAttribute('href', '/sign-up');

  await page.goBack({ waitUntil: 'commit' });
  await expect(page).toHaveURL(`${ORIGIN}/sign-in?next=%2Fapp%2Fprofile`);
  await expect(page.getByRole('heading', { name: 'Welcome back' })).toBeVisible();
  await expect(page.getByText(user.email)).toHaveCount(0);
  await expect(page.getByText('Robin Vale')).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath(`back-after-sign-out-${isPhone(page) ? 'phone' : 'desktop'}.png`) });

  // Further back, the page before asks again too.
  await page.goBack({ waitUntil: 'commit' });
  await expect(page).toHaveURL(/\/sign-in(\?next=%2Fapp%2Fmy-generations)?$/);
  await expect(page.getByRole('heading', { name: 'Welcome back' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'My Generations' })).toHaveCount(0);
  await expect(page.getByText(user.email)).toHaveCount(0);
}

test('after Sign Out, Back shows the sign-in page: the browser kept no page of the app', async ({ page }) => {
  await signOutAndGoBack(page);
  // The app's pages are sent with Cache-Control: no-store, so the browser loaded them again.
  expect(await restored(page)).toEqual([]);
});

test('after Sign Out, Back shows the sign-in page even where the host lets the browser keep the page', async ({ page }) => {
  // A static host that sends no Cache-Control: the signed-out page comes back from the cache and must leave.
  await page.route('**/*', async (route) => {
    const response = await route.fetch();
    const headers = { ...response.headers() };
    delete headers['cache-control'];
    await route.fulfill({ response, headers });
  });
  await signOutAndGoBack(page);
  expect((await restored(page))[0]).toBe('/app/profile');
});
