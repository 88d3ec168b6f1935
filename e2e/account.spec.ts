import { expect, newUser, signUp, test } from './fixtures';

const NEW_PASSWORD = 'violet ferry lantern 42';

test.describe('change password', () => {
  test('changes the password on the profile; the other browser is signed out', async ({ page, browser }, testInfo) => {
    const user = await signUp(page, newUser('Dana Park'));
    // The same account signed in in another browser, on a page with a live event stream.
    const otherContext = await browser.newContext({ viewport: page.viewportSize() ?? undefined });
    const other = await otherContext.newPage();
    await other.goto('/sign-in');
    await other.getByLabel('Email address').fill(user.email);
    await other.getByLabel('Password').fill(user.password);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await expect(other).toHaveURL(/\/app\/create-image$/);

    await page.goto('/app/profile');
    const form = page.getByRole('form', { name: 'Change password' });
    await expect(page.getByRole('heading', { name: 'Change password' })).toBeVisible();

    // Bad input, each told next to its field, nothing sent.
    await form.getByLabel('Current password').fill(user.password);
    await form.getByLabel('New password', { exact: true }).fill('password');
    await form.getByLabel('Confirm new password').fill('password');
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(form.getByText(/This password is too easy to guess/)).toBeVisible();

    await form.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await form.getByLabel('Confirm new password').fill(`${NEW_PASSWORD}!`);
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(form.getByText('The new passwords do not match.')).toBeVisible();

    // A wrong current password: the server's answer, next to the field.
    await form.getByLabel('Current password').fill('not-my-password');
    await form.getByLabel('Confirm new password').fill(NEW_PASSWORD);
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(form.getByText('Your current password is incorrect.')).toBeVisible();

    await form.getByLabel('Current password').fill(user.password);
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByText('Your password has been changed. You have been signed out everywhere else.')).toBeVisible();
    await page.screenshot({ path: `/tmp/i29-profile-${testInfo.project.name}.png`, fullPage: true });

    // The other browser is taken to sign-in within seconds, without doing anything.
    await expect(other).toHaveURL(/\/sign-in$/, { timeout: 10_000 });
    await expect(other.getByRole('heading', { name: 'Welcome back' })).toBeVisible();
    // This browser is still signed in.
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Change password' })).toBeVisible();

    // The old password no longer signs in; the new one does.
    await other.getByLabel('Email address').fill(user.email);
    await other.getByLabel('Password').fill(user.password);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await expect(other.getByText('Incorrect email or password. Please try again.')).toBeVisible();
    await other.getByLabel('Password').fill(NEW_PASSWORD);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await expect(other).toHaveURL(/\/app\/create-image$/);
    await otherContext.close();
  });
});
