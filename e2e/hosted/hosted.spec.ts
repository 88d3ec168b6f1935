import type { Page } from '@playwright/test';
import sharp from 'sharp';
import { portraitPhoto, PORTRAITS } from '../../tests/helpers/photos';
import { HOSTED_E2E } from './support/ports.mjs';
import { expect, isPhone, ORIGIN, test } from './fixtures';
import { keptAliveAfter } from '../support/kept-alive';
import { startTraining } from '../support/training-photos';

/** The balance as the app shell shows it (sidebar on desktop, top bar on phones). */
const shellCredits = (page: Page, text: string) =>
  (isPhone(page) ? page.getByRole('banner') : page.getByTestId('sidebar')).getByText(text, { exact: true });
const cards = (page: Page) => page.getByTestId('generation-card');
/** The heart of a favourite card: a badge on phones, the pressed button on desktop. */
const heart = (page: Page) =>
  isPhone(page)
    ? cards(page).first().getByLabel('Favorite', { exact: true })
    : cards(page).first().getByRole('button', { name: 'Remove Favorite' });

async function trainingPhotos(n: number) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const portrait = await portraitPhoto(PORTRAITS[i % PORTRAITS.length]!);
    const buffer = i < PORTRAITS.length ? portrait : await sharp(portrait).flop().jpeg().toBuffer();
    out.push({ name: `photo-${i + 1}.jpg`, mimeType: 'image/jpeg', buffer });
  }
  return out;
}

/** Favourites the first card of My Generations (phones through the viewer, desktop on the card). */
async function favouriteFirst(page: Page) {
  if (isPhone(page)) {
    await cards(page)
      .first()
      .getByRole('button', { name: /^Open image details/ })
      .click({ position: { x: 40, y: 12 } });
    const sheet = page.getByRole('dialog');
    await sheet.getByRole('button', { name: 'Add to Favorites' }).click();
    await expect(sheet.getByRole('button', { name: 'Remove Favorite' })).toHaveAttribute('aria-pressed', 'true');
    await sheet.getByRole('button', { name: 'Back' }).click();
  } else {
    await cards(page).first().hover();
    await cards(page).first().getByRole('button', { name: 'Add to Favorites' }).click();
    await expect(cards(page).first().getByRole('button', { name: 'Remove Favorite' })).toBeAttached();
  }
}

test('hosted mode end to end: sign in, buy a plan, create, favourite across tabs, explore, train, sign out', async ({
  page,
  context,
  clerkUser,
}) => {
  test.setTimeout(240_000);
  // The hosted SPA is served with the policy that lets Clerk and Supabase in, and nothing else.
  const shell = await page.goto('/sign-in');
  const csp = shell!.headers()['content-security-policy'];
  expect(csp).toContain(`script-src 'self' ${HOSTED_E2E.frontendApi} https://challenges.cloudflare.com`);
  expect(csp).toContain(
    `connect-src 'self' ${HOSTED_E2E.frontendApi} http://127.0.0.1:${HOSTED_E2E.supabasePort} ws://127.0.0.1:${HOSTED_E2E.supabasePort} ` +
      `http://127.0.0.1:${HOSTED_E2E.checkoutWorkerPort} http://127.0.0.1:${HOSTED_E2E.portalWorkerPort};`,
  );
  expect(csp).not.toContain('unsafe-eval');

  // Sign in through Clerk's (fake) widget; Clerk's router push lands on Create Image.
  await expect(page.getByText(`Test identity provider: continue as ${clerkUser.email}`)).toBeVisible();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/app\/create-image$/);
  await expect(page.getByRole('heading', { name: 'Create Image' })).toBeVisible();
  await expect(page.getByText('Insufficient Credits')).toBeVisible();
  await expect(shellCredits(page, '0 Credits')).toBeAttached();

  // Buy Standard through the checkout worker and (the fake) Creem's page, whose webhooks reach our server (three
  // deliveries of one payment); the user row (read through Supabase) shows the plan, and the credits once.
  await page.goto('/app/subscription');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Choose Your Plan');
  const checkoutCall = page.waitForRequest((req) => req.url().startsWith(`http://127.0.0.1:${HOSTED_E2E.checkoutWorkerPort}`));
  await page.getByTestId('plan-STANDARD').getByRole('button', { name: 'Choose plan' }).click();
  expect((await checkoutCall).postDataJSON()).toMatchObject({ plan: 'STANDARD', email: clerkUser.email });
  await expect(page).toHaveURL(/\/test\/checkout\/prod_e2e_standard\/ch_/);
  await expect(page.getByRole('heading', { name: 'Test checkout' })).toBeVisible();
  await page.getByRole('button', { name: 'Pay' }).click();
  await expect(page).toHaveURL(/\/app\/subscription\?checkout=success$/);
  await expect(page.getByText('Payment received — your Standard plan is active')).toBeVisible();
  await expect(page.getByTestId('balance')).toHaveText('4,500 credits available');
  await expect(shellCredits(page, '4,500 Credits')).toBeAttached();
  // The portal link comes from the portal worker: Manage Subscription opens (the fake) Creem's portal.
  const manage = page.getByRole('button', { name: 'Manage Subscription' });
  await expect(manage).toBeEnabled();
  await manage.click();
  await expect(page).toHaveURL(/\/my-orders\/login\//);

  // Create an image; the balance drops live (Supabase Realtime on user_public_meta).
  await page.goto('/app/create-image');
  const prompt = 'A lighthouse on a cliff at dawn, soft pastel sky';
  await page.getByLabel('Prompt').fill(prompt);
  await page.getByRole('button', { name: 'Generate', exact: true }).click();
  await expect(page.getByRole('img', { name: prompt }).first()).toBeVisible({ timeout: 30_000 });
  await expect(shellCredits(page, '4,490 Credits')).toBeAttached();

  // My Generations lists it; a second tab of the same browser shares the Clerk session.
  await page.goto('/app/my-generations');
  await expect(cards(page)).toHaveCount(1);
  await expect(cards(page).first().getByRole('img')).toHaveAttribute('alt', prompt);
  const other = await context.newPage();
  await other.goto('/app/my-generations');
  await expect(cards(other)).toHaveCount(1);
  await expect(heart(other)).toHaveCount(0);
  // Favourite in one tab: the other shows the heart without a reload (Realtime on generations).
  await favouriteFirst(page);
  await expect(heart(other)).toHaveCount(1, { timeout: 15_000 });
  await other.close();

  // Explore, filtered.
  await page.goto('/app/explore');
  await expect(page.getByTestId('gallery-count')).toHaveText('4 images');
  const toggle = page.getByRole('button', { name: 'Filters' });
  if (isPhone(page) && (await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  await page.getByLabel('Gender', { exact: true }).selectOption('female');
  await expect(page).toHaveURL(/\/app\/explore\?gender=female$/);
  await expect(page.getByTestId('gallery-count')).toHaveText('2 images');

  // Train a character with the built-in trainer and watch it complete (Realtime on lora_trainings).
  await page.goto('/app/character-training');
  await expect(page.getByRole('heading', { name: 'Character Training' })).toBeVisible();
  await page.getByLabel('Character name').fill('Dana');
  await page.getByLabel('Trigger word').fill('danap');
  await page.getByLabel('Gender').selectOption('female');
  await page.getByLabel('Hair color').selectOption('brown');
  await page.locator('input[type=file]').setInputFiles(await trainingPhotos(4));
  await expect(page.getByRole('list', { name: 'Selected photos' }).getByRole('listitem')).toHaveCount(4);
  await startTraining(page);
  await expect(page.getByText(/^Training submitted successfully!/)).toBeVisible({ timeout: 90_000 });
  const row = page.getByTestId('training-row').first();
  await expect(row.getByText('Training', { exact: true })).toBeVisible();
  await expect(shellCredits(page, '3,990 Credits')).toBeAttached();
  await expect(row.getByText('Completed', { exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText('Your character is ready')).toBeVisible();

  // The credits page: its history is read through supabase-js (the credit_history view, under row-level security),
  // never through our server's history route; each line links to what it was for.
  const serverHistory: string[] = [];
  page.on('request', (req) => {
    if (new URL(req.url()).pathname === '/api/credits/history') serverHistory.push(req.url());
  });
  const historyRead = page.waitForRequest((req) =>
    req.url().startsWith(`http://127.0.0.1:${HOSTED_E2E.supabasePort}/rest/v1/credit_history?`),
  );
  await page.goto('/app/credits');
  await historyRead;
  const history = page.getByTestId('credit-history').locator('tbody tr');
  await expect(history).toHaveCount(3);
  for (const [i, [what, amount]] of [
    ['Training', '−500'],
    ['Generation', '−10'],
    ['Plan grant', '+4,500'],
  ].entries()) {
    await expect(history.nth(i)).toContainText(what);
    await expect(history.nth(i)).toContainText(amount);
  }
  await expect(history.nth(0).getByRole('link', { name: 'Character' })).toHaveAttribute('href', /^\/app\/character-training\?character=/);
  await expect(history.nth(1).getByRole('link', { name: 'Image' })).toHaveAttribute('href', /^\/app\/my-generations\?image=/);
  await page.getByLabel('Kind').selectOption('Generation');
  await expect(history).toHaveCount(1);
  expect(serverHistory).toEqual([]);

  // The app's other pages load under the same policy (the fixture fails the test on any violation).
  for (const path of ['favorites', 'ai-videos', 'explore', 'subscription']) {
    await page.goto(`/app/${path}`);
    await expect(page.getByRole('main')).toBeVisible();
    await page.waitForLoadState('networkidle');
  }

  // Sign out: back on the public site, and the app asks to sign in again.
  await page.goto('/app/profile');
  await page.getByRole('button', { name: 'Sign Out' }).filter({ visible: true }).click();
  await expect(page).toHaveURL(`${ORIGIN}/`);
  await page.goto('/app/create-image');
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(page.getByRole('button', { name: 'Continue' })).toBeVisible();
});

test('public pages and the sign-in page load without a CSP violation and without Clerk for a first visit', async ({ page }) => {
  const clerkScripts: string[] = [];
  page.on('request', (req) => {
    if (req.url().startsWith(HOSTED_E2E.frontendApi)) clerkScripts.push(req.url());
  });
  for (const path of ['/', '/how-it-works', '/pricing', '/faq', '/terms-of-service', '/privacy-policy']) {
    await page.goto(path);
    await expect(page.locator('main')).toBeVisible();
  }
  expect(clerkScripts).toEqual([]);
  await page.goto('/sign-up');
  await expect(page.getByRole('button', { name: 'Continue' })).toBeVisible();
  expect(clerkScripts).toContain(`${HOSTED_E2E.frontendApi}/npm/@clerk/clerk-js@6/dist/clerk.browser.js`);
});

test('when the page blocks Clerk, sign-in and the app say so at once and the console names the host', async ({ page, cspViolations }) => {
  // A static host serving an old policy (the local one): the document's header is replaced on the way in.
  await page.route(/\/(sign-in|app\/create-image)$/, async (route) => {
    const response = await route.fetch();
    const headers = {
      ...response.headers(),
      'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'",
    };
    await route.fulfill({ response, headers });
  });
  const logged: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') logged.push(message.text());
  });
  const started = Date.now();
  await page.goto('/sign-in');
  await expect(page.getByText('The sign-in service could not be loaded. Check your connection and try again.')).toBeVisible({
    timeout: 5_000,
  });
  await expect(page.getByRole('button', { name: 'Try Again' })).toBeVisible();
  expect(Date.now() - started).toBeLessThan(8_000);
  await page.screenshot({ path: test.info().outputPath('sign-in-blocked.png') });
  expect(logged.some((text) => text.includes('The sign-in service could not be loaded') && text.includes('clerk.likeness-e2e.test'))).toBe(
    true,
  );

  await page.goto('/app/create-image');
  await expect(page.getByRole('alert')).toContainText(
    'Error initializing user: The sign-in service could not be loaded. Check your connection and try again.',
    { timeout: 5_000 },
  );
  await expect(page.getByRole('button', { name: 'Try Again' })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('app-blocked.png') });
  // These violations are the point of this test.
  expect(cspViolations.length).toBeGreaterThan(0);
  cspViolations.length = 0;
});

test('when Clerk cannot be reached, the sign-in page says so at once', async ({ page, context }) => {
  await context.unroute(`${HOSTED_E2E.frontendApi}/**`);
  await context.route(`${HOSTED_E2E.frontendApi}/**`, (route) => route.abort('internetdisconnected'));
  // Timed from the navigation's commit, so that a slow machine's loading of the app is not counted against it; without
  // the script watch the message comes only with @clerk/react's load timeout, 15 s after the app asks for clerk-js,
  // and the wait below gives up first.
  await page.goto('/sign-in', { waitUntil: 'commit' });
  await expect(page.getByText('The sign-in service could not be loaded. Check your connection and try again.')).toBeVisible({
    timeout: 12_000,
  });
});

test("the server keeps an idle connection past Node's 5 s, so that a client reusing it is not cut off", async () => {
  expect(await keptAliveAfter(ORIGIN, 6_000)).toBe(true);
});
