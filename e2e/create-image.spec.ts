import type { Page, Request } from '@playwright/test';
import { expect, isPhone, newUser, signUp, test, withCredits, type TestUser } from './fixtures';

const GENERATE_PATH = '**/api/image/generate-image';

/**
 * Holds each generate call for a moment so the busy and queued states stay on screen long enough to see,
 * and counts how many were in flight at once.
 */
async function slowGeneration(page: Page, ms: number) {
  const stats = { inFlight: 0, maxInFlight: 0 };
  await page.route(GENERATE_PATH, async (route) => {
    stats.inFlight += 1;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    await new Promise((r) => setTimeout(r, ms));
    const response = await route.fetch();
    stats.inFlight -= 1;
    await route.fulfill({ response });
  });
  return stats;
}

/** Opens the page (which creates the users row) and then grants credits, which arrive live. */
async function openWithCredits(page: Page, user: TestUser, credits: number) {
  await page.goto('/app/create-image');
  await expect(balance(page, '0 Credits')).toBeAttached();
  await withCredits(user, credits);
  await expect(balance(page, `${credits} Credits`)).toBeAttached();
}

/** Every generate request the page sends, with its JSON body. */
function recordGenerateRequests(page: Page) {
  const bodies: Array<Record<string, unknown>> = [];
  page.on('request', (req: Request) => {
    if (req.url().endsWith('/api/image/generate-image') && req.method() === 'POST') bodies.push(req.postDataJSON());
  });
  return bodies;
}

const generateButton = (page: Page) => page.getByRole('button', { name: 'Generate', exact: true });
const recentItems = (page: Page) => page.getByRole('list', { name: 'Recent generations' }).getByRole('listitem');
const balance = (page: Page, text: string) => page.getByText(text, { exact: true }).first();

test('a user with credits generates an image and sees it, the balance drop live and the recent panel', async ({ page }) => {
  const user = await signUp(page, newUser());
  await slowGeneration(page, 800);
  await openWithCredits(page, user, 100);
  await expect(page.getByText('Start Creating')).toBeVisible();
  await expect(page.getByText('Describe your image and let AI bring it to life')).toBeVisible();
  await expect(page.getByText('No generations yet')).toBeVisible();

  const prompt = 'A lighthouse on a cliff at dawn, soft pastel sky, long exposure sea';
  await page.getByLabel('Prompt').fill(prompt);
  await generateButton(page).click();
  await expect(page.getByText('Creating your image...')).toBeVisible();

  const result = page.getByRole('img', { name: prompt });
  await expect(result).toBeVisible({ timeout: 30_000 });
  const resultArea = page.getByRole('region', { name: 'Result' });
  await expect(resultArea.getByText(prompt)).toBeVisible();
  await expect(resultArea.getByText(/^1024×1024/)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Download' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Copy URL' })).toBeVisible();
  await expect(balance(page, '90 Credits')).toBeAttached();
  await expect(recentItems(page)).toHaveCount(1);
  await expect(page.getByText('No generations yet')).toHaveCount(0);

  // The download endpoint names the file likeness-<timestamp>.jpeg.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^likeness-.+\.jpeg$/);

  await expect(page.getByRole('link', { name: 'View All Generations' })).toHaveAttribute('href', '/app/my-generations');
  await page.screenshot({ path: test.info().outputPath(`create-image-result-${isPhone(page) ? 'phone' : 'desktop'}.png`) });
});

test('three requests in a row are queued, shown as "+2 more in queue", and all finish', async ({ page }) => {
  const user = await signUp(page, newUser());
  const sent = recordGenerateRequests(page);
  const stats = await slowGeneration(page, 3000);
  await openWithCredits(page, user, 100);
  await page.getByLabel('Prompt').fill('A red fox in fresh snow, morning light');
  await generateButton(page).click();
  await expect(page.getByText('Creating your image...')).toBeVisible();
  await generateButton(page).click();
  await generateButton(page).click();
  await expect(page.getByText('+2 more in queue')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath(`create-image-queue-${isPhone(page) ? 'phone' : 'desktop'}.png`) });

  await expect(recentItems(page)).toHaveCount(3, { timeout: 30_000 });
  await expect(page.getByText('Creating your image...')).toHaveCount(0);
  await expect(balance(page, '70 Credits')).toBeAttached();
  // Drained one by one: each request went out only after the previous one answered.
  expect(sent).toHaveLength(3);
  expect(stats.maxInFlight).toBe(1);
});

test('form rules: size clamping, presets, sliders, seed lock, Enter never submits', async ({ page }) => {
  const user = await signUp(page, newUser());
  const sent = recordGenerateRequests(page);
  await openWithCredits(page, user, 50);

  const width = page.getByLabel('Width');
  const height = page.getByLabel('Height');
  await expect(width).toHaveValue('1024');
  await expect(height).toHaveValue('1024');
  const blurWith = async (field: typeof width, text: string) => {
    await field.fill(text);
    await field.blur();
  };
  // Each change is said beside the fields, where the eye is (the fields in the middle of the screen).
  const note = page.getByTestId('size-note');
  await width.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await blurWith(width, '3001');
  await expect(width, 'clamped to the maximum').toHaveValue('2048');
  await expect(note).toHaveText('Width set to 2048, the largest size');
  await expect(note).toBeInViewport();
  await blurWith(width, '100');
  await expect(width, 'clamped to the minimum').toHaveValue('512');
  await expect(note).toHaveText('Width set to 512, the smallest size');
  await blurWith(width, '1001');
  await expect(width, 'rounded down to a multiple of 8').toHaveValue('1000');
  await expect(note).toHaveText('Width set to 1000, a multiple of 8');
  await blurWith(width, 'abc');
  await expect(width, 'non-numeric reverts').toHaveValue('1000');
  await expect(note).toHaveText('Width kept at 1000: numbers only');
  await expect(note, 'gone after a few seconds').toBeEmpty({ timeout: 8000 });
  await blurWith(width, '');
  await expect(width, 'empty reverts').toHaveValue('1000');
  await blurWith(height, '777');
  await expect(height).toHaveValue('776');

  const presets = page.getByRole('group', { name: 'Aspect ratio' });
  await presets.getByRole('button', { name: /16:9/ }).click();
  await expect(width).toHaveValue('1024');
  await expect(height).toHaveValue('576');
  await expect(presets.getByRole('button', { name: /16:9/ })).toHaveAttribute('aria-pressed', 'true');
  await presets.getByRole('button', { name: /9:16/ }).click();
  await expect(width).toHaveValue('576');
  await expect(height).toHaveValue('1024');
  await presets.getByRole('button', { name: /1:1/ }).click();
  await expect(width).toHaveValue('1024');
  await expect(height).toHaveValue('1024');

  const steps = page.getByLabel('Inference steps');
  const guidance = page.getByLabel('Guidance scale');
  const loraPower = page.getByLabel('LoRA power');
  await expect(steps).toHaveValue('28');
  await expect(guidance).toHaveValue('3.5');
  await expect(loraPower).toHaveValue('1');
  await expect(loraPower, 'only meaningful with a character').toBeDisabled();
  await expect(steps).toHaveAttribute('min', '1');
  await expect(steps).toHaveAttribute('max', '50');
  await expect(guidance).toHaveAttribute('min', '1');
  await expect(guidance).toHaveAttribute('max', '20');
  await expect(guidance).toHaveAttribute('step', '0.1');
  await steps.focus();
  await page.keyboard.press('End');
  await expect(steps).toHaveValue('50');
  await page.keyboard.press('ArrowLeft');
  await expect(steps).toHaveValue('49');
  await guidance.focus();
  await page.keyboard.press('ArrowRight');
  await expect(guidance).toHaveValue('3.6');
  await expect(page.getByRole('combobox', { name: 'Character' })).toHaveValue('');
  await expect(page.getByRole('option', { name: 'No character' })).toBeAttached();

  const seed = page.getByLabel('Seed', { exact: true });
  await seed.fill('12a3-4');
  await expect(seed, 'digits only').toHaveValue('1234');
  await expect(page.getByRole('radio', { name: 'jpeg' })).toBeChecked();

  // Enter, with or without Shift, does not submit.
  const promptField = page.getByLabel('Prompt');
  await promptField.fill('A quiet harbour town');
  await promptField.press('Enter');
  await promptField.press('Shift+Enter');
  await width.press('Enter');
  await page.waitForTimeout(300);
  expect(sent).toHaveLength(0);
  await expect(page.getByText('Start Creating')).toBeVisible();

  // Unlocked: the seed typed is not used; a random one below 2147483647 is.
  await generateButton(page).click();
  await expect(recentItems(page)).toHaveCount(1, { timeout: 30_000 });
  expect(sent[0].seed).not.toBe(1234);
  expect(Number.isInteger(sent[0].seed) && (sent[0].seed as number) >= 0 && (sent[0].seed as number) < 2147483647).toBe(true);
  expect(sent[0]).toMatchObject({
    image_size: { width: 1024, height: 1024 },
    num_inference_steps: 49,
    guidance_scale: 3.6,
    output_format: 'jpeg',
    loras: [],
  });

  // Locked: the seed is used, and PNG is sent when chosen.
  await page.getByRole('button', { name: 'Lock seed' }).click();
  await expect(page.getByRole('button', { name: 'Lock seed' })).toHaveAttribute('aria-pressed', 'true');
  await page.getByText('png', { exact: true }).click();
  await generateButton(page).click();
  await expect(recentItems(page)).toHaveCount(2, { timeout: 30_000 });
  expect(sent[1]).toMatchObject({ seed: 1234, output_format: 'png' });
  await expect(page.getByText(/Seed 1234/)).toBeVisible();
});

test('without 10 credits: the banner, "Need 10 Credits", and a blank prompt keeps Generate disabled', async ({ page }) => {
  const user = await signUp(page, newUser());
  await page.goto('/app/create-image');
  await expect(page.getByText('Insufficient Credits')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Upgrade Plan' })).toHaveAttribute('href', '/app/subscription');
  await page.getByLabel('Prompt').fill('A mountain lake');
  const need = page.getByRole('button', { name: 'Need 10 Credits' });
  await expect(need).toBeDisabled();
  await page.screenshot({ path: test.info().outputPath(`create-image-empty-${isPhone(page) ? 'phone' : 'desktop'}.png`) });
  await page.getByRole('status').filter({ hasText: 'Insufficient Credits' }).getByRole('button', { name: 'Dismiss' }).click();
  await expect(page.getByText('Insufficient Credits')).toHaveCount(0);

  // Credits arrive live: the button becomes Generate; a blank prompt still keeps it disabled.
  await withCredits(user, 10);
  await expect(generateButton(page)).toBeEnabled();
  await page.getByLabel('Prompt').fill('   ');
  await expect(generateButton(page)).toBeDisabled();
  // Greyed out, and it says why right under it.
  const hint = page.getByTestId('generate-bar').getByText('Write a prompt first');
  await expect(hint).toBeInViewport();
  await expect(generateButton(page)).toHaveAccessibleDescription('Write a prompt first');
  await page.getByLabel('Prompt').fill('A mountain lake');
  await expect(hint).toHaveCount(0);
});

test('Extract from Image opens its panel; Inspire Me fills one of three sample prompts', async ({ page }) => {
  await signUp(page, newUser());
  await page.goto('/app/create-image');
  await page.getByRole('button', { name: 'Extract from Image' }).click();
  await expect(page.getByRole('dialog', { name: 'Extract Prompt from Image' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  // The menu opens inside the window, clear of the desktop sidebar at the window's left edge (at 800px too).
  for (const width of isPhone(page) ? [390] : [800, 1280]) {
    await page.setViewportSize({ width, height: page.viewportSize()!.height });
    await page.getByRole('button', { name: 'Inspire Me' }).click();
    const box = (await page.getByRole('menu').boundingBox())!;
    const sidebar = isPhone(page) ? 0 : (await page.getByTestId('sidebar').boundingBox())!.width;
    expect(box.x, `left edge at ${width}px`).toBeGreaterThanOrEqual(sidebar);
    expect(box.x + box.width, `right edge at ${width}px`).toBeLessThanOrEqual(width);
    await page.keyboard.press('Escape');
    await expect(page.getByRole('menu')).toHaveCount(0);
  }
  await page.getByRole('button', { name: 'Inspire Me' }).click();
  const samples = page.getByRole('menuitem');
  await expect(samples).toHaveCount(3);
  await samples.first().click();
  await expect(page.getByLabel('Prompt')).toHaveValue(/headshot/);
});

test('remixSettings in the navigation state prefill the form, seed cleared', async ({ page }) => {
  await signUp(page, newUser());
  await page.goto('/app/create-image');
  await expect(page.getByLabel('Prompt')).toHaveValue('');
  // What Regenerate elsewhere in the app does: navigate here with router state.
  await page.evaluate(() => {
    const remixSettings = { prompt: 'Remixed: a neon city at night', width: 576, height: 1024, steps: 40, guidance: 7.5, lora: null };
    window.history.pushState({ usr: { remixSettings }, key: 'remix', idx: 1 }, '', '/app/create-image');
    window.dispatchEvent(new PopStateEvent('popstate', { state: window.history.state }));
  });
  await expect(page.getByLabel('Prompt')).toHaveValue('Remixed: a neon city at night');
  await expect(page.getByLabel('Width')).toHaveValue('576');
  await expect(page.getByLabel('Height')).toHaveValue('1024');
  await expect(page.getByLabel('Inference steps')).toHaveValue('40');
  await expect(page.getByLabel('Guidance scale')).toHaveValue('7.5');
  await expect(page.getByLabel('Seed', { exact: true })).toHaveValue('');
  await expect(page.getByRole('group', { name: 'Aspect ratio' }).getByRole('button', { name: /9:16/ })).toHaveAttribute(
    'aria-pressed',
    'true',
  );
});
