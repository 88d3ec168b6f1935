import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { portraitPhoto, PORTRAITS } from '../tests/helpers/photos';
import { CONTROL, ORIGIN, expect, isPhone, newUser, signUp, test, withCredits, type TestUser } from './fixtures';

/** A 60-character address and a long name: what must never push a page sideways. */
const longUser = () => {
  const user = newUser('Alexandria Montgomery-Featherstonehaugh');
  const local = user.email.split('@')[0]!;
  return { ...user, email: `${local}-${'x'.repeat(60 - local.length - '@subdomain.example.com'.length - 1)}@subdomain.example.com` };
};

const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Every visible button whose label is cut: its content is wider or taller than the box that shows it. */
const clippedButtons = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('button, a[role=button], a.btn')]
      .filter((el) => (el as HTMLElement).offsetParent !== null)
      .filter((el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
      .map((el) => el.textContent?.trim()),
  );

test('the training form says why Start Training did nothing right where the eye is', async ({ page }) => {
  const user = await signUp(page);
  await page.goto('/app/character-training');
  await expect(page.getByRole('heading', { name: 'Character Training' })).toBeVisible();
  await withCredits(user, 600);
  await expect(page.getByText('600 Credits', { exact: true }).first()).toBeAttached();
  await page.getByLabel('Character name').fill('Dana');
  const photos = await Promise.all(
    PORTRAITS.slice(0, 3).map(async (p, i) => ({ name: `p${i}.jpg`, mimeType: 'image/jpeg', buffer: await portraitPhoto(p) })),
  );
  await page.locator('input[type=file]').setInputFiles(photos);
  await page.getByRole('button', { name: 'Start Training' }).click();
  const problem = page.getByTestId('training-submit-problem');
  await expect(problem).toHaveText('Please upload at least 4 images for better results');
  await expect(problem).toBeInViewport();
  await expect(problem).toBeFocused();
  // Gone as soon as its cause is: a fourth photo.
  await page
    .locator('input[type=file]')
    .setInputFiles([{ name: 'p3.jpg', mimeType: 'image/jpeg', buffer: await portraitPhoto(PORTRAITS[3]!) }]);
  await expect(problem).toBeHidden();
});

test('Generate and its cost are in reach without scrolling the create-image form', async ({ page }) => {
  const user = await signUp(page);
  await page.goto('/app/create-image');
  await expect(page.getByRole('heading', { name: 'Create Image' })).toBeVisible();
  await withCredits(user, 20);
  const generate = page.getByRole('button', { name: 'Generate', exact: true });
  await page.getByLabel('Prompt').fill('A lighthouse at dusk');
  await expect(generate).toBeEnabled();
  if (isPhone(page)) await page.getByLabel('Prompt').scrollIntoViewIfNeeded();
  await expect(generate).toBeInViewport();
  await expect(page.getByTestId('generate-bar').getByText('Each image uses 10 credits.')).toBeInViewport();
  // Still there with the form scrolled halfway.
  await page.getByLabel('Inference steps').scrollIntoViewIfNeeded();
  await expect(generate).toBeInViewport();
});

test('a 60-character address and a long name never push a page sideways, and no button label is cut', async ({ page }) => {
  const user = longUser();
  expect(user.email).toHaveLength(60);
  await signUp(page, user);
  for (const path of ['/app/profile', '/app/subscription', '/app/create-image', '/app/character-training']) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    expect(await sideways(page), path).toBe(0);
  }
  // The phone menu, open, fits the screen and marks the page one is on.
  if (isPhone(page)) {
    await page.goto('/app/profile');
    await page.getByRole('button', { name: 'Open menu' }).click();
    const menu = page.getByRole('menu');
    await expect(menu.getByRole('menuitem').filter({ hasText: 'Alexandria Montgomery-Featherstonehaugh' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    await expect(menu.getByRole('menuitem', { name: 'Explore' })).not.toHaveAttribute('aria-current', 'page');
    expect(await sideways(page)).toBe(0);
    await page.keyboard.press('Escape');
  }
  // The sandbox checkout's summary wraps the address.
  await page.goto('/app/subscription');
  await page.getByTestId('plan-STANDARD').getByRole('button', { name: 'Choose plan' }).click();
  await expect(page).toHaveURL(/\/sandbox\/checkout\//);
  await expect(page.getByText(user.email)).toBeVisible();
  expect(await sideways(page)).toBe(0);
  await page.getByRole('button', { name: 'Pay' }).click();
  await expect(page.getByTestId('balance')).toHaveText('4,500 credits available');
  // My Generations with an image: its 'Weak likeness' and 'Select' buttons wrap under the title on a phone.
  const generated = await page.request.post('/api/image/generate-image', {
    data: {
      prompt: 'a lighthouse on a cliff at dusk',
      image_size: { width: 512, height: 512 },
      loras: [],
      num_inference_steps: 28,
      guidance_scale: 3.5,
      num_images: 1,
      enable_safety_checker: true,
      output_format: 'jpeg',
    },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(generated.status()).toBe(200);
  await page.goto('/app/my-generations');
  await expect(page.getByRole('button', { name: 'Select' })).toBeVisible();
  expect(await sideways(page)).toBe(0);
  expect(await clippedButtons(page)).toEqual([]);
  await page.goto('/app/subscription');
  // With a plan, at every width from 360 to 1440 px the plan cards' labels fit ('Manage Current Plan' at 820).
  for (const width of [360, 600, 768, 820, 1024, 1280, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await expect(page.getByTestId('plan-STANDARD').getByRole('button')).toHaveText('Manage Current Plan');
    expect(await clippedButtons(page), `at ${width}px`).toEqual([]);
    expect(await sideways(page), `at ${width}px`).toBe(0);
  }
});

test('small labels and the app screens meet WCAG AA contrast', async ({ page }) => {
  await signUp(page);
  for (const path of ['/app/create-image', '/app/profile', '/app/explore', '/app/subscription', '/app/character-training']) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    const { violations } = await new AxeBuilder({ page }).withRules(['color-contrast']).analyze();
    expect(
      violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`)),
      path,
    ).toEqual([]);
  }
});

test('cancelling the sandbox checkout says so', async ({ page }) => {
  await signUp(page);
  await page.goto('/app/subscription');
  await page.getByTestId('plan-BASIC').getByRole('button', { name: 'Choose plan' }).click();
  await page.getByRole('link', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(`${ORIGIN}/app/subscription?checkout=cancelled`);
  await expect(page.getByText('Checkout cancelled')).toBeVisible();
  await page.getByRole('status').filter({ hasText: 'Checkout cancelled' }).getByRole('button', { name: 'Dismiss' }).click();
  await expect(page).toHaveURL(`${ORIGIN}/app/subscription`);
});

// ───────────────────────── Undo for deletes ─────────────────────────

/** Gives the user `count` generations through the control port ('Gallery image 1' oldest … newest last). */
async function withGenerations(user: TestUser, count: number): Promise<void> {
  const res = await fetch(`${CONTROL}/generations`, { method: 'POST', body: JSON.stringify({ email: user.email, count }) });
  if (!res.ok) throw new Error(await res.text());
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: test.info().outputPath(`${name}-${isPhone(page) ? 'phone' : 'desktop'}.png`) });
const galleryCount = (page: Page) => page.getByTestId('gallery-count');
/** The cards' image numbers in the order shown ('Gallery image 3: …' → 3). */
const shownNumbers = (page: Page) =>
  page
    .getByTestId('generation-card')
    .getByRole('img')
    .evaluateAll((imgs) => imgs.map((img) => Number(/Gallery image (\d+)/.exec(img.getAttribute('alt') ?? '')?.[1])));

/** The toast's Undo, a button of a sensible size (a finger's on phones). */
async function undoIn(page: Page, message: string) {
  const toast = page.getByRole('status').filter({ hasText: message });
  await expect(toast).toBeVisible();
  const undo = toast.getByRole('button', { name: 'Undo' });
  const box = (await undo.boundingBox())!;
  expect(box.height).toBeGreaterThanOrEqual(isPhone(page) ? 44 : 36);
  expect(box.width).toBeGreaterThanOrEqual(44);
  return undo;
}

test('a deleted image comes back with Undo, where it was, in this tab and the other', async ({ page, context }) => {
  const user = await signUp(page, newUser());
  expect((await page.request.get('/api/me')).ok()).toBeTruthy();
  await withGenerations(user, 3);
  await page.goto('/app/my-generations');
  await expect(galleryCount(page)).toHaveText('3 images');
  await expect.poll(() => shownNumbers(page)).toEqual([3, 2, 1]);
  const other = await context.newPage();
  await other.goto('/app/my-generations');
  await expect(galleryCount(other)).toHaveText('3 images');

  // The middle one: from the phone sheet's menu, or the desktop card's menu.
  const card = page.getByTestId('generation-card').nth(1);
  if (isPhone(page)) {
    await card.getByRole('button', { name: /^Open image details/ }).click({ position: { x: 40, y: 12 } });
    await page.getByRole('dialog').getByRole('button', { name: 'Image actions' }).click();
  } else {
    await card.hover();
    await card.getByRole('button', { name: 'More actions' }).click();
  }
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await expect(galleryCount(page)).toHaveText('2 images');
  await expect(galleryCount(other)).toHaveText('2 images');
  await (await undoIn(page, 'Image deleted')).click();

  await expect(galleryCount(page)).toHaveText('3 images');
  await expect.poll(() => shownNumbers(page)).toEqual([3, 2, 1]);
  await expect(page.getByRole('status').filter({ hasText: 'Image deleted' })).toHaveCount(0);
  // The viewer it was deleted from stays closed.
  await expect(page.getByRole('dialog')).toHaveCount(0);
  // The other tab hears of it as it heard of the delete.
  await expect(galleryCount(other)).toHaveText('3 images');
  await page.reload();
  await expect(galleryCount(page)).toHaveText('3 images');

  if (!isPhone(page)) {
    // From the viewer, and with the keyboard: F8 reaches Undo.
    await page
      .getByTestId('generation-card')
      .first()
      .getByRole('button', { name: /^Open image details/ })
      .click({ position: { x: 40, y: 12 } });
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(galleryCount(page)).toHaveText('2 images');
    await page.keyboard.press('F8');
    await expect(page.getByRole('button', { name: 'Undo' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(galleryCount(page)).toHaveText('3 images');
    await expect.poll(() => shownNumbers(page)).toEqual([3, 2, 1]);
  }

  // Without Undo the toast leaves after about 6 s (its text readable meanwhile) and the image stays deleted.
  const last = page.getByTestId('generation-card').nth(2);
  if (isPhone(page)) {
    await last.getByRole('button', { name: /^Open image details/ }).click({ position: { x: 40, y: 12 } });
    await page.getByRole('dialog').getByRole('button', { name: 'Image actions' }).click();
  } else {
    await last.hover();
    await last.getByRole('button', { name: 'More actions' }).click();
  }
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  const toast = page.getByRole('status').filter({ hasText: 'Image deleted' });
  const undo = await undoIn(page, 'Image deleted');
  const shownAt = Date.now();
  // F8 takes focus to Undo, which holds the toast while its contrast is checked and its picture taken (both can
  // take longer than its 6 s on a loaded machine); it leaves once focus does.
  await page.keyboard.press('F8');
  await expect(undo).toBeFocused();
  const { violations } = await new AxeBuilder({ page }).include('[data-toast-id]').withRules(['color-contrast']).analyze();
  expect(violations.flatMap((v) => v.nodes.map((n) => n.failureSummary))).toEqual([]);
  await shot(page, 'undo-toast');
  await expect(toast).toBeVisible();
  await undo.blur();
  await expect(toast).toHaveCount(0, { timeout: 10_000 });
  expect(Date.now() - shownAt).toBeGreaterThan(5_000);
  await page.reload();
  await expect(galleryCount(page)).toHaveText('2 images');
  await expect.poll(() => shownNumbers(page)).toEqual([3, 2]);
});

test("a selection's Delete says how many went, and Undo brings them all back", async ({ page }) => {
  const user = await signUp(page, newUser());
  expect((await page.request.get('/api/me')).ok()).toBeTruthy();
  await withGenerations(user, 5);
  await page.goto('/app/my-generations');
  await expect(galleryCount(page)).toHaveText('5 images');
  await page.getByRole('button', { name: 'Select' }).click();
  const boxes = page.getByRole('checkbox', { name: /^Select image/ });
  for (const i of [0, 2, 3]) await boxes.nth(i).click();
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(galleryCount(page)).toHaveText('2 images');
  await expect.poll(() => shownNumbers(page)).toEqual([4, 1]);
  const undo = await undoIn(page, '3 images deleted');
  await shot(page, 'undo-toast-selection');
  await undo.click();
  await expect(galleryCount(page)).toHaveText('5 images');
  await expect.poll(() => shownNumbers(page)).toEqual([5, 4, 3, 2, 1]);
  await page.reload();
  await expect(galleryCount(page)).toHaveText('5 images');
});

test('the avatar opens the account menu inside the window: Subscription, then Sign out', async ({ page }) => {
  await signUp(page, newUser('Dana Park'));
  await page.goto('/app/create-image');
  await expect(page.getByRole('heading', { name: 'Create Image' })).toBeVisible();
  const avatar = page.getByRole('button', { name: 'Account menu: Dana Park' }).locator('visible=true');
  await expect(avatar).toHaveCount(1);
  const open = () => (isPhone(page) ? avatar.tap() : avatar.click());
  await open();
  const menu = page.getByRole('menu');
  await expect(menu.getByRole('menuitem')).toHaveText(['Profile', /^Credits/, 'Subscription', 'Sign out']);
  const box = (await menu.boundingBox())!;
  const screenSize = page.viewportSize()!;
  expect(box.x >= 0 && box.y >= 0 && box.x + box.width <= screenSize.width && box.y + box.height <= screenSize.height).toBe(true);
  await page.screenshot({ path: test.info().outputPath(`account-menu-${isPhone(page) ? 'phone' : 'desktop'}.png`) });
  const subscription = menu.getByRole('menuitem', { name: 'Subscription' });
  await (isPhone(page) ? subscription.tap() : subscription.click());
  await expect(page).toHaveURL(/\/app\/subscription$/);
  await expect(menu).toHaveCount(0);

  await open();
  const signOut = page.getByRole('menu').getByRole('menuitem', { name: 'Sign out' });
  await (isPhone(page) ? signOut.tap() : signOut.click());
  await expect(page).toHaveURL(new RegExp(`^${ORIGIN}/$`));
  await page.goto('/app/profile');
  await expect(page).toHaveURL(/\/sign-in/);
});
