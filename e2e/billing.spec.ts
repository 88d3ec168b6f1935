import type { Page } from '@playwright/test';
import { expect, isPhone, newUser, signUp, test } from './fixtures';

const plan = (page: Page, id: 'BASIC' | 'STANDARD' | 'PROFESSIONAL') => page.getByTestId(`plan-${id}`);

async function expectLabels(page: Page, labels: [string, string, string]) {
  await expect(plan(page, 'BASIC').getByRole('button')).toHaveText(labels[0]);
  await expect(plan(page, 'STANDARD').getByRole('button')).toHaveText(labels[1]);
  await expect(plan(page, 'PROFESSIONAL').getByRole('button')).toHaveText(labels[2]);
}

/** The balance as the app shell shows it (sidebar on desktop, top bar on phones). */
const shellCredits = (page: Page, text: string) =>
  (isPhone(page) ? page.getByRole('banner') : page.getByTestId('sidebar')).getByText(text, { exact: true });

/** From /app/subscription, through 'Manage Subscription', to the sandbox customer portal. */
async function openPortal(page: Page) {
  await page.getByRole('button', { name: 'Manage Subscription' }).click();
  await expect(page).toHaveURL(/\/sandbox\/portal\//);
  await expect(page.getByText('Test payment page — no real money')).toBeVisible();
}

async function backToApp(page: Page) {
  await page.getByRole('link', { name: 'Return to Likeness' }).click();
  await expect(page).toHaveURL(/\/app\/subscription$/);
}

test('a new user subscribes to Standard, switches to Professional, renews and cancels', async ({ page, context }) => {
  // A month of billing in one flow (five checkouts and portal visits): close to one test's time on a busy machine.
  test.slow();
  await signUp(page, newUser('Morgan Lee'));
  // With 0 credits, Create Image says so and points to the plans.
  await page.goto('/app/create-image');
  await expect(page.getByText('Insufficient Credits')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Need 10 Credits' })).toBeDisabled();
  await page.getByRole('link', { name: 'Upgrade Plan' }).click();
  await expect(page).toHaveURL(/\/app\/subscription$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Choose Your Plan');
  await expect(page.getByTestId('balance')).toHaveText('0 credits available');
  await expect(shellCredits(page, '0 Credits')).toBeAttached();
  await expectLabels(page, ['Choose plan', 'Choose plan', 'Choose plan']);
  await expect(plan(page, 'STANDARD').getByText('Popular')).toBeVisible();
  await expect(plan(page, 'STANDARD')).toContainText('$49');
  await expect(plan(page, 'STANDARD')).toContainText('4,500 credits per month');
  await expect(plan(page, 'STANDARD')).toContainText('~450 photos per month');
  await expect(plan(page, 'STANDARD')).toContainText('Up to 3 character trainings');

  // Pay in a second tab; this one must follow without a reload.
  const payer = await context.newPage();
  await payer.goto('/app/subscription');
  await plan(payer, 'STANDARD').getByRole('button', { name: 'Choose plan' }).click();
  await expect(payer).toHaveURL(/\/sandbox\/checkout\//);
  await expect(payer.getByText('Test payment page — no real money')).toBeVisible();
  await expect(payer.getByRole('heading', { name: 'Subscribe to Standard' })).toBeVisible();
  await expect(payer.getByText('$49')).toBeVisible();
  await payer.getByRole('button', { name: 'Pay' }).click();
  await expect(payer).toHaveURL(/\/app\/subscription\?checkout=success$/);
  await expect(payer.getByText('Payment received — your Standard plan is active')).toBeVisible();
  await expect(payer.getByTestId('balance')).toHaveText('4,500 credits available');
  await payer.close();

  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Manage Your Plan');
  await expect(page.getByTestId('balance')).toHaveText('4,500 credits available');
  await expect(shellCredits(page, '4,500 Credits')).toBeAttached();
  await expectLabels(page, ['Downgrade', 'Manage Current Plan', 'Upgrade']);
  await expect(page.getByRole('heading', { name: 'Standard Plan' })).toBeVisible();
  await expect(page.getByText('Renews automatically every month')).toBeVisible();
  await expect(page.getByText(/Current period ends \w+ \d+, \d{4}/)).toBeVisible();
  await page.goto('/app/create-image');
  await expect(page.getByRole('heading', { name: 'Create Image' })).toBeVisible();
  await expect(page.getByText('Insufficient Credits')).toBeHidden();
  await page.goto('/app/subscription');

  // Upgrade in the portal: the period stays and only the difference to Professional’s credits is added.
  await openPortal(page);
  await page.getByRole('button', { name: /Switch to Professional/ }).click();
  await expect(page.getByText('Plan upgraded.')).toBeVisible();
  await backToApp(page);
  await expectLabels(page, ['Downgrade', 'Downgrade', 'Manage Current Plan']);
  await expect(page.getByRole('heading', { name: 'Professional Plan' })).toBeVisible();
  await expect(page.getByTestId('balance')).toHaveText('10,000 credits available');

  // Every plan button of an active user opens the portal too.
  await plan(page, 'BASIC').getByRole('button', { name: 'Downgrade' }).click();
  await expect(page).toHaveURL(/\/sandbox\/portal\//);
  await page.getByRole('button', { name: /renewal/ }).click();
  await expect(page.getByText('Renewal paid.')).toBeVisible();
  await backToApp(page);
  await expect(page.getByTestId('balance')).toHaveText('20,000 credits available');

  await page.goto('/app/profile');
  await expect(page.getByTestId('profile-plan')).toHaveText('Professional Plan');
  await expect(page.getByText('Active', { exact: true })).toBeVisible();
  await expect(page.getByTestId('profile-credits')).toHaveText('20,000');
  await page.getByRole('link', { name: 'Manage Subscription' }).click();
  await expect(page).toHaveURL(/\/app\/subscription$/);

  // Cancelling asks first and keeps the plan until the end of the paid period, as the Terms promise.
  await openPortal(page);
  const renewsOn = (await page.locator('dd').last().textContent())!;
  await page.getByRole('link', { name: 'Cancel subscription' }).click();
  await expect(page.getByRole('heading', { name: 'Cancel your Professional plan?' })).toBeVisible();
  await expect(page.getByText(`Your plan stays active until ${renewsOn}`)).toBeVisible();
  await page.getByRole('link', { name: 'Keep my plan' }).click();
  await expect(page.getByText('Renews on')).toBeVisible();
  await page.getByRole('link', { name: 'Cancel subscription' }).click();
  await page.getByRole('button', { name: 'Yes, cancel at the end of the period' }).click();
  await expect(page.getByText('Subscription canceled. Your plan stays active until the end of the paid period.')).toBeVisible();
  await backToApp(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Manage Your Plan');
  await expect(page.getByTestId('plan-renewal')).toHaveText(`Cancels on ${renewsOn}`);
  await expect(page.getByTestId('balance')).toHaveText('20,000 credits available');

  // Resumed, it renews again; cancelled again, it ends when the (simulated) period does.
  await page.getByRole('button', { name: 'Resume Subscription' }).click();
  await page.getByRole('button', { name: 'Resume subscription' }).click();
  await expect(page.getByText('Subscription resumed. It renews automatically again.')).toBeVisible();
  await backToApp(page);
  await expect(page.getByTestId('plan-renewal')).toHaveText('Renews automatically every month');
  await openPortal(page);
  await page.getByRole('link', { name: 'Cancel subscription' }).click();
  await page.getByRole('button', { name: 'Yes, cancel at the end of the period' }).click();
  await page.getByRole('button', { name: 'Simulate the end of the period' }).click();
  await expect(page.getByText('The paid period ended. You are on the Free Plan now.')).toBeVisible();
  await backToApp(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Choose Your Plan');
  await expectLabels(page, ['Choose plan', 'Choose plan', 'Choose plan']);
  await expect(page.getByRole('button', { name: 'Manage Subscription' })).toHaveCount(0);
  await page.goto('/app/profile');
  await expect(page.getByTestId('profile-plan')).toHaveText('Free Plan');
  await expect(page.getByText('Upgrade to unlock more features and credits')).toBeVisible();
});

test('offline: the banner shows, plan buttons read Offline and are disabled', async ({ page, context }) => {
  await signUp(page);
  await page.goto('/app/subscription');
  await expectLabels(page, ['Choose plan', 'Choose plan', 'Choose plan']);
  await context.setOffline(true);
  await expect(page.getByText('You are currently offline. Please check your internet connection.')).toBeVisible();
  await expectLabels(page, ['Offline', 'Offline', 'Offline']);
  for (const id of ['BASIC', 'STANDARD', 'PROFESSIONAL'] as const) await expect(plan(page, id).getByRole('button')).toBeDisabled();
  await context.setOffline(false);
  await expect(page.getByText('You are currently offline. Please check your internet connection.')).toBeHidden();
  await expectLabels(page, ['Choose plan', 'Choose plan', 'Choose plan']);
  await expect(plan(page, 'STANDARD').getByRole('button')).toBeEnabled();
});

test('the sandbox checkout can be cancelled, leaving the user on the Free Plan', async ({ page }) => {
  await signUp(page);
  await page.goto('/app/subscription');
  await plan(page, 'BASIC').getByRole('button', { name: 'Choose plan' }).click();
  await expect(page).toHaveURL(/\/sandbox\/checkout\//);
  await page.getByRole('link', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(/\/app\/subscription\?checkout=cancelled$/);
  await expect(page.getByText('Checkout cancelled')).toBeVisible();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Choose Your Plan');
  await expect(page.getByTestId('balance')).toHaveText('0 credits available');
});

test('profile: identity, credits, Free Plan, read-only account information and Sign Out', async ({ page }) => {
  const user = await signUp(page, newUser('Jamie Rivera'));
  await page.goto('/app/profile');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Jamie Rivera');
  await expect(page.getByText(user.email).first()).toBeVisible();
  const joined = `Joined ${new Date().toLocaleDateString('en-US', { month: 'long', year: 'numeric' })}`;
  await expect(page.getByText(joined)).toBeVisible();
  await expect(page.getByTestId('profile-credits')).toHaveText('0');
  await expect(page.getByText('Generation costs 10 credits each')).toBeVisible();
  await expect(page.getByText('Training costs 500 credits each')).toBeVisible();
  await expect(page.getByTestId('profile-plan')).toHaveText('Free Plan');
  await expect(page.getByText('Upgrade to unlock more features and credits')).toBeVisible();
  await expect(page.getByText('Full Name', { exact: true })).toBeVisible();
  await expect(page.getByText('Email Address', { exact: true })).toBeVisible();
  await expect(page.getByText(/contact support/)).toBeVisible();

  await page.getByRole('link', { name: 'Get More Credits' }).click();
  await expect(page).toHaveURL(/\/app\/subscription$/);
  await page.goBack();
  await page.getByRole('link', { name: 'Upgrade Plan' }).click();
  await expect(page).toHaveURL(/\/app\/subscription$/);
  await page.goBack();

  await page.getByRole('button', { name: 'Sign Out' }).click();
  await expect(page).toHaveURL(/\/$/);
  // Signed out: the home page's hero now leads to sign-up.
  await expect(page.getByRole('link', { name: /Try Now/ }).first()).toHaveAttribute('href', '/sign-up');
  await page.goto('/app/profile');
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fapp%2Fprofile$/);
});
