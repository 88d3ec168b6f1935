import { expect, isPhone, linkIn, mailTo, newUser, signUp, signUpThroughForm, test, withCredits } from './fixtures';
import { keptAliveAfter } from './support/kept-alive';

test("sign up through the form: 'Check your e-mail to continue', and the mailed link lands on Create Image with 0 credits", async ({
  page,
}) => {
  const user = newUser('Avery Stone');
  await page.goto('/sign-up');
  await signUpThroughForm(page, user);
  await expect(page.getByText(user.email)).toBeVisible();
  await page.screenshot({ path: `/tmp/i47-check-email-${test.info().project.name}.png` });
  // Nobody is signed in yet.
  await page.goto('/app/create-image');
  await expect(page).toHaveURL(/\/sign-in$/);

  const [confirmation] = await mailTo(user.email);
  expect(confirmation.subject).toBe('Confirm your e-mail address');
  await page.goto(linkIn(confirmation, '/api/auth/verify-email'));
  await expect(page).toHaveURL(/\/app\/create-image$/);
  const shell = isPhone(page) ? page.getByRole('banner') : page.getByTestId('sidebar');
  if (!isPhone(page)) await shell.hover();
  await expect(shell.getByText('0 Credits')).toBeVisible();
});

test('sign-up with a taken address answers the same, signs nobody in, and mails the owner a way back in', async ({ page }) => {
  const owner = await signUp(page);
  await page.context().clearCookies();
  await page.goto('/sign-up');
  await signUpThroughForm(page, { name: 'Someone Else', email: owner.email, password: 'another-strong-pass-77' });
  await page.goto('/app/create-image');
  await expect(page).toHaveURL(/\/sign-in$/);
  const notice = (await mailTo(owner.email, 2)).find((m) => m.subject === 'Someone tried to sign up with your address')!;
  await page.goto(linkIn(notice, '/forgot-password'));
  await expect(page.getByRole('heading', { name: 'Forgot password?' })).toBeVisible();
});

test('sign-up refuses an easily guessed password under the field, then takes a strong one', async ({ page }) => {
  const user = newUser('Maria Lopez');
  await page.goto('/sign-up');
  await page.getByLabel('Full name').fill(user.name);
  await page.getByLabel('Email address').fill(user.email);
  const password = page.getByLabel('Password');
  await password.fill('password');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(
    page.getByText('This password is too easy to guess: it is one of the ten most common passwords.', { exact: false }),
  ).toBeVisible();
  await expect(password).toHaveAttribute('aria-invalid', 'true');
  await password.fill('marialopez7');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByText('it contains your name or e-mail address', { exact: false })).toBeVisible();
  await expect(page).toHaveURL(/\/sign-up$/);
  await password.fill(user.password);
  await expect(page.getByText('too easy to guess', { exact: false })).toHaveCount(0);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByRole('heading', { name: 'Check your e-mail to continue' })).toBeVisible();
});

test('a signed-out visit to a deep /app link goes to /sign-in; signing in lands back on that link', async ({ page }) => {
  const user = newUser();
  await signUp(page, user);
  await page.context().clearCookies();
  await page.goto('/app/explore?page=1');
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fapp%2Fexplore%3Fpage%3D1$/);
  await page.getByLabel('Email address').fill(user.email);
  await page.getByLabel('Password').fill('wrong-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('Incorrect email or password');
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/app\/explore\?page=1$/);
  await expect(page.getByRole('heading', { name: /Explore/ }).first()).toBeVisible();
});

test('the deep link survives a detour to sign-up; a link off the site is ignored', async ({ page }) => {
  await page.goto('/app/profile');
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fapp%2Fprofile$/);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await expect(page).toHaveURL(/\/sign-up\?next=%2Fapp%2Fprofile$/);
  const user = newUser();
  await signUpThroughForm(page, user);
  // The mailed link signs in and leads on to the page the visitor came from.
  await page.goto(linkIn((await mailTo(user.email))[0], '/api/auth/verify-email'));
  await expect(page).toHaveURL(/\/app\/profile$/);

  await page.context().clearCookies();
  await page.goto(`/sign-in?next=${encodeURIComponent('//evil.example/app/x')}`);
  await page.getByLabel('Email address').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/app\/create-image$/);
});

test('sign-in and sign-up accept any sub-path', async ({ page }) => {
  await page.goto('/sign-in/factor-one');
  await expect(page.getByRole('heading', { name: 'Welcome back' })).toBeVisible();
  await page.goto('/sign-up/verify-email-address');
  await expect(page.getByRole('heading', { name: 'Create your account' })).toBeVisible();
});

test('sign out returns to the home page signed out', async ({ page }) => {
  await signUp(page);
  await page.goto('/');
  const header = page.locator('header').first();
  const menu = header.getByRole('button', { name: /open menu/i });
  if (isPhone(page) && (await menu.isVisible())) await menu.click();
  await page.getByRole('button', { name: 'Sign out' }).first().click();
  await expect(page).toHaveURL(/\/$/);
  // Signed out: the home page's hero now leads to sign-up.
  await expect(page.getByRole('link', { name: /Try Now/ }).first()).toHaveAttribute('href', '/sign-up');
  await page.goto('/app/create-image');
  await expect(page).toHaveURL(/\/sign-in$/);
});

const REDIRECTS: Array<[string, RegExp]> = [
  ['/create-image', /\/app\/create-image$/],
  ['/ai-videos', /\/app\/ai-videos$/],
  ['/my-generations', /\/app\/my-generations$/],
  ['/explore', /\/app\/explore$/],
  ['/favorites', /\/app\/favorites$/],
  ['/character-training', /\/app\/character-training$/],
  ['/app', /\/app\/create-image$/],
  ['/terms', /\/terms-of-service$/],
  ['/privacy', /\/privacy-policy$/],
];

test('every redirect of the spec', async ({ page }) => {
  await signUp(page);
  for (const [from, to] of REDIRECTS) {
    await page.goto(from);
    await expect(page, `${from} redirects`).toHaveURL(to);
  }
  await page.goto('/ai-videos');
  await expect(page.getByRole('heading', { name: 'AI Video Generator' })).toBeVisible();
  await expect(page.getByText('Coming soon...')).toBeVisible();
});

test('an unknown path shows a friendly not-found page with a way home', async ({ page }) => {
  for (const path of ['/signup', '/login', '/about']) {
    await page.goto(path);
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  }
  await page.getByRole('link', { name: 'Back to home' }).click();
  await expect(page).toHaveURL(/\/$/);
});

test('navigation: sidebar opens on hover on desktop, the drop-down menu works on phones', async ({ page }) => {
  const user = await signUp(page, newUser('Robin Vale'));
  await page.goto('/app/create-image');
  if (isPhone(page)) {
    await expect(page.getByTestId('sidebar')).toBeHidden();
    await page.getByRole('button', { name: 'Open menu' }).click();
    await page.getByRole('menuitem', { name: 'Explore' }).click();
    await expect(page).toHaveURL(/\/app\/explore$/);
    await page.getByRole('button', { name: 'Open menu' }).click();
    await expect(page.getByRole('menuitem', { name: 'Robin Vale' })).toBeVisible();
    await page.getByRole('menuitem', { name: '0 Credits' }).click();
    await expect(page).toHaveURL(/\/app\/subscription$/);
  } else {
    const sidebar = page.getByTestId('sidebar');
    await expect(sidebar).toHaveAttribute('data-open', 'false');
    expect((await sidebar.boundingBox())!.width).toBeCloseTo(64, 0);
    await sidebar.hover();
    await expect(sidebar).toHaveAttribute('data-open', 'true');
    await expect.poll(async () => Math.round((await sidebar.boundingBox())!.width)).toBe(240);
    await expect(sidebar.getByText('Robin Vale')).toBeVisible();
    await sidebar.getByRole('link', { name: 'My Generations' }).click();
    await expect(page).toHaveURL(/\/app\/my-generations$/);
    await page.mouse.move(900, 400);
    await expect(sidebar).toHaveAttribute('data-open', 'false');
  }
  expect(user.email).toContain('@');
});

test('a credit change made on the server shows in the shell without a reload, in sight with the sidebar closed', async ({ page }) => {
  const user = await signUp(page);
  await page.goto('/app/create-image');
  await expect(page.getByText('0 Credits').first()).toBeAttached();
  await withCredits(user, 1500);
  await expect(page.getByText('1,500 Credits').first()).toBeAttached();
  if (isPhone(page)) {
    await expect(page.getByRole('banner').getByRole('link', { name: '1,500 Credits' })).toBeVisible();
    return;
  }
  // Closed: "1.5k" under the coin, the full value in the tooltip and the link's name.
  const sidebar = page.getByTestId('sidebar');
  await expect(sidebar).toHaveAttribute('data-open', 'false');
  const balance = sidebar.getByRole('link', { name: '1,500 Credits' });
  const compact = balance.getByTestId('sidebar-credits-compact');
  await expect(compact).toHaveText('1.5k');
  await expect(compact).toBeInViewport();
  await expect(compact).toHaveCSS('opacity', '1');
  await expect(balance).toHaveAttribute('title', '1,500 Credits');
  // Open: '{n} Credits' beside the coin, the compact number gone.
  await sidebar.hover();
  await expect(balance.getByText('1,500 Credits', { exact: true })).toHaveCSS('opacity', '1');
  await expect(compact).toHaveCSS('opacity', '0');
  await expect(balance).not.toHaveAttribute('title');
});

test("the server keeps an idle connection past Node's 5 s, so that a client reusing it is not cut off", async ({ baseURL }) => {
  expect(await keptAliveAfter(baseURL!, 6_000)).toBe(true);
});
