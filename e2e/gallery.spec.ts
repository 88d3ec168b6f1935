import type { Page } from '@playwright/test';
import { CONTROL, expect, isPhone, newUser, signUp, test, type TestUser } from './fixtures';

async function control<T>(path: string, body: unknown = {}): Promise<T> {
  const res = await fetch(`${CONTROL}${path}`, { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(await res.text());
  return res.json() as Promise<T>;
}

/** Gives the user `count` generations ('Gallery image 1' oldest … 'Gallery image <count>' newest). */
const withGenerations = (user: TestUser, count: number) => control<{ ids: string[] }>('/generations', { email: user.email, count });

async function signedInWith(page: Page, count: number): Promise<TestUser> {
  const user = await signUp(page, newUser());
  // The first signed-in call creates the user's record (product §4 user sync).
  expect((await page.request.get('/api/me')).ok()).toBeTruthy();
  if (count) await withGenerations(user, count);
  return user;
}

const cards = (page: Page) => page.getByTestId('generation-card');
const count = (page: Page) => page.getByTestId('gallery-count');

/** Opens the viewer of the card at `index`. */
async function openCard(page: Page, index: number) {
  // Near the top edge: on desktop the lower part of a card holds the hover overlay's prompt and actions.
  await cards(page)
    .nth(index)
    .getByRole('button', { name: /^Open image details/ })
    .click({ position: { x: 40, y: 12 } });
  return page.getByRole('dialog');
}

test.beforeEach(async ({ context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
});

test('My Generations pages through 3 pages; the page lives in the URL (reload, back)', async ({ page }) => {
  await signedInWith(page, 85);
  await page.goto('/app/my-generations');
  await expect(page.getByRole('heading', { name: 'My Generations' })).toBeVisible();
  await expect(count(page)).toHaveText('85 images');
  await expect(cards(page)).toHaveCount(40);
  await expect(cards(page).first().getByRole('img')).toHaveAttribute('alt', /^Gallery image 85:/);
  // Grid cards load WebP thumbnails, not the full image.
  await expect(cards(page).first().getByRole('img')).toHaveAttribute('src', /\/media\/thumbs\/384\/generations\//);

  const pager = page.getByRole('navigation', { name: 'Pagination' });
  if (isPhone(page)) {
    await expect(pager).toContainText('1 of 3');
    await pager.getByRole('button', { name: 'Next page' }).click();
    await expect(pager).toContainText('2 of 3');
    await pager.getByRole('button', { name: 'Next page' }).click();
    await expect(pager).toContainText('3 of 3');
    await expect(pager.getByRole('button', { name: 'Next page' })).toBeDisabled();
  } else {
    await expect(pager).toContainText('Page 1 of 3 (85 total)');
    // Three pages: every number shown, no ellipsis.
    await expect(pager.getByRole('button', { name: /^Page \d$/ })).toHaveText(['1', '2', '3']);
    await expect(pager).not.toContainText('…');
    await pager.getByRole('button', { name: 'Page 2' }).click();
    await expect(pager).toContainText('Page 2 of 3 (85 total)');
    await expect(pager.getByRole('button', { name: 'Page 2' })).toHaveAttribute('aria-current', 'page');
    await pager.getByRole('button', { name: 'Next page' }).click();
    await expect(pager).toContainText('Page 3 of 3 (85 total)');
  }
  await expect(page).toHaveURL(/\/app\/my-generations\?page=3$/);
  await expect(cards(page)).toHaveCount(5);
  await expect(cards(page).last().getByRole('img')).toHaveAttribute('alt', /^Gallery image 1:/);

  await page.reload();
  await expect(cards(page)).toHaveCount(5);
  await page.goBack();
  await expect(page).toHaveURL(/\?page=2$/);
  await expect(cards(page).first().getByRole('img')).toHaveAttribute('alt', /^Gallery image 45:/);
});

test('more than 5 pages show a window with ellipses', async ({ page }) => {
  test.skip(isPhone(page), 'phones page with prev/next only');
  await signedInWith(page, 250);
  await page.goto('/app/my-generations?page=4');
  const pager = page.getByRole('navigation', { name: 'Pagination' });
  await expect(pager).toContainText('Page 4 of 7 (250 total)');
  await expect(pager.locator('ol > li')).toHaveText(['1', '…', '3', '4', '5', '…', '7']);
  await pager.getByRole('button', { name: 'Page 7' }).click();
  await expect(pager.locator('ol > li')).toHaveText(['1', '…', '4', '5', '6', '7']);
  await expect(cards(page)).toHaveCount(10);
});

test('favourite on and off: My Generations flips in place, Favorites drops the card and the count', async ({ page }) => {
  await signedInWith(page, 3);
  await page.goto('/app/my-generations');
  await expect(cards(page)).toHaveCount(3);

  if (isPhone(page)) {
    const sheet = await openCard(page, 0);
    await sheet.getByRole('button', { name: 'Add to Favorites' }).click();
    await expect(sheet.getByRole('button', { name: 'Remove Favorite' })).toHaveAttribute('aria-pressed', 'true');
    await sheet.getByRole('button', { name: 'Back' }).click();
  } else {
    await cards(page).first().hover();
    await cards(page).first().getByRole('button', { name: 'Add to Favorites' }).click();
    await expect(cards(page).first().getByRole('button', { name: 'Remove Favorite' })).toBeVisible();
  }
  await expect(cards(page)).toHaveCount(3);
  await expect(count(page)).toHaveText('3 images');

  await page.goto('/app/favorites');
  await expect(page.getByRole('heading', { name: 'Favorites' })).toBeVisible();
  await expect(count(page)).toHaveText('1 image');
  await expect(cards(page)).toHaveCount(1);
  await expect(cards(page).getByRole('img')).toHaveAttribute('alt', /^Gallery image 3:/);

  if (isPhone(page)) {
    const sheet = await openCard(page, 0);
    // Favorites never offers Delete (product §6).
    await sheet.getByRole('button', { name: 'Image actions' }).click();
    await expect(page.getByRole('menuitem', { name: 'Delete' })).toHaveCount(0);
    await page.keyboard.press('Escape');
    await sheet.getByRole('button', { name: 'Remove Favorite' }).click();
  } else {
    await cards(page).first().hover();
    await cards(page).first().getByRole('button', { name: 'More actions' }).click();
    await expect(page.getByRole('menuitem', { name: 'Delete' })).toHaveCount(0);
    await page.getByRole('menuitem', { name: 'Remove Favorite' }).click();
  }
  await expect(cards(page)).toHaveCount(0);
  await expect(count(page)).toHaveText('0 images');
  await expect(page.getByText('No favorites yet')).toBeVisible();
  await expect(page.getByText('Add some from your generations!')).toBeVisible();
});

test('delete from the viewer removes the image from every gallery', async ({ page }) => {
  await signedInWith(page, 2);
  await page.goto('/app/my-generations');
  const viewer = await openCard(page, 0);
  await expect(viewer.getByText('Gallery image 2: a portrait in soft window light')).toBeVisible();
  if (isPhone(page)) {
    await viewer.getByRole('button', { name: 'Image actions' }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
  } else {
    await viewer.getByRole('button', { name: 'Delete' }).click();
  }
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(count(page)).toHaveText('1 image');
  await expect(cards(page)).toHaveCount(1);
  await page.reload();
  await expect(cards(page)).toHaveCount(1);
  await expect(cards(page).getByRole('img')).toHaveAttribute('alt', /^Gallery image 1:/);
});

test('the viewer shows the details; Escape closes the desktop modal and focus returns to the card', async ({ page }) => {
  await signedInWith(page, 1);
  await page.goto('/app/my-generations');
  const viewer = await openCard(page, 0);
  for (const text of ['Gallery image 1: a portrait in soft window light', '1024 × 1024', '1000', '30', '4.5', 'None']) {
    await expect(viewer.getByText(text, { exact: true })).toBeVisible();
  }
  await expect(viewer.getByText(/seconds? ago|minutes? ago|just now|now/)).toBeVisible();
  await viewer.getByRole('button', { name: 'Copy Prompt' }).click();
  await expect(viewer.getByRole('button', { name: 'Copied!' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Gallery image 1: a portrait in soft window light');
  await expect(viewer.getByRole('button', { name: 'Copy Prompt' })).toBeVisible({ timeout: 4000 });
  if (isPhone(page)) {
    await viewer.getByRole('button', { name: 'Back' }).click();
  } else {
    await page.keyboard.press('Escape');
  }
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(
    cards(page)
      .first()
      .getByRole('button', { name: /^Open image details/ }),
  ).toBeFocused();
});

test('Regenerate prefills Create Image with the prompt and settings, seed cleared', async ({ page }) => {
  await signedInWith(page, 1);
  await page.goto('/app/my-generations');
  const viewer = await openCard(page, 0);
  if (isPhone(page)) {
    await viewer.getByRole('button', { name: 'Image actions' }).click();
    await page.getByRole('menuitem', { name: 'Regenerate' }).click();
  } else {
    await viewer.getByRole('button', { name: 'Regenerate' }).click();
  }
  await expect(page).toHaveURL(/\/app\/create-image$/);
  await expect(page.getByLabel('Prompt')).toHaveValue('Gallery image 1: a portrait in soft window light');
  await expect(page.getByRole('textbox', { name: 'Seed' })).toHaveValue('');
  await expect(page.getByLabel('Width')).toHaveValue('1024');
});

test('card actions: Prompt Copied toast and downloads named likeness-<timestamp>.<ext>', async ({ page }) => {
  await signedInWith(page, 1);
  await page.goto('/app/my-generations');
  let download;
  if (isPhone(page)) {
    // No hover overlay on phones: the actions are in the viewer.
    await expect(cards(page).first().getByRole('button', { name: 'Download' })).toHaveCount(0);
    const viewer = await openCard(page, 0);
    [download] = await Promise.all([page.waitForEvent('download'), viewer.getByRole('button', { name: 'Download' }).click()]);
  } else {
    const card = cards(page).first();
    await card.hover();
    await card.getByRole('button', { name: 'More actions' }).click();
    await page.getByRole('menuitem', { name: 'Copy Prompt' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Prompt Copied' })).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'Prompt Copied' })).toHaveCount(0, { timeout: 4000 });
    await card.hover();
    [download] = await Promise.all([page.waitForEvent('download'), card.getByRole('button', { name: 'Download' }).click()]);
  }
  expect(download.suggestedFilename()).toMatch(/^likeness-\d{13}\.jpeg$/);
});

test.describe('Explore', () => {
  test.beforeAll(async () => {
    test.setTimeout(180_000);
    await control('/explore/seed');
  });

  async function openFilters(page: Page) {
    // On phones the panel starts open when the URL has filters (a shared link shows what is applied).
    const toggle = page.getByRole('button', { name: 'Filters' });
    if (isPhone(page) && (await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  }

  test('featured first, filters in the URL reset the page, Clear All', async ({ page }) => {
    await signUp(page, newUser());
    await page.goto('/app/explore');
    if (isPhone(page)) {
      await expect(page.getByRole('heading', { name: 'Explore', exact: true })).toBeVisible();
    } else {
      await expect(page.getByRole('heading', { name: 'Explore Gallery' })).toBeVisible();
      await expect(page.getByText('Discover amazing AI-generated images from our community')).toBeVisible();
    }
    const total = Number((await count(page).textContent())?.split(' ')[0]);
    expect(total).toBeGreaterThanOrEqual(48);
    // Featured items come first, each with its star badge.
    const featured = await page.request.get('/api/explore/featured').then((r) => r.json());
    const featuredCount = featured.items.length as number;
    expect(featuredCount).toBeGreaterThan(0);
    for (let i = 0; i < featuredCount; i++) await expect(cards(page).nth(i).getByText('Featured')).toHaveCount(1);
    await expect(cards(page).nth(featuredCount).getByText('Featured')).toHaveCount(0);

    // Page 2, then a filter: back to page 1 with the filter in the URL.
    if (isPhone(page)) await page.getByRole('button', { name: 'Next page' }).click();
    else await page.getByRole('button', { name: 'Page 2' }).click();
    await expect(page).toHaveURL(/page=2/);
    await openFilters(page);
    await page.getByLabel('Gender', { exact: true }).selectOption('female');
    await expect(page).toHaveURL(/\/app\/explore\?gender=female$/);
    await expect(count(page)).not.toHaveText(`${total} images`);
    const female = Number((await count(page).textContent())?.split(' ')[0]);
    expect(female).toBeLessThan(total);
    await expect(cards(page).first().getByRole('img')).toBeVisible();
    await page.getByLabel('Style', { exact: true }).selectOption('headshot');
    await expect(page).toHaveURL(/gender=female&style=headshot/);
    const filtered = await page.request.get('/api/explore?gender=female&style=headshot').then((r) => r.json());
    await expect(count(page)).toHaveText(`${filtered.total} ${filtered.total === 1 ? 'image' : 'images'}`);
    await expect(cards(page)).toHaveCount(filtered.total);

    // A shared link keeps the filters.
    await page.reload();
    await openFilters(page);
    await expect(page.getByLabel('Gender', { exact: true })).toHaveValue('female');
    await expect(cards(page)).toHaveCount(filtered.total);

    await page.getByRole('button', { name: 'Clear All' }).click();
    await expect(page).toHaveURL(/\/app\/explore$/);
    await expect(count(page)).toHaveText(`${total} images`);
    await expect(page.getByLabel('Gender', { exact: true })).toHaveValue('');
    await expect(page.getByLabel('Gender', { exact: true }).locator('option').first()).toHaveText('All Genders');
  });

  test("the hover prompt and its tooltip never run over a card's Featured badge, at any card width", async ({ page }) => {
    await signUp(page, newUser());
    await page.goto('/app/explore');
    const card = cards(page).first();
    const badge = card.getByTestId('featured-badge');
    await expect(badge).toBeVisible();
    const box = async (locator: ReturnType<Page['locator']>) => (await locator.boundingBox())!;
    const apart = (a: { y: number; height: number }, b: { y: number; height: number }) => a.y + a.height <= b.y || b.y + b.height <= a.y;
    if (isPhone(page)) {
      // No hover layer on phones: the badge is the star alone, inside its card, clear of the card's other marks.
      await expect(card.getByTestId('explore-prompt')).toHaveCount(0);
      const [b, c] = [await box(badge), await box(card)];
      expect(b.x >= c.x && b.y >= c.y && b.x + b.width <= c.x + c.width && b.y + b.height <= c.y + c.height).toBe(true);
      return;
    }
    // Four columns from 768px: the card is 148px wide there, 276px at 1280px.
    for (const width of [800, 1024, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      await card.hover({ position: { x: 4, y: 4 } });
      const prompt = card.getByTestId('explore-prompt');
      await expect(prompt).toBeVisible();
      expect(apart(await box(badge), await box(prompt)), `prompt at ${width}px`).toBe(true);
      await prompt.hover();
      const tooltip = page.getByTestId('prompt-tooltip');
      await expect(tooltip).toBeVisible();
      expect(apart(await box(badge), await box(tooltip)), `tooltip at ${width}px`).toBe(true);
      // The actions keep their names when the card is too narrow for their labels.
      await expect(card.getByRole('button', { name: 'Copy Image URL' })).toBeVisible();
      await page.keyboard.press('Escape');
      await expect(tooltip).toBeHidden();
    }
  });

  test('no match shows the empty state; hover shows the prompt and actions; downloads by name', async ({ page }) => {
    await signUp(page, newUser());
    // Find a combination no starter item has.
    const options = await page.request.get('/api/explore/filters').then((r) => r.json());
    let empty = '';
    for (const gender of options.gender) {
      for (const style of options.style) {
        for (const hair of options.hair_color) {
          const q = `gender=${gender}&style=${style}&hair_color=${hair}`;
          if (!empty && (await page.request.get(`/api/explore?${q}`).then((r) => r.json())).total === 0) empty = q;
        }
        if (empty) break;
      }
      if (empty) break;
    }
    expect(empty).not.toBe('');
    await page.goto(`/app/explore?${empty}`);
    await expect(page.getByText('No images found')).toBeVisible();
    await expect(page.getByText('Try adjusting your filters')).toBeVisible();

    await page.goto('/app/explore');
    const card = cards(page).first();
    if (isPhone(page)) {
      await expect(card.getByRole('button', { name: 'Copy Prompt' })).toHaveCount(0);
      const viewer = await openCard(page, 0);
      await expect(viewer.getByRole('button', { name: /Favorite/ })).toHaveCount(0);
      await viewer.getByRole('button', { name: 'Image actions' }).click();
      await expect(page.getByRole('menuitem', { name: 'Delete' })).toHaveCount(0);
      await page.keyboard.press('Escape');
      const [download] = await Promise.all([page.waitForEvent('download'), viewer.getByRole('button', { name: 'Download' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^likeness-\d{13}\.jpeg$/);
    } else {
      await card.hover();
      await expect(card.getByRole('button', { name: 'Copy Image URL' })).toBeVisible();
      await expect(card.getByRole('button', { name: 'Regenerate' })).toBeVisible();
      await expect(card.getByRole('button', { name: /favorite/i })).toHaveCount(0);
      await card.getByRole('button', { name: 'Copy Prompt' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Prompt Copied' })).toBeVisible();
      const prompt = await page.evaluate(() => navigator.clipboard.readText());
      await card.getByText(prompt.slice(0, 40)).hover();
      await expect(page.getByRole('tooltip')).toContainText(prompt);
      await card.getByRole('button', { name: 'Copy Image URL' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/media\/explore\//);
      const viewer = await openCard(page, 0);
      await expect(viewer.getByRole('button', { name: 'Delete' })).toHaveCount(0);
      const [download] = await Promise.all([page.waitForEvent('download'), viewer.getByRole('button', { name: 'Download' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^likeness-\d{13}\.jpeg$/);
      await viewer.getByRole('button', { name: 'Regenerate' }).click();
      await expect(page).toHaveURL(/\/app\/create-image$/);
      await expect(page.getByLabel('Prompt')).toHaveValue(prompt);
      await expect(page.getByRole('textbox', { name: 'Seed' })).toHaveValue('');
    }
  });
});
