import type { Page } from '@playwright/test';
import { copyFileSync } from 'node:fs';
import { expect, isPhone, newUser, signUp, test, withCredits } from './fixtures';

/**
 * Finishing a result on the built-in engine, desktop and phone: generate, upscale 2× from the
 * viewer, edit the source with a new prompt, and find both in My Generations linked to their source.
 */

const balance = (page: Page, text: string) => page.getByText(text, { exact: true }).first();
const cards = (page: Page) => page.getByRole('list', { name: 'My Generations' }).getByRole('listitem');

async function closeViewer(page: Page) {
  if (isPhone(page)) await page.getByRole('dialog').getByRole('button', { name: 'Back' }).click();
  else await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
}

async function shot(page: Page, name: string) {
  const path = test.info().outputPath(`${name}-${isPhone(page) ? 'phone' : 'desktop'}.png`);
  await page.screenshot({ path });
  // Kept outside the test output too, for a look at the screens by hand.
  copyFileSync(path, `/tmp/i23-${name}-${isPhone(page) ? 'phone' : 'desktop'}.png`);
}

test('generate, upscale 2×, edit with a new prompt, and see both in My Generations with their links', async ({ page }) => {
  test.setTimeout(120_000);
  const user = await signUp(page, newUser());
  await page.goto('/app/create-image');
  await expect(balance(page, '0 Credits')).toBeAttached();
  await withCredits(user, 100);
  await expect(balance(page, '100 Credits')).toBeAttached();

  const prompt = 'A lighthouse on a cliff at dusk, warm light';
  await page.getByLabel('Prompt').fill(prompt);
  await page.getByRole('button', { name: 'Generate', exact: true }).click();
  await expect(page.getByRole('img', { name: prompt })).toBeVisible({ timeout: 30_000 });
  await expect(balance(page, '90 Credits')).toBeAttached();

  // Upscale 2× from the viewer in My Generations.
  await page.goto('/app/my-generations');
  await expect(cards(page)).toHaveCount(1);
  await cards(page)
    .first()
    .getByRole('button', { name: /Open image details/ })
    .click();
  const viewer = page.getByRole('dialog');
  await expect(viewer.getByRole('button', { name: /Upscale 2×/ })).toContainText('5 credits');
  await expect(viewer.getByRole('button', { name: /Upscale 4×/ })).toContainText('10 credits');
  await shot(page, 'viewer');
  await viewer.getByRole('button', { name: /Upscale 2×/ }).click();
  await expect(viewer.getByText('Upscaled 2× — added to My Generations.')).toBeVisible({ timeout: 30_000 });
  await expect(balance(page, '85 Credits')).toBeAttached();

  // The upscale opens from the message: full size, HD, linked to its source.
  await viewer.getByRole('button', { name: 'Open it' }).click();
  await expect(viewer.getByText('2048 × 2048 (HD)')).toBeVisible();
  await expect(viewer.getByTestId('source-link')).toContainText('Upscaled 2× from');
  const [download] = await Promise.all([page.waitForEvent('download'), viewer.getByRole('button', { name: 'Download' }).click()]);
  const { default: sharp } = await import('sharp');
  expect((await sharp(await download.path()).metadata()).width).toBe(2048);

  // Back to the source through the link (big enough for a finger), then Edit with a prompt.
  const sourceButton = viewer.getByTestId('source-link').getByRole('button');
  expect((await sourceButton.boundingBox())!.height).toBeGreaterThanOrEqual(32);
  await sourceButton.click();
  await expect(viewer.getByText('1024 × 1024', { exact: true })).toBeVisible();
  await viewer.getByRole('button', { name: 'Edit with a prompt' }).click();
  await expect(page).toHaveURL(/\/app\/create-image$/);
  await expect(page.getByRole('img', { name: 'Starting point' })).toBeVisible();
  await expect(page.getByLabel('Prompt')).toHaveValue(prompt);
  await expect(page.getByLabel('Strength')).toHaveValue('0.6');
  await shot(page, 'edit-form');
  const edited = 'A lighthouse on a cliff at dusk in heavy snow';
  await page.getByLabel('Prompt').fill(edited);
  await page.getByRole('button', { name: 'Generate', exact: true }).click();
  await expect(page.getByRole('img', { name: edited })).toBeVisible({ timeout: 30_000 });
  await expect(balance(page, '75 Credits')).toBeAttached();

  // Both are in My Generations: the upscale with its HD badge, the edit linked to its source.
  await page.goto('/app/my-generations');
  await expect(cards(page)).toHaveCount(3);
  await expect(cards(page).nth(1).getByText('HD', { exact: true })).toBeVisible();
  await expect(cards(page).nth(0).getByText('HD', { exact: true })).toHaveCount(0);
  await shot(page, 'my-generations');
  await cards(page)
    .first()
    .getByRole('button', { name: /Open image details/ })
    .click();
  await expect(viewer.getByTestId('source-link')).toContainText('Edited from');
  await closeViewer(page);
  await cards(page)
    .nth(1)
    .getByRole('button', { name: /Open image details/ })
    .click();
  await expect(viewer.getByTestId('source-link')).toContainText('Upscaled 2× from');
});

test('the fresh result on Create Image carries the viewer’s actions: favourite, upscale and open it there', async ({ page }) => {
  test.setTimeout(120_000);
  const user = await signUp(page, newUser());
  await page.goto('/app/create-image');
  await expect(balance(page, '0 Credits')).toBeAttached();
  await withCredits(user, 100);
  await expect(balance(page, '100 Credits')).toBeAttached();
  const prompt = 'A red bicycle against a blue wall';
  await page.getByLabel('Prompt').fill(prompt);
  await page.getByRole('button', { name: 'Generate', exact: true }).click();
  const result = page.getByRole('region', { name: 'Result' });
  await expect(result.getByRole('img', { name: prompt })).toBeVisible({ timeout: 30_000 });

  const actions = result.getByTestId('generation-actions');
  for (const name of [/Upscale 2×/, /Upscale 4×/, /Edit with a prompt/, /^Regenerate$/, /^Favorite$/]) {
    await expect(actions.getByRole('button', { name })).toBeEnabled();
  }
  await expect(actions.getByRole('checkbox', { name: 'Keep the seed' })).toBeEnabled();
  await actions.scrollIntoViewIfNeeded();
  await shot(page, 'create-result-actions');

  // The heart counts everywhere: Favorites has it.
  await actions.getByRole('button', { name: 'Favorite' }).click();
  await expect(actions.getByRole('button', { name: 'Favorited' })).toHaveAttribute('aria-pressed', 'true');

  // Upscale from the result, and open the upscale in its place.
  await actions.getByRole('button', { name: /Upscale 2×/ }).click();
  await expect(actions.getByText('Upscaled 2× — added to My Generations.')).toBeVisible({ timeout: 30_000 });
  await expect(balance(page, '85 Credits')).toBeAttached();
  await actions.getByRole('button', { name: 'Open it' }).click();
  await expect(result.getByText(/^2048×2048 · Seed/)).toBeVisible();

  await page.goto('/app/favorites');
  await expect(page.getByRole('list', { name: 'Favorites' }).getByRole('listitem')).toHaveCount(1);
});
