import type { APIRequestContext, Page } from '@playwright/test';
import { trainingPhotos } from './support/training-photos';
import { expect, isPhone, linkIn, mailTo, newUser, ORIGIN, signUp, test, type TestUser } from './fixtures';

/** The app's section through the sidebar (desktop) or the top bar's menu (phone). */
async function openSection(page: Page, label: string) {
  if (isPhone(page)) {
    await page.getByRole('button', { name: 'Open menu' }).click();
    await page.getByRole('menuitem', { name: label }).click();
  } else {
    await page.getByTestId('sidebar').getByRole('link', { name: label }).click();
  }
}

/**
 * An account for someone whose first mail is their invite (the confirmation is the second), made and confirmed
 * outside the browser, which stays signed out.
 */
async function accountFor(request: APIRequestContext, user: TestUser) {
  const res = await request.post('/api/auth/sign-up/email', { data: user, headers: { origin: ORIGIN } });
  expect(res.ok()).toBeTruthy();
  const confirmation = (await mailTo(user.email, 2)).find((m) => m.text.includes('/api/auth/verify-email'))!;
  const opened = await request.get(linkIn(confirmation, '/api/auth/verify-email'), { maxRedirects: 0 });
  expect(opened.status()).toBe(302);
}

/** The space switcher on screen: at the top of the sidebar (desktop) or under the top bar (phone). */
const switcher = (page: Page) => page.getByTestId('space-switcher').filter({ visible: true });

/** Switches the active space through the switcher and waits for the switcher to say so. */
async function switchSpace(page: Page, name: string) {
  await switcher(page).click({ timeout: 20_000 });
  await page.getByRole('menu').getByRole('menuitem', { name, exact: true }).click({ timeout: 20_000 });
  await expect(switcher(page)).toHaveAccessibleName(`Space: ${name}. Switch space`);
}

/** The balance the shell shows (the sidebar's link on desktop, the top bar's pill on phones). */
const balance = (page: Page, credits: string) =>
  page.getByRole('link', { name: `${credits} Credits`, exact: true }).filter({ visible: true });

// Issue 49's scenario, end to end on both sizes.
test('an owner buys team credits, invites three by CSV, two join through their mail, one trains and shoots in the team look on the team’s credits and submits; the owner approves, downloads all, reminds and removes one', async ({
  page,
  browser,
  playwright,
}) => {
  test.setTimeout(600_000);
  await signUp(page, newUser('Olga Owner'));
  await page.goto('/app/create-image');
  // Nobody in a team: no switcher, only the personal space.
  await expect(page.getByTestId('space-switcher')).toHaveCount(0);
  await openSection(page, 'Teams');
  await expect(page.getByRole('heading', { name: 'Teams' })).toBeVisible();
  await page.getByLabel('New team').fill('Acme Inc.');
  await page.getByRole('button', { name: 'Create team' }).click();
  await expect(page.getByRole('heading', { name: 'Acme Inc.' })).toBeVisible();
  const teamUrl = page.url();

  // Team credits through the sandbox's checkout: back on the team page, the team has them, the owner none.
  await page.getByRole('button', { name: 'Buy 1,500 credits for the team ($24)' }).click();
  await expect(page.getByRole('heading', { name: 'Buy 1,500 credits' })).toBeVisible();
  await page.getByRole('button', { name: 'Pay' }).click();
  await expect(page.getByRole('heading', { name: 'Acme Inc.' })).toBeVisible();
  await expect(page.getByTestId('team-balance')).toHaveText('1,500 credits');
  // The switcher: Personal is active (the owner's own 0 credits); the team's space shows the team's balance.
  await expect(switcher(page)).toHaveAccessibleName('Space: Personal. Switch space');
  await expect(balance(page, '0')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('team-page-personal-space.png'), fullPage: true });
  await switchSpace(page, 'Acme Inc.');
  await expect(balance(page, '1,500')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('team-space.png') });
  await switchSpace(page, 'Personal');
  await expect(balance(page, '0')).toBeVisible();

  // The team look: a catalogue pack in 1:1.
  const look = page.getByRole('region', { name: 'Team look' });
  await look.getByRole('combobox', { name: 'Pack' }).selectOption('linkedin-profile');
  await look.getByRole('combobox', { name: 'Aspect ratio' }).selectOption('1:1');
  await look.getByRole('button', { name: 'Save the look' }).click();
  await expect(page.getByText('look: ', { exact: false }).first()).toContainText('(1:1)');

  const [jane, sam, lee] = [newUser('Jane Doe'), newUser('Sam Roe'), newUser('Lee Kim')];
  const csv = [
    'email,name,title',
    `${jane.email},Jane Doe,Designer`,
    'not-an-address,,',
    `${sam.email},Sam Roe,`,
    `${jane.email},,`,
    `${lee.email},Lee Kim,`,
  ].join('\n');
  await page.getByLabel('E-mail addresses, or a CSV with email, name and title').fill(csv);
  await page.getByRole('button', { name: 'Check the list' }).click();
  const report = page.getByRole('table');
  await expect(report.getByRole('row')).toHaveCount(6);
  await expect(report).toContainText('Not an e-mail address');
  await expect(report).toContainText('Appears earlier in the list');
  await page.getByRole('button', { name: 'Send 3 invites' }).click();
  await expect(page.getByText('3 invites sent.')).toBeVisible();
  const members = page.getByRole('region', { name: 'Members' });
  await expect(members.getByRole('button', { name: /^Invited 3/ })).toBeVisible();

  // Two accept through the links in their mail: the welcome page first, then an account, then back to the team.
  const joined: Page[] = [];
  for (const person of [jane, sam]) {
    const context = await browser.newContext({ viewport: page.viewportSize() ?? undefined });
    const other = await context.newPage();
    const [invite] = await mailTo(person.email);
    expect(invite.subject).toBe('Acme Inc. invites you to get your headshot');
    await other.goto(linkIn(invite, '/join/'));
    await expect(other.getByRole('heading', { name: 'Join Acme Inc.' })).toBeVisible();
    // Joining needs an account: signed out, 'Join' leads to sign-in, and back to the team once signed in.
    const api = await playwright.request.newContext({ baseURL: ORIGIN });
    await accountFor(api, person);
    await api.dispose();
    await other.getByRole('button', { name: 'Join Acme Inc.' }).click();
    await expect(other.getByRole('heading', { name: 'Welcome back' })).toBeVisible();
    await other.getByLabel('Email address').fill(person.email);
    await other.getByLabel('Password').fill(person.password);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await expect(other.getByRole('heading', { name: 'Acme Inc.' })).toBeVisible();
    await expect(other.getByRole('region', { name: 'Your team headshot' })).toContainText('Joined');
    // The link works once.
    await other.goto(linkIn(invite, '/join/'));
    await expect(other.getByText('This invite link has already been used.', { exact: false })).toBeVisible();
    joined.push(other);
  }
  await joined[1].context().close();

  // Jane's way: 'Upload photos' takes her into the team's space, where the team's balance pays for the training.
  const j = joined[0];
  await j.goto(teamUrl);
  await j.getByRole('link', { name: 'Upload photos' }).click();
  await expect(j.getByRole('heading', { name: 'Character Training' })).toBeVisible();
  await expect(switcher(j)).toHaveAccessibleName('Space: Acme Inc.. Switch space');
  await expect(balance(j, '1,500')).toBeVisible();
  await j.getByLabel('Character name').fill('Jane');
  await j.locator('input[type=file]').setInputFiles(await trainingPhotos(4));
  await j.getByRole('button', { name: 'Start Training' }).click();
  await expect(balance(j, '1,000')).toBeVisible({ timeout: 60_000 });
  await expect(j.getByTestId('training-row').first().getByText('Completed', { exact: true })).toBeVisible({ timeout: 60_000 });
  await j.screenshot({ path: test.info().outputPath('member-training-team-space.png') });
  // Her personal space holds none of it.
  await switchSpace(j, 'Personal');
  await expect(j.getByText('No trainings yet')).toBeVisible();
  await expect(balance(j, '0')).toBeVisible();

  // The team shoot in the team look, then up to 3 favourites and 'Submit to team'.
  await j.goto(teamUrl);
  const way = j.getByRole('region', { name: 'Your team headshot' });
  await way.getByRole('button', { name: 'Start the team shoot' }).click();
  await expect(way.getByRole('button', { name: 'Team shoot photo' }).first()).toBeVisible({ timeout: 180_000 });
  await expect(way).toContainText('To pick', { timeout: 180_000 });
  const photos = way.getByRole('button', { name: 'Team shoot photo' });
  for (const i of [0, 1]) await photos.nth(i).click();
  await way.getByRole('button', { name: 'Submit to team' }).click();
  await expect(j.getByText('Submitted to the team.')).toBeVisible();
  await expect(way).toContainText('Submitted');
  await j.context().close();

  // The owner: Jane's picks to approve, the ZIP named by person, a reminder for those not done, and a removal.
  await page.reload();
  await expect(members.getByRole('button', { name: /^Submitted 1/ })).toBeVisible();
  await members.getByRole('listitem').filter({ hasText: 'Jane Doe' }).getByRole('button', { name: 'Approve' }).click();
  await expect(members.getByRole('button', { name: /^Approved 1/ })).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent('download'), members.getByRole('button', { name: 'Download all' }).click()]);
  expect(download.suggestedFilename()).toBe('acme-inc-headshots.zip');
  await page.screenshot({ path: test.info().outputPath('team-dashboard.png'), fullPage: true });

  await members.getByRole('button', { name: 'Remind' }).click();
  // Jane is done; Sam (joined, no photos) is mailed; Lee never joined.
  await expect(page.getByText('Reminded 1 person.')).toBeVisible();
  const reminder = (await mailTo(sam.email, 3)).at(-1)!;
  expect(reminder.subject).toContain('Acme Inc.');
  expect(reminder.subject).not.toContain('invites you');

  page.once('dialog', (d) => void d.accept());
  await members.getByRole('listitem').filter({ hasText: 'Sam Roe' }).getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByText('Sam Roe removed.')).toBeVisible();
  await expect(members.getByRole('listitem').filter({ hasText: 'Sam Roe' })).toHaveCount(0);
});
