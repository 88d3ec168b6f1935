import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { startTraining, trainingPhotos } from './support/training-photos';
import { expect, isPhone, newUser, signUp, test, withCredits, withSlowPhotos } from './fixtures';

/** The app's section through the sidebar (desktop) or the top bar's menu (phone). */
async function openSection(page: Page, label: string) {
  if (isPhone(page)) {
    await page.getByRole('button', { name: 'Open menu' }).click();
    await page.getByRole('menuitem', { name: label }).click();
  } else {
    await page.getByTestId('sidebar').getByRole('link', { name: label }).click();
  }
}

test('a user trains a character, runs a photo shoot, watches it complete live and downloads the ZIP', async ({ page }) => {
  test.setTimeout(300_000);
  const user = await signUp(page, newUser('Dana Park'));
  await page.goto('/app/photo-shoots');
  await expect(page.getByRole('heading', { name: 'Photo Shoots' })).toBeVisible();
  const cards = page.getByTestId('pack-card');
  await expect(cards).toHaveCount(12);
  await expect(page.getByRole('button', { name: 'LinkedIn Profile' })).toContainText('10 photos');
  await expect(page.getByRole('button', { name: 'LinkedIn Profile' })).toContainText('100 credits');

  // No character yet: the pack says so and links to training.
  await page.getByRole('button', { name: 'LinkedIn Profile' }).click();
  await expect(page.getByRole('heading', { name: 'LinkedIn Profile' })).toBeVisible();
  await expect(page.getByText('linkedin profile photo of the person', { exact: false }).first()).toBeVisible();
  const trainFirst = page.getByRole('link', { name: 'Train a character first' });
  await expect(trainFirst).toBeVisible();
  await trainFirst.click();
  await expect(page).toHaveURL(/\/app\/character-training$/);

  // Train one with the built-in trainer.
  await withCredits(user, 500);
  await expect(page.getByText('500 Credits', { exact: true }).first()).toBeAttached();
  await page.getByLabel('Character name').fill('Dana');
  await page.getByLabel('Gender').selectOption('female');
  await page.getByLabel('Hair color').selectOption('brown');
  await page.locator('input[type=file]').setInputFiles(await trainingPhotos(4));
  await startTraining(page);
  await expect(page.getByTestId('training-row').first().getByText('Completed', { exact: true })).toBeVisible({ timeout: 120_000 });

  // Too few credits: 'Need 100 Credits' instead of the button, until credits arrive.
  await openSection(page, 'Photo Shoots');
  await page.getByRole('button', { name: 'LinkedIn Profile' }).click();
  await expect(page.getByRole('radio', { name: /Dana/ })).toBeChecked();
  await expect(page.getByRole('link', { name: 'Need 100 Credits' })).toHaveAttribute('href', '/app/subscription');
  await withCredits(user, 100);
  const start = page.getByRole('button', { name: /Start shoot/ });
  await expect(start).toContainText('100 credits');
  await page.screenshot({ path: test.info().outputPath('pack-detail.png') });
  await start.click();

  // The shoot page follows the photos live to the end.
  await expect(page).toHaveURL(/\/app\/photo-shoots\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId('shoot-tile')).toHaveCount(10);
  await expect(page.getByTestId('shoot-progress')).toContainText(/\d+ of 10 ready/);
  await page.screenshot({ path: test.info().outputPath('shoot-running.png') });
  await expect(page.getByTestId('shoot-progress')).toHaveText('10 of 10 ready', { timeout: 240_000 });
  await expect(page.getByText('Shoot complete')).toBeVisible();
  await expect(page.locator('[data-testid=shoot-tile][data-status=ready] img')).toHaveCount(10);
  await expect(page.getByText('0 Credits', { exact: true }).first()).toBeAttached();
  await page.screenshot({ path: test.info().outputPath('shoot-complete.png'), fullPage: true });

  // Download all: <character>-<pack>.zip with 01.jpg … 10.jpg.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download all' }).click()]);
  expect(download.suggestedFilename()).toBe('dana-linkedin-profile.zip');
  const files = unzipSync(new Uint8Array(readFileSync((await download.path())!)));
  expect(Object.keys(files)).toEqual(['01.jpg', '02.jpg', '03.jpg', '04.jpg', '05.jpg', '06.jpg', '07.jpg', '08.jpg', '09.jpg', '10.jpg']);
  expect((await sharp(Buffer.from(files['01.jpg']!)).metadata()).format).toBe('jpeg');

  // The photos are ordinary generations.
  await openSection(page, 'My Generations');
  await expect(page.getByTestId('gallery-count')).toHaveText('10 images');
  // Each names its shoot and links to it, on its tile and in the viewer.
  const tiles = page.getByTestId('generation-card');
  await expect(tiles.getByRole('link', { name: 'From the shoot LinkedIn Profile' })).toHaveCount(10);
  await page.screenshot({ path: test.info().outputPath(`gallery-shoot-tiles-${isPhone(page) ? 'phone' : 'desktop'}.png`) });
  // Off the sidebar, which stays open over the first column while the pointer is on it.
  if (!isPhone(page)) await page.mouse.move(800, 400);
  await tiles
    .nth(1)
    .getByRole('button', { name: /Open image details/ })
    .click();
  const shootLink = page.getByRole('dialog').getByTestId('viewer-shoot-link');
  await expect(shootLink).toHaveText('LinkedIn Profile');
  await shootLink.click();
  await expect(page).toHaveURL(/\/app\/photo-shoots\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId('shoot-progress')).toHaveText('10 of 10 ready');
});

test('Cancel shoot asks first, naming the refund of the photos not yet taken, and refunds them', async ({ page }) => {
  test.setTimeout(240_000);
  const user = await signUp(page, newUser('Dana Park'));
  await page.goto('/app/character-training');
  await expect(page.getByRole('heading', { name: 'Character Training' })).toBeVisible();
  await withCredits(user, 620);
  await expect(page.getByText('620 Credits', { exact: true }).first()).toBeAttached();
  await page.getByLabel('Character name').fill('Dana');
  await page.locator('input[type=file]').setInputFiles(await trainingPhotos(4));
  await startTraining(page);
  await expect(page.getByTestId('training-row').first().getByText('Completed', { exact: true })).toBeVisible({ timeout: 120_000 });

  await openSection(page, 'Photo Shoots');
  // Off the sidebar, which stays open over the first card while the pointer is on it.
  await page.mouse.move(800, 400);
  // The largest pack (12 photos, 120 credits), each photo made slow enough that the shoot is still under way
  // while the question is asked and answered, also on a busy machine.
  await withSlowPhotos(user, 4_000);
  await page.getByRole('button', { name: 'Corporate Headshot' }).click();
  await page.getByRole('button', { name: /Start shoot/ }).click();
  await expect(page.getByTestId('shoot-tile')).toHaveCount(12);

  const cancel = page.getByRole('button', { name: 'Cancel shoot' });
  await cancel.click();
  const dialog = page.getByRole('dialog');
  const question = dialog.getByTestId('cancel-shoot-question');
  await expect(question).toHaveText(/^Cancel this shoot\? The \d+ photos? not yet taken (is|are) refunded \(\d+ credits\)\./);
  // Keep shooting: nothing is cancelled.
  await dialog.getByRole('button', { name: 'Keep shooting' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('shoot-tile').and(page.locator('[data-status=cancelled]'))).toHaveCount(0);

  await cancel.click();
  await expect(question).toBeVisible();
  const [, named, credits] = /The (\d+) photos? not yet taken .* \((\d+) credits\)/.exec((await question.textContent())!) ?? [];
  expect(Number(credits)).toBe(Number(named) * 10);
  await page.screenshot({ path: test.info().outputPath(`cancel-shoot-${isPhone(page) ? 'phone' : 'desktop'}.png`) });
  await dialog.getByRole('button', { name: 'Cancel shoot' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByText('Shoot cancelled')).toBeVisible();
  // The refund is what the server cancelled: every photo not started when the cancel arrived, never more than the
  // question named (photos only ever start in the meantime).
  const cancelled = await page.locator('[data-testid=shoot-tile][data-status=cancelled]').count();
  expect(cancelled).toBeLessThanOrEqual(Number(named));
  await expect(page.getByText(`${cancelled * 10} Credits`, { exact: true }).first()).toBeAttached();
});
