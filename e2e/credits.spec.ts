import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { expect, isPhone, linkIn, mailTo, newUser, signUp, test, withCredits, withPromoCode, withSlowPhotos } from './fixtures';
import { startTraining, trainingPhotos } from './support/training-photos';

/**
 * The credits page (issue 50), desktop and phone: a plan bought in the sandbox, an image generated and upscaled,
 * a pack topped up through the sandbox's one-time checkout, a promo code redeemed; a character trained and a photo
 * shoot run and cancelled; all of it read back in the history with the links to what it was for, the spend by kind
 * and the chart's table, and in the CSV.
 */

/** The balance as the app shell shows it (sidebar on desktop, top bar on phones). */
const shell = (page: Page) => (isPhone(page) ? page.getByRole('banner') : page.getByTestId('sidebar'));
const historyRows = (page: Page) => page.getByTestId('credit-history').locator('tbody tr');
const today = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' }).format(new Date());

async function shot(page: Page, name: string) {
  await page.screenshot({ path: test.info().outputPath(`${name}-${isPhone(page) ? 'phone' : 'desktop'}.png`), fullPage: true });
}

test('buy a plan, generate, upscale, top up, redeem a code, and read it all on the credits page', async ({ page }) => {
  test.setTimeout(180_000);
  await signUp(page, newUser('Robin Vale'));

  // A plan through the sandbox checkout: 1,500 credits.
  await page.goto('/app/subscription');
  await page.getByTestId('plan-BASIC').getByRole('button', { name: 'Choose plan' }).click();
  await expect(page).toHaveURL(/\/sandbox\/checkout\//);
  await page.getByRole('button', { name: 'Pay' }).click();
  await expect(page.getByTestId('balance')).toHaveText('1,500 credits available');

  // Generate (10 credits), then upscale it 2× (5 credits).
  await page.goto('/app/create-image');
  const prompt = 'A red bicycle against a blue wall';
  await page.getByLabel('Prompt').fill(prompt);
  await page.getByRole('button', { name: 'Generate', exact: true }).click();
  await expect(page.getByRole('img', { name: prompt })).toBeVisible({ timeout: 30_000 });
  await expect(shell(page).getByText('1,490 Credits', { exact: true })).toBeAttached();
  await page.goto('/app/my-generations');
  await page
    .getByRole('list', { name: 'My Generations' })
    .getByRole('listitem')
    .first()
    .getByRole('button', { name: /Open image details/ })
    .click();
  const viewer = page.getByRole('dialog');
  await viewer.getByRole('button', { name: /Upscale 2×/ }).click();
  await expect(viewer.getByText('Upscaled 2× — added to My Generations.')).toBeVisible({ timeout: 30_000 });
  if (isPhone(page)) await viewer.getByRole('button', { name: 'Back' }).click();
  else await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);

  // The balance in the shell leads to the credits page.
  await shell(page).getByRole('link', { name: '1,485 Credits' }).click();
  await expect(page).toHaveURL(/\/app\/credits$/);
  // The desktop sidebar opens over the page while the pointer rests on it.
  await page.mouse.move(900, 400);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Credits');
  await expect(page.getByTestId('balance')).toHaveText('1,485 credits available');

  // A pack through the sandbox's one-time checkout: back on the page, credited once.
  await page.getByRole('button', { name: 'Buy 500 credits for $9' }).click();
  await expect(page).toHaveURL(/\/sandbox\/top-up\//);
  await expect(page.getByRole('heading', { name: 'Buy 500 credits' })).toBeVisible();
  await page.getByRole('button', { name: 'Pay' }).click();
  await expect(page.getByText('500 credits are in your balance.')).toBeVisible();
  await expect(page).toHaveURL(/\/app\/credits$/);
  await expect(page.getByTestId('balance')).toHaveText('1,985 credits available');

  // A promo code, typed with spaces and in lower case; a second try is refused with the server's message.
  const code = await withPromoCode(`E2E-${randomUUID().slice(0, 6)}`, 250);
  const field = page.getByLabel('Code');
  await field.fill(` ${code.toLowerCase()} `);
  await page.getByRole('button', { name: 'Redeem' }).click();
  await expect(page.getByText('250 credits added. Your balance is 2,235.')).toBeVisible();
  await expect(page.getByTestId('balance')).toHaveText('2,235 credits available');
  await field.fill(code);
  await page.getByRole('button', { name: 'Redeem' }).click();
  await expect(page.getByText('You have already redeemed this promo code.')).toBeVisible();

  // The history, newest first: what, amount and balance after, with links to the images.
  await expect(historyRows(page)).toHaveCount(5);
  const expected = [
    ['Promo', '+250', '2,235'],
    ['Top-up', '+500', '1,985'],
    ['Upscale', '−5', '1,485'],
    ['Generation', '−10', '1,490'],
    ['Plan grant', '+1,500', '1,500'],
  ];
  for (const [i, [what, amount, after]] of expected.entries()) {
    const row = historyRows(page).nth(i);
    await expect(row).toContainText(what);
    await expect(row).toContainText(amount);
    await expect(row).toContainText(after);
  }
  await expect(historyRows(page).nth(2).getByRole('link', { name: 'Image' })).toHaveAttribute('href', /\/app\/my-generations\?image=/);
  await expect(historyRows(page).nth(3).getByRole('link', { name: 'Image' })).toHaveAttribute('href', /\/app\/my-generations\?image=/);

  // This period's spend by kind, and today's spend in the chart's table.
  const byKind = page.getByRole('region', { name: /This period, since/ });
  await expect(byKind.getByText('Generation').locator('+ dd')).toHaveText('10');
  await expect(byKind.getByText('Upscale').locator('+ dd')).toHaveText('5');
  await expect(page.getByTestId('spend-chart').locator('svg .recharts-bar-rectangle path')).toHaveCount(1);
  await shot(page, 'credits');
  await page.getByRole('button', { name: 'Show table' }).click();
  const perDay = page.getByRole('table', { name: 'Credits spent per day, last 30 days' });
  await expect(perDay).toBeVisible();
  await expect(perDay.getByRole('row', { name: today })).toContainText('15');
  await page.getByRole('button', { name: '90 days' }).click();
  await expect(page.getByRole('table', { name: 'Credits spent per day, last 90 days' }).getByRole('row')).toHaveCount(91);

  // Filter by kind, and the CSV of that selection.
  await page.getByLabel('Kind').selectOption('Top-up');
  await expect(historyRows(page)).toHaveCount(1);
  await expect(historyRows(page).first()).toContainText('Top-up: 500 credits');
  await page.getByLabel('Kind').selectOption('All kinds');
  await expect(historyRows(page)).toHaveCount(5);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^Likeness-credits-all-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync(await download.path(), 'utf8')
    .trim()
    .split('\r\n');
  expect(csv[0]).toBe('Date (UTC),Kind,Description,Amount,Balance after,Link');
  expect(csv.slice(1).map((l) => l.split(',').slice(1, 2)[0])).toEqual(['Promo', 'Top-up', 'Upscale', 'Generation', 'Plan grant']);
  expect(csv[1]).toContain(',250,2235,');
  expect(csv[3]).toMatch(/,-5,1485,image:[0-9a-f-]{36}$/);
});

test('a character and a photo shoot: their lines in the history link to them, and the CSV names them', async ({ page }) => {
  test.setTimeout(240_000);
  const user = await signUp(page, newUser('Kit Moreno'));
  await page.goto('/app/character-training');
  await expect(page.getByRole('heading', { name: 'Character Training' })).toBeVisible();
  await withCredits(user, 620);
  await expect(shell(page).getByText('620 Credits', { exact: true })).toBeAttached();

  // A character trained with the built-in trainer (500 credits).
  await page.getByLabel('Character name').fill('Kit');
  await page.locator('input[type=file]').setInputFiles(await trainingPhotos(4));
  await startTraining(page);
  await expect(page.getByTestId('training-row').first().getByText('Completed', { exact: true })).toBeVisible({ timeout: 120_000 });

  // A shoot of the largest pack (12 photos, 120 credits), its photos slow enough that it is still under way when it
  // is cancelled: the photos not yet taken come back as one refund.
  await withSlowPhotos(user, 4_000);
  await page.goto('/app/photo-shoots');
  // Off the desktop sidebar, which opens over the first card while the pointer rests on it.
  await page.mouse.move(900, 400);
  await page.getByRole('button', { name: 'Corporate Headshot' }).click();
  await page.getByRole('button', { name: /Start shoot/ }).click();
  await expect(page).toHaveURL(/\/app\/photo-shoots\/[0-9a-f-]{36}$/);
  const shootPath = new URL(page.url()).pathname;
  const shootId = shootPath.split('/').pop()!;
  await expect(page.getByTestId('shoot-tile')).toHaveCount(12);
  await page.getByRole('button', { name: 'Cancel shoot' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel shoot' }).click();
  await expect(page.getByText('Shoot cancelled')).toBeVisible();
  const cancelled = await page.locator('[data-testid=shoot-tile][data-status=cancelled]').count();
  expect(cancelled).toBeGreaterThan(0);
  const balance = 620 - 500 - 120 + cancelled * 10;
  await expect(shell(page).getByText(`${balance} Credits`, { exact: true })).toBeAttached();

  // The history: the refund and the debit link to the shoot, the training to the character.
  await page.goto('/app/credits');
  await expect(historyRows(page)).toHaveCount(4);
  const expected = [
    ['Refund', `+${cancelled * 10}`, `Refund: photo shoot Corporate Headshot cancelled (${cancelled} photos not taken)`],
    ['Shoot photos', '−120', 'Photo shoot: Corporate Headshot (12 photos)'],
    ['Training', '−500', 'character training: Kit'],
    ['Adjustment', '+620', 'e2e fixture'],
  ];
  for (const [i, [what, amount, reason]] of expected.entries()) {
    const row = historyRows(page).nth(i);
    await expect(row).toContainText(what);
    await expect(row).toContainText(amount);
    await expect(row).toContainText(reason);
  }
  for (const i of [0, 1]) await expect(historyRows(page).nth(i).getByRole('link', { name: 'Shoot' })).toHaveAttribute('href', shootPath);
  const character = historyRows(page).nth(2).getByRole('link', { name: 'Character' });
  await expect(character).toHaveAttribute('href', /^\/app\/character-training\?character=[0-9a-f-]{36}$/);
  const characterId = new URLSearchParams((await character.getAttribute('href'))!.split('?')[1]).get('character');
  await expect(historyRows(page).nth(3).getByRole('link')).toHaveCount(0);
  await shot(page, 'credits-shoot');

  // The shoot's own kind, and its link back to the shoot.
  await page.getByLabel('Kind').selectOption('Shoot photos');
  await expect(historyRows(page)).toHaveCount(1);
  await historyRows(page).first().getByRole('link', { name: 'Shoot' }).click();
  await expect(page).toHaveURL(new RegExp(`${shootPath}$`));
  await expect(page.getByText('Shoot cancelled')).toBeVisible();

  // The CSV of every line names what each was for.
  await page.goto('/app/credits');
  await expect(historyRows(page)).toHaveCount(4);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^Likeness-credits-all-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync(await download.path(), 'utf8')
    .trim()
    .split('\r\n');
  expect(csv[0]).toBe('Date (UTC),Kind,Description,Amount,Balance after,Link');
  expect(csv.slice(1).map((l) => l.split(',')[1])).toEqual(['Refund', 'Shoot photos', 'Training', 'Adjustment']);
  expect(csv[1]).toMatch(new RegExp(`,${cancelled * 10},${balance},shoot:${shootId}$`));
  expect(csv[2]).toMatch(new RegExp(`,-120,${balance - cancelled * 10},shoot:${shootId}$`));
  expect(csv[3]).toMatch(new RegExp(`,-500,120,character:${characterId}$`));
  expect(csv[4]).toMatch(/,620,620,$/);
});

test('low balance: a notice with Top up, and one mail; the menus and the profile lead to the credits page', async ({ page }) => {
  const user = await signUp(page, newUser('Sam Reed'));
  // A generation that leaves less than it cost: the notice on every page (but the credits page), and one mail.
  await page.goto('/app/create-image');
  await expect(page.getByText('Insufficient Credits')).toBeVisible();
  await withCredits(user, 15);
  await expect(page.getByText('Insufficient Credits')).toBeHidden();
  await page.getByLabel('Prompt').fill('A paper boat on a pond');
  await page.getByRole('button', { name: 'Generate', exact: true }).click();
  await expect(page.getByText('Insufficient Credits')).toBeVisible({ timeout: 30_000 });
  await page.goto('/app/explore');
  const notice = page.getByRole('status').filter({ hasText: 'Your balance is low' });
  await expect(notice).toContainText('You have 5 credits left, not enough for another image (10 credits).');
  await expect(notice.getByRole('link', { name: 'Upgrade Plan' })).toHaveAttribute('href', '/app/subscription');
  await shot(page, 'low-balance');
  await notice.getByRole('link', { name: 'Top up' }).click();
  await expect(page).toHaveURL(/\/app\/credits$/);
  await expect(page.getByText('Your balance is low')).toHaveCount(0);
  const mail = (await mailTo(user.email, 2)).filter((m) => m.subject.includes('balance is low'));
  expect(mail.map((m) => m.subject)).toEqual(['Your Likeness balance is low: 5 credits left']);
  expect(linkIn(mail[0], '/app/credits')).toBeTruthy();

  await page.goto('/app/profile');
  await page.getByRole('link', { name: 'Credit History' }).click();
  await expect(page).toHaveURL(/\/app\/credits$/);
  await expect(historyRows(page)).toHaveCount(2);
  await page.goto('/app/explore');
  const avatar = isPhone(page) ? page.getByRole('banner') : page.getByTestId('sidebar');
  await avatar.getByRole('button', { name: /^Account menu/ }).click();
  await page.getByRole('menuitem', { name: /^Credits/ }).click();
  await expect(page).toHaveURL(/\/app\/credits$/);
  if (isPhone(page)) {
    // The phone menu's balance is the spec's link to /app/subscription (product §2); the bar's balance leads here.
    await page.goto('/app/explore');
    await page.getByRole('banner').getByRole('link', { name: '5 Credits' }).click();
    await expect(page).toHaveURL(/\/app\/credits$/);
  }
});
