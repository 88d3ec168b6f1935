import { writeFile } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';
import { LIMITS } from '../common/product';
import { samplePhoto, type SamplePhoto } from '../tests/helpers/photos';
import { expect, isPhone, newUser, signUp, test, withCredits, type TestUser } from './fixtures';

/** The first analysis loads the vision models; later ones are quick. */
const ANALYSIS_TIMEOUT = 60_000;

/** A real photo (cut from the samples inside @vladmandic/human) written to this test's own folder. */
async function photoFile(name: SamplePhoto, fileName: string): Promise<string> {
  const path = test.info().outputPath(fileName);
  await writeFile(path, await samplePhoto(name, 640));
  return path;
}

const balance = (page: Page, credits: number) => page.getByText(`${credits} Credits`, { exact: true }).first();
const panel = (page: Page) => page.getByRole('dialog', { name: 'Extract Prompt from Image' });
const fileInput = (dialog: Locator) => dialog.getByLabel('Choose an image');
const preview = (dialog: Locator) => dialog.getByRole('img', { name: 'Selected image preview' });
const shot = (page: Page, name: string) =>
  page.screenshot({ path: test.info().outputPath(`extract-${name}-${isPhone(page) ? 'phone' : 'desktop'}.png`) });

async function openCreateImage(page: Page, user: TestUser, credits: number) {
  await page.goto('/app/create-image');
  await expect(balance(page, 0)).toBeAttached();
  if (credits) {
    await withCredits(user, credits);
    await expect(balance(page, credits)).toBeAttached();
  }
}

async function openPanel(page: Page) {
  await page.getByRole('button', { name: 'Extract from Image' }).click();
  const dialog = panel(page);
  await expect(dialog).toBeVisible();
  return dialog;
}

/** Drops a file on the panel's drop zone the way a browser does: a drop event carrying a DataTransfer. */
async function dropFile(page: Page, target: Locator, file: { name: string; type: string; text: string }) {
  const dataTransfer = await page.evaluateHandle(({ name, type, text }) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], name, { type }));
    return dt;
  }, file);
  await target.dispatchEvent('dragover', { dataTransfer });
  await target.dispatchEvent('drop', { dataTransfer });
}

test('a wrong type or an oversize file is refused with its message and the selection cleared', async ({ page }) => {
  const user = await signUp(page, newUser());
  await openCreateImage(page, user, 0);
  const dialog = await openPanel(page);
  await expect(dialog.getByRole('radio', { name: /Detailed/ })).toBeChecked();
  await expect(dialog.getByText('1 credit', { exact: true })).toBeVisible();
  await expect(dialog.getByText('2 credits', { exact: true })).toBeVisible();
  await shot(page, 'empty');

  await fileInput(dialog).setInputFiles(await photoFile('smilingWoman', 'portrait.jpg'));
  await expect(preview(dialog)).toBeVisible();
  await fileInput(dialog).setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') });
  await expect(dialog.getByRole('alert')).toHaveText('Invalid file type (JPG, PNG, WEBP only).');
  await expect(preview(dialog)).toHaveCount(0);
  await shot(page, 'wrong-type');

  // One byte over 5 MB: refused in the browser before anything is uploaded.
  const uploads: string[] = [];
  page.on('request', (req) => req.url().endsWith('/api/upload') && uploads.push(req.url()));
  await fileInput(dialog).setInputFiles({ name: 'huge.jpg', mimeType: 'image/jpeg', buffer: Buffer.alloc(LIMITS.uploadMaxBytes + 1) });
  await expect(dialog.getByRole('alert')).toHaveText('File is too large (max 5MB).');
  await expect(preview(dialog)).toHaveCount(0);
  // With no credits the button names what is missing (and it stays disabled without a file anyway).
  await expect(dialog.getByRole('button', { name: 'Need 2 Credits' })).toBeDisabled();

  // Dropped files follow the same rules.
  await dropFile(page, dialog.getByTestId('extract-drop-zone'), { name: 'clip.gif', type: 'image/gif', text: 'GIF89a' });
  await expect(dialog.getByRole('alert')).toHaveText('Invalid file type (JPG, PNG, WEBP only).');
  expect(uploads).toHaveLength(0);
});

test('Fast charges 1 credit, Detailed 2, and "Use This Prompt" fills the form; the panel is reset when reopened', async ({ page }) => {
  test.setTimeout(120_000);
  const user = await signUp(page, newUser());
  await openCreateImage(page, user, 5);
  const dialog = await openPanel(page);
  await fileInput(dialog).setInputFiles(await photoFile('smilingWoman', 'smiling-woman.jpg'));
  await expect(preview(dialog)).toBeVisible();
  await expect(dialog.getByText('smiling-woman.jpg')).toBeVisible();

  // Detailed is the default.
  await dialog.getByRole('button', { name: 'Generate Prompt' }).click();
  await expect(dialog.getByRole('button', { name: /Uploading image|Analyzing image/ })).toBeDisabled();
  const result = dialog.getByRole('region', { name: 'Extracted prompt' });
  await expect(result).toBeVisible({ timeout: ANALYSIS_TIMEOUT });
  const detailed = (await result.locator('p').textContent())!.trim();
  expect(detailed.split('. ').length, 'several sentences').toBeGreaterThan(2);
  expect(detailed.toLowerCase()).toMatch(/woman|face|portrait/);
  await expect(balance(page, 3)).toBeAttached();
  await expect(dialog.getByRole('button', { name: 'Use This Prompt' }), 'the result is scrolled into view').toBeInViewport();
  await shot(page, 'detailed-result');

  // The radio itself is visually hidden inside its card: click the card, as a person does.
  await dialog.getByText('Fast', { exact: true }).click();
  await expect(dialog.getByRole('radio', { name: /Fast/ })).toBeChecked();
  await dialog.getByRole('button', { name: 'Generate Again' }).click();
  await expect(result.locator('p')).not.toHaveText(detailed, { timeout: ANALYSIS_TIMEOUT });
  await expect(dialog.getByRole('button', { name: 'Generate Again' })).toBeEnabled();
  const fast = (await result.locator('p').textContent())!.trim();
  expect(fast.length).toBeGreaterThan(10);
  expect(fast.length).toBeLessThan(detailed.length);
  await expect(balance(page, 2)).toBeAttached();

  await dialog.getByRole('button', { name: 'Use This Prompt' }).click();
  await expect(panel(page)).toHaveCount(0);
  await expect(page.getByLabel('Prompt')).toHaveValue(fast);
  await shot(page, 'prompt-filled');

  const reopened = await openPanel(page);
  await expect(preview(reopened)).toHaveCount(0);
  await expect(reopened.getByRole('region', { name: 'Extracted prompt' })).toHaveCount(0);
  await expect(reopened.getByRole('radio', { name: /Detailed/ })).toBeChecked();
  await expect(reopened.getByRole('button', { name: 'Generate Prompt' })).toBeDisabled();
});

test('the panel works from the keyboard and a short balance is named on its button', async ({ page }) => {
  test.skip(isPhone(page), 'a keyboard walk-through; a touch phone opens its picker by tap');
  const user = await signUp(page, newUser());
  await openCreateImage(page, user, 1);
  await page.getByRole('button', { name: 'Extract from Image' }).focus();
  await page.keyboard.press('Enter');
  const dialog = panel(page);
  await expect(dialog).toBeVisible();

  // The drop zone's own file input takes the focus first, so Enter or Space opens the system picker. (Headless
  // Chromium does not reliably raise that picker for a synthetic key press, so the file is then set directly.)
  await expect(fileInput(dialog)).toBeFocused();
  await fileInput(dialog).setInputFiles(await photoFile('man', 'man.jpg'));
  await expect(preview(dialog)).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Need 2 Credits' })).toBeDisabled();

  // Radios move with the arrow keys: Detailed → Fast, which the balance of 1 can pay for.
  await dialog.getByRole('radio', { name: /Detailed/ }).focus();
  await page.keyboard.press('ArrowLeft');
  await expect(dialog.getByRole('radio', { name: /Fast/ })).toBeChecked();
  await expect(dialog.getByRole('button', { name: 'Generate Prompt' })).toBeEnabled();
  await shot(page, 'keyboard');

  await page.keyboard.press('Escape');
  await expect(panel(page)).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Extract from Image' })).toBeFocused();
});
