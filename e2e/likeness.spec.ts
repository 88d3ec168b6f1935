import type { Page } from '@playwright/test';
import { onePersonPhotos } from './support/training-photos';
import { CONTROL, expect, isPhone, newUser, signUp, test, withCredits } from './fixtures';

/** The app's section through the sidebar (desktop) or the top bar's menu (phone). */
async function openSection(page: Page, label: string) {
  if (isPhone(page)) {
    await page.getByRole('button', { name: 'Open menu' }).click();
    await page.getByRole('menuitem', { name: label }).click();
  } else {
    await page.getByTestId('sidebar').getByRole('link', { name: label }).click();
  }
}

test('a shoot where two photos show a stranger re-takes them: 2 re-taken for likeness, every kept photo a strong likeness', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const user = await signUp(page, newUser('Mara Lind'));

  // Train a character on photos of one person.
  await page.goto('/app/character-training');
  await expect(page.getByLabel('Character name')).toBeVisible();
  await withCredits(user, 500);
  await expect(page.getByText('500 Credits', { exact: true }).first()).toBeAttached();
  await page.getByLabel('Character name').fill('Mara');
  await page.getByLabel('Gender').selectOption('female');
  await page.getByLabel('Hair color').selectOption('brown');
  const photos = (await onePersonPhotos()).map((buffer, i) => ({ name: `mara-${i + 1}.jpg`, mimeType: 'image/jpeg', buffer }));
  await page.locator('input[type=file]').setInputFiles(photos);
  await page.getByRole('button', { name: 'Start Training' }).click();
  await expect(page.getByTestId('training-row').first().getByText('Completed', { exact: true })).toBeVisible({ timeout: 120_000 });

  // The fal fake photographs Mara from now on, and sends a stranger for the next two photos.
  const res = await fetch(`${CONTROL}/likeness/strangers`, { method: 'POST', body: JSON.stringify({ email: user.email, count: 2 }) });
  expect(res.ok, await res.clone().text()).toBeTruthy();

  await withCredits(user, 100);
  await openSection(page, 'Photo Shoots');
  await page.getByRole('button', { name: 'LinkedIn Profile' }).click();
  await expect(page.getByRole('radio', { name: /Mara/ })).toBeChecked();
  await page.getByRole('button', { name: /Start shoot/ }).click();
  await expect(page).toHaveURL(/\/app\/photo-shoots\/[0-9a-f-]{36}$/);

  await expect(page.getByTestId('shoot-progress')).toHaveText('10 of 10 ready · 2 re-taken for likeness', { timeout: 240_000 });
  const tiles = page.locator('[data-testid=shoot-tile][data-status=ready]');
  await expect(tiles).toHaveCount(10);
  await expect(tiles.getByTestId('likeness-badge')).toHaveText(Array.from({ length: 10 }, () => 'Strong likeness'));
  // N × 10 once, nothing for the re-takes.
  await expect(page.getByText('0 Credits', { exact: true }).first()).toBeAttached();
  await page.screenshot({ path: test.info().outputPath('shoot-retaken.png'), fullPage: true });

  // The strangers were deleted: My Generations holds the ten kept photos and no weak likeness.
  await openSection(page, 'My Generations');
  await expect(page.getByTestId('gallery-count')).toHaveText('10 images');
  await page.getByRole('button', { name: 'Weak likeness' }).click();
  await expect(page.getByText('No weak likenesses')).toBeVisible();
  await page.getByRole('button', { name: 'Show all generations' }).click();
  await page
    .getByRole('button', { name: /Open image details/ })
    .first()
    .click();
  await expect(page.getByRole('dialog').getByTestId('likeness-badge')).toHaveText('Strong likeness');
  await page.screenshot({ path: test.info().outputPath('viewer-strong.png') });
  await page.keyboard.press('Escape');

  // A single generation that shows a stranger: 'Weak likeness' and the hint beside Regenerate (charged as usual).
  const { lora } = (await (
    await fetch(`${CONTROL}/likeness/strangers`, { method: 'POST', body: JSON.stringify({ email: user.email, count: 1 }) })
  ).json()) as { lora: string };
  await withCredits(user, 10);
  const generated = await page.request.post('/api/image/generate-image', {
    data: {
      prompt: 'mara, portrait by a window',
      image_size: { width: 768, height: 768 },
      loras: [{ path: lora, scale: 1 }],
      num_inference_steps: 28,
      guidance_scale: 3.5,
      num_images: 1,
      enable_safety_checker: true,
      output_format: 'jpeg',
    },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(generated.ok()).toBeTruthy();
  await page.getByRole('button', { name: 'Weak likeness' }).click();
  await expect(page.getByTestId('gallery-count')).toHaveText('1 image', { timeout: 30_000 });
  await page
    .getByRole('button', { name: /Open image details/ })
    .first()
    .click();
  const viewer = page.getByRole('dialog');
  await expect(viewer.getByTestId('likeness-badge')).toHaveText('Weak likeness');
  await expect(viewer.getByText("This doesn't look much like Mara. Try again with another seed.")).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('viewer-weak.png') });
});
