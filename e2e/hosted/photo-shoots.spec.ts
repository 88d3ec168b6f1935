import type { Page } from '@playwright/test';
import { startTraining, trainingPhotos } from '../support/training-photos';
import { expect, isPhone, test } from './fixtures';

/** The balance as the app shell shows it (sidebar on desktop, top bar on phones). */
const shellCredits = (page: Page, text: string) =>
  (isPhone(page) ? page.getByRole('banner') : page.getByTestId('sidebar')).getByText(text, { exact: true });

/** The app's section through the sidebar (desktop) or the top bar's menu (phone). */
async function openSection(page: Page, label: string) {
  if (isPhone(page)) {
    await page.getByRole('button', { name: 'Open menu' }).click();
    await page.getByRole('menuitem', { name: label }).click();
  } else {
    await page.getByTestId('sidebar').getByRole('link', { name: label }).click();
  }
}

test('hosted photo shoot: the catalogue and the shoot are read from Supabase, started through the server, followed live', async ({
  page,
  clerkUser,
}) => {
  test.setTimeout(480_000);
  await page.goto('/sign-in');
  await expect(page.getByText(`Test identity provider: continue as ${clerkUser.email}`)).toBeVisible();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/app\/create-image$/);

  // The catalogue (photo_packs and their prompts, read under RLS): no character yet, so training comes first.
  await openSection(page, 'Photo Shoots');
  await expect(page.getByRole('heading', { name: 'Photo Shoots' })).toBeVisible();
  await expect(page.getByTestId('pack-card')).toHaveCount(12);
  await expect(page.getByRole('button', { name: 'LinkedIn Profile' })).toContainText('10 photos');
  await page.getByRole('button', { name: 'LinkedIn Profile' }).click();
  await expect(page.getByText('linkedin profile photo of the person', { exact: false }).first()).toBeVisible();
  await expect(page.getByRole('link', { name: 'Train a character first' })).toBeVisible();

  // Credits (Standard in the sandbox checkout) and a character from the built-in trainer.
  await page.goto('/app/subscription');
  await page.getByTestId('plan-STANDARD').getByRole('button', { name: 'Choose plan' }).click();
  await page.getByRole('button', { name: 'Pay' }).click();
  await expect(page.getByTestId('balance')).toHaveText('4,500 credits available');
  await page.goto('/app/character-training');
  await page.getByLabel('Character name').fill('Dana');
  await page.getByLabel('Trigger word').fill('danap');
  await page.getByLabel('Gender').selectOption('female');
  await page.getByLabel('Hair color').selectOption('brown');
  await page.locator('input[type=file]').setInputFiles(await trainingPhotos(4));
  await startTraining(page);
  await expect(page.getByTestId('training-row').first().getByText('Completed', { exact: true })).toBeVisible({ timeout: 150_000 });

  // Start the shoot (through the server, with the Clerk token); its page follows shoot_photos over Realtime.
  await openSection(page, 'Photo Shoots');
  await page.getByRole('button', { name: 'LinkedIn Profile' }).click();
  await expect(page.getByRole('radio', { name: /Dana/ })).toBeChecked();
  const start = page.getByRole('button', { name: /Start shoot/ });
  await expect(start).toContainText('100 credits');
  await start.click();
  await expect(page).toHaveURL(/\/app\/photo-shoots\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId('shoot-tile')).toHaveCount(10);
  await expect(page.getByTestId('shoot-progress')).toHaveText('10 of 10 ready', { timeout: 300_000 });
  await expect(page.getByText('Shoot complete')).toBeVisible();
  await expect(page.locator('[data-testid=shoot-tile][data-status=ready] img')).toHaveCount(10);
  await expect(shellCredits(page, '3,900 Credits')).toBeAttached();
  // Each photo is served by the server's media route and decodes in the browser.
  const loaded = () =>
    page
      .locator('[data-testid=shoot-tile][data-status=ready] img')
      .evaluateAll((imgs) => imgs.filter((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0).length);
  await expect.poll(loaded, { timeout: 30_000 }).toBe(10);
  await page.screenshot({ path: test.info().outputPath('hosted-shoot-complete.png'), fullPage: true });

  // Read again from Supabase after a reload: the same shoot, complete.
  await page.reload();
  await expect(page.getByTestId('shoot-progress')).toHaveText('10 of 10 ready');
  await expect(page.locator('[data-testid=shoot-tile][data-status=ready] img')).toHaveCount(10);
});
