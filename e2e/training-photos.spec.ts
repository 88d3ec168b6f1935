import type { Page } from '@playwright/test';
import { onePersonPhotos, strangerPhoto } from '../tests/helpers/likeness-photos';
import { awkwardPhotos, derivedPhotos } from '../tests/helpers/photos';
import { expect, isPhone, newUser, signUp, test, withCredits } from './fixtures';

/** Every photo is checked by the server as it is added, before any credit is taken. */

const SUCCESS_DESKTOP =
  'Training submitted successfully! It will take 5-10 minutes to complete. You can check the progress in the Previous Trainings panel.';
const SUCCESS_PHONE = 'Training submitted successfully! Check progress below.';

const file = (name: string, buffer: Buffer) => ({ name, mimeType: 'image/jpeg', buffer });
const items = (page: Page) => page.getByRole('list', { name: 'Selected photos' }).getByRole('listitem');

/** A new user on the training page with `credits`, the character's name filled in. */
async function trainingPageWith(page: Page, fullName: string, credits: number) {
  const user = await signUp(page, newUser(fullName));
  await page.goto('/app/character-training');
  await expect(page.getByRole('heading', { name: 'Character Training' })).toBeVisible();
  await withCredits(user, credits);
  await expect(page.getByText(`${credits} Credits`, { exact: true }).first()).toBeAttached();
  await page.getByLabel('Character name').fill(fullName.split(' ')[0]!);
}

test('each photo gets its badge, the problems go in one tap, and the good ones train', async ({ page }) => {
  await trainingPageWith(page, 'Dana Park', 600);

  const photos = await derivedPhotos();
  const expected: [keyof typeof photos, string][] = [
    ['good', 'Good'],
    ['goodMan', 'Good'],
    ['blurred', 'Blurry'],
    ['darkened', 'Too dark'],
    ['brightened', 'Too bright'],
    ['shrunk', 'Too small (at least 512 px)'],
    ['twoFaces', 'More than one person'],
    ['faceTooSmall', 'Face too small'],
    ['duplicate', 'Same as photo 2'],
    ['noFace', 'No face found'],
  ];
  await page.locator('input[type=file]').setInputFiles(expected.map(([name]) => file(`${name}.jpg`, photos[name])));
  const summary = page.getByTestId('photo-check-summary');
  await expect(summary).toContainText('10 photos: 2 good, 8 with problems', { timeout: 60_000 });
  await expect(items(page)).toHaveCount(10);
  for (const [i, [, badge]] of expected.entries()) {
    await expect(items(page).nth(i)).toHaveAttribute('aria-label', `Photo ${i + 1}: ${badge}`);
    await expect(items(page).nth(i).getByTestId('photo-badge')).toHaveText(badge);
  }
  await expect(summary).toContainText('Photo 3: Blurry. Use a sharper photo, taken with a steady hand.');
  // The summary sits with the spec's guidance text.
  await expect(page.getByText('Upload 10–20 high-quality photos of the same person')).toBeVisible();
  // Ten badges and their notes still fit the screen: nothing scrolls sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
  await items(page)
    .first()
    .evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: test.info().outputPath(`training-photo-badges-${isPhone(page) ? 'phone' : 'desktop'}.png`) });
  await summary.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: test.info().outputPath(`training-photo-summary-${isPhone(page) ? 'phone' : 'desktop'}.png`) });

  await page.getByRole('button', { name: 'Remove 8 photos with problems' }).click();
  await expect(items(page)).toHaveCount(2);
  await expect(summary).toContainText('2 photos: 2 good');

  // Two photos of one person are not enough for the server either; two more of him are.
  const [, second, third] = await onePersonPhotos();
  await page.locator('input[type=file]').setInputFiles([file('second.jpg', second!), file('third.jpg', third!)]);
  await expect(summary).toContainText('4 photos: 4 good', { timeout: 60_000 });
  await page.getByRole('button', { name: 'Start Training' }).click();
  await expect(page.getByText(isPhone(page) ? SUCCESS_PHONE : SUCCESS_DESKTOP)).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText('100 Credits', { exact: true }).first()).toBeAttached();
});

test('a photo of someone else is named, warned about and removed in one tap; the rest train', async ({ page }) => {
  await trainingPageWith(page, 'Sam Reyes', 500);

  const [one, two, three, four] = await onePersonPhotos();
  const photos = [one!, two!, await strangerPhoto(), three!, four!];
  await page.locator('input[type=file]').setInputFiles(photos.map((buffer, i) => file(`photo-${i + 1}.jpg`, buffer)));
  const summary = page.getByTestId('photo-check-summary');
  await expect(summary).toContainText('5 photos: 4 good, 1 with a problem, photos show different people', { timeout: 60_000 });
  await expect(items(page).nth(2)).toHaveAttribute('aria-label', 'Photo 3: Not the same person');
  await expect(items(page).nth(2).getByTestId('photo-badge')).toHaveText('Not the same person');
  await expect(summary).toContainText(
    'Photo 3: Not the same person. Most of your photos show someone else. Use photos of one person only.',
  );
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
  await summary.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: test.info().outputPath(`training-photo-stranger-${isPhone(page) ? 'phone' : 'desktop'}.png`) });

  // Start Training asks once before spending 500 credits on it, naming the photo.
  await page.getByRole('button', { name: 'Start Training' }).click();
  const question = page.getByRole('dialog', { name: '1 photo may not show the same person — train anyway?' });
  await expect(question.getByTestId('problem-photos')).toHaveText('Photo 3: Not the same person');
  await expect(question).toContainText('Training uses 500 credits');
  await page.screenshot({ path: test.info().outputPath(`training-question-${isPhone(page) ? 'phone' : 'desktop'}.png`) });
  await question.getByRole('button', { name: 'Review photos' }).click();
  await expect(question).toHaveCount(0);
  await expect(page.getByText('500 Credits', { exact: true }).first()).toBeAttached();

  await page.getByRole('button', { name: 'Remove the photo with a problem' }).click();
  await expect(items(page)).toHaveCount(4);
  await expect(summary).toContainText('4 photos: 4 good');
  await expect(summary).not.toContainText('different people');
  await page.getByRole('button', { name: 'Start Training' }).click();
  await expect(page.getByText(isPhone(page) ? SUCCESS_PHONE : SUCCESS_DESKTOP)).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText('0 Credits', { exact: true }).first()).toBeAttached();
});

test('awkward files get a clear badge, never a stuck spinner', async ({ page }) => {
  await signUp(page, newUser());
  await page.goto('/app/character-training');
  await expect(page.getByRole('heading', { name: 'Character Training' })).toBeVisible();
  const files = await awkwardPhotos();
  const expected: [keyof typeof files, string, string][] = [
    ['exifRotated', 'IMG_0001.jpg', 'Good'],
    ['cmyk', 'print.jpg', 'Good'],
    ['png16', 'scan.png', 'Good'],
    ['heicNamedJpg', 'IMG_0042.jpg', "Can't be read"],
    ['truncated', 'broken.jpg', "Can't be read"],
  ];
  await page.locator('input[type=file]').setInputFiles(expected.map(([key, name]) => file(name, files[key])));
  const summary = page.getByTestId('photo-check-summary');
  await expect(summary).toContainText('5 photos: 3 good, 2 with problems', { timeout: 60_000 });
  for (const [i, [, , badge]] of expected.entries())
    await expect(items(page).nth(i)).toHaveAttribute('aria-label', `Photo ${i + 1}: ${badge}`);
  await expect(summary).toContainText("Photo 4: Can't be read. HEIC and AVIF photos cannot be used. Choose JPG, PNG or WEBP");
  await expect(summary).toContainText("Photo 5: Can't be read. The photo is damaged and could not be read.");
});

test('a file that is not a photo is named and left out', async ({ page }) => {
  await trainingPageWith(page, 'Lee Hart', 10);
  const [one] = await onePersonPhotos();
  await page
    .locator('input[type=file]')
    .setInputFiles([file('me.jpg', one!), { name: 'passport.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n') }]);
  await expect(page.getByTestId('photos-left-out')).toHaveText(
    '“passport.pdf” is not a photo, so it was not added. Choose JPG, PNG or WEBP images.',
  );
  await expect(items(page)).toHaveCount(1);
  await page.screenshot({ path: test.info().outputPath(`training-not-a-photo-${isPhone(page) ? 'phone' : 'desktop'}.png`) });
});
