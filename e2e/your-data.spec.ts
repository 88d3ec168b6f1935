import { readFileSync } from 'node:fs';
import type { Download, Page } from '@playwright/test';
import { strFromU8, unzipSync, zipSync } from 'fflate';
import sharp from 'sharp';
import { portraitPhoto, PORTRAITS } from '../tests/helpers/photos';
import { CONTROL, expect, isPhone, newUser, ORIGIN, signUp, test, withCredits, type TestUser } from './fixtures';

const QUESTION = (name: string) =>
  `Delete ${name}? Its model and training photos are removed for good. Images you made with it stay in your gallery.`;

/** Gives the user `count` generations through the control port ('Gallery image 1' oldest … newest last). */
async function withGenerations(user: TestUser, count: number): Promise<string[]> {
  const res = await fetch(`${CONTROL}/generations`, { method: 'POST', body: JSON.stringify({ email: user.email, count }) });
  if (!res.ok) throw new Error(await res.text());
  return (await res.json()).ids;
}

async function signedIn(page: Page, name = 'Robin Vale'): Promise<TestUser> {
  const user = await signUp(page, newUser(name));
  // The first signed-in call creates the user's record (product §4 user sync).
  expect((await page.request.get('/api/me')).ok()).toBeTruthy();
  return user;
}

/** Trains a character through the API (uploader, then submission), as the training page does. */
async function submitTraining(page: Page, name: string): Promise<void> {
  const files: Record<string, [Uint8Array, { level: 0 }]> = {};
  for (let i = 0; i < 4; i++)
    files[`photo-${i + 1}.jpg`] = [
      await sharp(await portraitPhoto(PORTRAITS[i]!))
        .jpeg()
        .toBuffer(),
      { level: 0 },
    ];
  const upload = await page.request.post('/api/upload', {
    headers: { origin: ORIGIN },
    multipart: { file: { name: 'training_images.zip', mimeType: 'application/zip', buffer: Buffer.from(zipSync(files)) } },
  });
  expect(upload.ok()).toBeTruthy();
  const submitted = await page.request.post('/api/image/submit-lora-training', {
    headers: { origin: ORIGIN },
    data: {
      images_data_url: (await upload.json()).url,
      character_name: name,
      gender: 'other',
      hair_color: 'other',
      create_masks: true,
      steps: 1000,
      is_style: false,
    },
    timeout: 90_000,
  });
  expect(submitted.status(), await submitted.text()).toBe(200);
}

async function zipOf(download: Download): Promise<Record<string, Uint8Array>> {
  const path = test.info().outputPath(download.suggestedFilename());
  await download.saveAs(path);
  return unzipSync(new Uint8Array(readFileSync(path)));
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: test.info().outputPath(`${name}-${isPhone(page) ? 'phone' : 'desktop'}.png`) });

test('a person deletes a character from Previous Trainings', async ({ page }) => {
  test.setTimeout(150_000);
  const user = await signedIn(page);
  await withCredits(user, 600);
  await submitTraining(page, 'Robin');
  await page.goto('/app/character-training');
  const row = page.getByTestId('training-row').filter({ hasText: 'Robin' });
  await expect(row.getByText('Completed', { exact: true })).toBeVisible({ timeout: 60_000 });

  await row.getByRole('button', { name: 'Actions for Robin' }).click();
  await expect(page.getByRole('menuitem')).toHaveText(['Rename', 'Delete']);
  await shot(page, 'character-menu');
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByText(QUESTION('Robin'))).toBeVisible();
  await shot(page, 'character-delete');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('training-row')).toHaveCount(0);
  await expect(page.getByText('No trainings yet')).toBeVisible();
  // Nothing can use it any more: the character picker's list is empty.
  expect((await (await page.request.get('/api/characters')).json()).items).toEqual([]);

  // The toast offers Undo for a few seconds; Undo brings Robin back, usable as before.
  const toast = page.getByRole('status').filter({ hasText: 'Character deleted' });
  const undo = toast.getByRole('button', { name: 'Undo' });
  await expect(undo).toBeVisible();
  const box = (await undo.boundingBox())!;
  expect(box.height).toBeGreaterThanOrEqual(isPhone(page) ? 44 : 28);
  await shot(page, 'character-deleted-undo');
  await undo.click();
  await expect(row.getByText('Completed', { exact: true })).toBeVisible();
  await expect(page.getByText('No trainings yet')).toHaveCount(0);
  await shot(page, 'character-restored');
  await row.getByRole('button', { name: 'Generate with this character' }).click();
  await expect(page).toHaveURL(/\/app\/create-image$/);
  await expect(page.getByLabel('Character', { exact: true })).toHaveValue(/.+/);
  await page.getByLabel('Prompt').fill('robin as a portrait in a sunny park');
  await page.getByRole('button', { name: 'Generate', exact: true }).click();
  await expect(page.getByRole('img', { name: 'robin as a portrait in a sunny park' })).toBeVisible({ timeout: 30_000 });
});

test('a person selects three images in My Generations and downloads them', async ({ page }) => {
  const user = await signedIn(page);
  const ids = await withGenerations(user, 5);
  await page.goto('/app/my-generations');
  await expect(page.getByTestId('gallery-count')).toHaveText('5 images');
  await page.getByRole('button', { name: 'Select' }).click();
  const boxes = page.getByRole('checkbox', { name: /^Select image/ });
  await expect(boxes).toHaveCount(5);
  for (const i of [0, 1, 2]) await boxes.nth(i).click();
  await expect(page.getByTestId('selection-count')).toContainText('3 selected');
  await shot(page, 'selection');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^Likeness-3-images-.+\.zip$/);
  const zip = await zipOf(download);
  const names = Object.keys(zip);
  expect(names).toHaveLength(3);
  // The newest three (cards are newest first), as JPEG files.
  for (const id of ids.slice(2)) expect(names.some((n) => n.includes(id) && n.endsWith('.jpeg'))).toBe(true);
  for (const name of names) expect([...zip[name]!.slice(0, 3)]).toEqual([0xff, 0xd8, 0xff]);

  // Add to favorites, then delete the same three.
  await page.getByRole('button', { name: isPhone(page) ? 'Favorite' : 'Add to favorites' }).click();
  await expect(page.getByText('3 images added to favorites.')).toBeVisible();
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('status').filter({ hasText: '3 images deleted' })).toBeVisible();
  await expect(page.getByTestId('gallery-count')).toHaveText('2 images');
});

test('a person downloads all their data from the profile, once per 10 minutes', async ({ page }) => {
  const user = await signedIn(page);
  await withGenerations(user, 2);
  await page.goto('/app/profile');
  await expect(page.getByRole('button', { name: 'Download my data' })).toBeVisible();
  await shot(page, 'profile-your-data');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download my data' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^Likeness-my-data-\d{4}-\d{2}-\d{2}\.zip$/);
  const zip = await zipOf(download);
  expect(Object.keys(zip).filter((n) => n.startsWith('images/'))).toHaveLength(2);
  expect(JSON.parse(strFromU8(zip['generations.json']!))).toHaveLength(2);
  expect(JSON.parse(strFromU8(zip['characters.json']!))).toEqual([]);
  expect(strFromU8(zip['credits.csv']!)).toMatch(/^created_at,kind,amount,balance_after,reason/);
  expect(strFromU8(zip['README.txt']!)).toContain('generations.json');

  await page.getByRole('button', { name: 'Download my data' }).click();
  await expect(page.getByRole('alert')).toHaveText('You can download your data once every 10 minutes. Please try again later.');
});

test('a person deletes their account and cannot sign in again', async ({ page }) => {
  const user = await signedIn(page);
  await withGenerations(user, 1);
  await page.goto('/app/profile');
  await page.getByRole('button', { name: 'Delete account' }).click();
  const dialog = page.getByRole('dialog');
  const field = dialog.getByLabel('Type your e-mail address to confirm');
  const password = dialog.getByLabel('Your password');
  await field.fill('not-me@example.com');
  // Without the password the dialog does not send.
  await expect(dialog.getByRole('button', { name: 'Delete my account' })).toBeDisabled();
  await password.fill('not-my-password');
  await dialog.getByRole('button', { name: 'Delete my account' }).click();
  await expect(dialog.getByText('The e-mail address does not match this account. Nothing was deleted.')).toBeVisible();
  await field.fill(user.email);
  await dialog.getByRole('button', { name: 'Delete my account' }).click();
  await expect(dialog.getByText('Your password is incorrect. Nothing was deleted.')).toBeVisible();
  await expect(password).toHaveAttribute('aria-invalid', 'true');
  await shot(page, 'delete-account-wrong-password');
  // Nothing was deleted: the profile is still there behind the dialog.
  await expect(page).toHaveURL(/\/app\/profile$/);
  await password.fill(user.password);
  await shot(page, 'delete-account');
  await dialog.getByRole('button', { name: 'Delete my account' }).click();

  await expect(page).toHaveURL(/\/sign-in\?deleted=1$/);
  await expect(page.getByText('Your account was deleted. Everything in it has been erased.')).toBeVisible();
  await shot(page, 'account-deleted');
  await page.getByLabel('Email address').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('Incorrect email or password. Please try again.')).toBeVisible();
  await page.goto('/app/my-generations');
  await expect(page).toHaveURL(/\/sign-in/);
});
