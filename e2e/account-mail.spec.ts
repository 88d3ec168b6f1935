import { expect, linkIn, mailTo, newUser, signUp, signUpThroughForm, test } from './fixtures';

test.describe('e-mail for built-in accounts', () => {
  test('forgot password: the link from the mail sets a new password, which signs in, and the old session is gone', async ({
    page,
    browser,
  }) => {
    const user = await signUp(page);
    await page.goto('/app/profile');
    await expect(page.getByRole('switch', { name: 'E-mail me when a character or a photo shoot is ready' })).toBeVisible();

    const visitor = await browser.newContext({ viewport: page.viewportSize() ?? undefined });
    const other = await visitor.newPage();
    await other.goto('/sign-in');
    await other.getByRole('link', { name: 'Forgot password?' }).click();
    await expect(other).toHaveURL(/\/forgot-password$/);
    // The sign-in form has an 'Email address' too, and stays on screen until the new page's code has loaded.
    await expect(other.getByRole('heading', { name: 'Forgot password?' })).toBeVisible();
    await other.getByLabel('Email address').fill(user.email);
    await other.getByRole('button', { name: 'Send link' }).click();
    await expect(other.getByText('If an account exists for that address, we sent a link')).toBeVisible();

    const reset = (await mailTo(user.email, 2)).find((m) => m.subject === 'Reset your Likeness password')!;
    await other.goto(linkIn(reset, '/api/auth/reset-password/'));
    await expect(other).toHaveURL(/\/reset-password\?token=/);
    await expect(other.getByRole('heading', { name: 'Set a new password' })).toBeVisible();
    // The sign-up password rule applies.
    await other.getByLabel('New password').fill('password1234');
    await other.getByRole('button', { name: 'Set new password' }).click();
    await expect(other.getByText(/common|guess|easy/i).first()).toBeVisible();
    const newPassword = 'amber-lighthouse-violin-58';
    await other.getByLabel('New password').fill(newPassword);
    await other.getByRole('button', { name: 'Set new password' }).click();
    await expect(other.getByText('Your new password is set.', { exact: false })).toBeVisible();
    await other.screenshot({ path: `/tmp/i21-reset-done-${test.info().project.name}.png` });
    // The owner is told, with the way back in if it was not them.
    const changed = (await mailTo(user.email, 3)).find((m) => m.subject === 'Your Likeness password was changed')!;
    expect(changed.text).toContain("If this wasn't you, reset your password");
    expect(linkIn(changed, '/forgot-password')).toMatch(/\/forgot-password$/);

    await other.getByRole('link', { name: 'Sign in' }).click();
    await other.getByLabel('Email address').fill(user.email);
    await other.getByLabel('Password').fill(newPassword);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await expect(other).toHaveURL(/\/app\/create-image/);

    // The first browser's session was signed out.
    await page.goto('/app/profile');
    await expect(page).toHaveURL(/\/sign-in/);

    // The link works once.
    await other.goto(linkIn(reset, '/api/auth/reset-password/'));
    await expect(other.getByText('This link is invalid, has expired or was already used. Ask for a new one.')).toBeVisible();
    await visitor.close();
  });

  test("'Check your e-mail to continue' sends the link again, and the newest link signs in", async ({ page }) => {
    const user = newUser('Rae Kim');
    await page.goto('/sign-up');
    await signUpThroughForm(page, user);
    // This server sends over SMTP: no local outbox to point at.
    await expect(page.getByRole('link', { name: 'local outbox' })).toHaveCount(0);
    await page.getByRole('button', { name: 'send it again' }).click();
    await expect(page.getByText('We sent it again.')).toBeVisible();
    await page.screenshot({ path: `/tmp/i47-sent-again-${test.info().project.name}.png` });
    const mails = await mailTo(user.email, 2);
    expect(mails.every((m) => m.subject === 'Confirm your e-mail address')).toBe(true);

    // Before confirming, the password does not sign in: answered as a wrong one, with the way to a new link.
    await page.goto('/sign-in');
    await page.getByLabel('Email address').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toContainText('Incorrect email or password');
    await expect(page.getByRole('button', { name: 'Send the link again' })).toBeVisible();

    await page.goto(linkIn(mails[1], '/api/auth/verify-email'));
    await expect(page).toHaveURL(/\/app\/create-image$/);
    await expect(page.getByText('Confirm your e-mail address')).toHaveCount(0);
  });

  test('the profile switch turns notification mail off', async ({ page }) => {
    await signUp(page);
    await page.goto('/app/profile');
    const toggle = page.getByRole('switch', { name: 'E-mail me when a character or a photo shoot is ready' });
    await expect(toggle).toHaveAttribute('aria-checked', 'true');
    await page.screenshot({ path: `/tmp/i21-profile-${test.info().project.name}.png`, fullPage: true });
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-checked', 'false');
    await page.reload();
    await expect(page.getByRole('switch', { name: 'E-mail me when a character or a photo shoot is ready' })).toHaveAttribute(
      'aria-checked',
      'false',
    );
  });
});
