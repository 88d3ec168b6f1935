// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, render, renderHook, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import type { SubscriptionInfo } from '@common/billing';
import { AppProviders, createQueryClient } from '@/app/providers';
import { ApiError } from '@/backend/api-error';
import { billingKeys, useCheckout } from '@/features/billing/api';
import { SubscriptionScreen } from '@/features/billing/components/subscription-screen';
import { redirectTo } from '@/lib/redirect';
import type { Backend, Me } from '@/backend/port';
import { meKey, sessionUserKey } from '@/session/api';
import { useLiveUserRecord } from '@/session/use-realtime';
import ProfilePage from '@/pages/app/profile-page';
import { fakeBackend, me, sessionUser } from '../support/fake-backend';

vi.mock('@/lib/redirect', () => ({ redirectTo: vi.fn() }));

const CHECKOUT_URL = 'http://127.0.0.1/sandbox/checkout/ch_1';
const PORTAL_URL = 'http://127.0.0.1/sandbox/portal/cus_1';
const inactive: SubscriptionInfo = { status: null, plan: null, customer_id: null, current_period_end: null, cancel_at_period_end: false };
const activeStandard: SubscriptionInfo = {
  status: 'active',
  plan: 'STANDARD',
  customer_id: 'cus_1',
  current_period_end: '2026-12-21T12:00:00.000Z',
  cancel_at_period_end: false,
};

type Routes = NonNullable<Parameters<typeof fakeBackend>[0]>['routes'];

function LiveRecord({ children }: { children: ReactNode }) {
  useLiveUserRecord();
  return <>{children}</>;
}

/** Renders a screen as the signed-in app would: the user record already synced, optionally the subscription too. */
function renderWith(
  ui: ReactNode,
  opts: { me?: Partial<Me>; routes?: Routes; subscription?: SubscriptionInfo; path?: string; billing?: Backend['billing'] } = {},
) {
  const fake = fakeBackend({ routes: opts.routes, billing: opts.billing });
  const queryClient = createQueryClient();
  queryClient.setQueryData(sessionUserKey, sessionUser());
  queryClient.setQueryData(meKey, me(opts.me));
  if (opts.subscription) queryClient.setQueryData(billingKeys.subscription, opts.subscription);
  render(
    <AppProviders backend={fake.backend} queryClient={queryClient}>
      <MemoryRouter initialEntries={[opts.path ?? '/app/subscription']}>
        <LiveRecord>{ui}</LiveRecord>
      </MemoryRouter>
    </AppProviders>,
  );
  return fake;
}

const planButton = (id: string) => within(screen.getByTestId(`plan-${id}`)).getByRole('button');
const checkoutCalls = (request: ReturnType<typeof fakeBackend>['request']) =>
  request.mock.calls.filter(([path]) => path === '/api/billing/checkout');

function setOnline(online: boolean) {
  Object.defineProperty(window.navigator, 'onLine', { configurable: true, get: () => online });
  window.dispatchEvent(new Event(online ? 'online' : 'offline'));
}

beforeEach(() => {
  vi.mocked(redirectTo).mockReset();
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
  setOnline(true);
});

describe('subscription page for an inactive user', () => {
  it("shows 'Choose Your Plan' and three plan cards with 'Choose plan'", () => {
    renderWith(<SubscriptionScreen />, { subscription: inactive });
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Choose Your Plan');
    expect(['BASIC', 'STANDARD', 'PROFESSIONAL'].map((id) => planButton(id).textContent)).toEqual([
      'Choose plan',
      'Choose plan',
      'Choose plan',
    ]);
    const standard = screen.getByTestId('plan-STANDARD');
    expect(within(standard).getByText('Popular')).toBeInTheDocument();
    expect(within(standard).getByText('$49')).toBeInTheDocument();
    expect(within(standard).getByText('4,500 credits per month')).toBeInTheDocument();
    expect(within(standard).getByText('~450 photos per month')).toBeInTheDocument();
    expect(within(standard).getByText('Priority Support')).toBeInTheDocument();
    expect(within(screen.getByTestId('plan-BASIC')).queryByText('Popular')).toBeNull();
    expect(screen.queryByText('Manage Subscription')).toBeNull();
  });

  it("starts checkout with plan, user id and email, reads 'Processing...' and redirects to checkout_url", async () => {
    let answer!: (v: unknown) => void;
    const { request } = renderWith(<SubscriptionScreen />, {
      subscription: inactive,
      routes: { '/api/billing/checkout': () => new Promise((r) => (answer = r)) },
    });
    await userEvent.click(planButton('STANDARD'));
    expect(planButton('STANDARD')).toHaveTextContent('Processing...');
    expect(planButton('STANDARD')).toBeDisabled();
    expect(planButton('BASIC')).toBeDisabled();
    expect(request).toHaveBeenCalledWith('/api/billing/checkout', {
      method: 'POST',
      body: { plan: 'STANDARD', userId: me().id, email: 'jamie@example.com' },
    });
    await act(async () => answer({ checkout_url: CHECKOUT_URL }));
    expect(redirectTo).toHaveBeenCalledWith(CHECKOUT_URL);
    // Still processing: the browser is on its way to the checkout page.
    expect(planButton('STANDARD')).toHaveTextContent('Processing...');
  });

  it('makes up to 3 attempts, waiting 1 s then 2 s, and succeeds on the third', async () => {
    vi.useFakeTimers();
    let calls = 0;
    const { request } = renderWith(<SubscriptionScreen />, {
      subscription: inactive,
      routes: {
        '/api/billing/checkout': () => {
          calls += 1;
          if (calls < 3) throw new ApiError(503, 'upstream down', 'Service unavailable');
          return { checkout_url: CHECKOUT_URL };
        },
      },
    });
    act(() => planButton('BASIC').click());
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(checkoutCalls(request)).toHaveLength(1);
    await act(() => vi.advanceTimersByTimeAsync(999));
    expect(checkoutCalls(request)).toHaveLength(1);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(checkoutCalls(request)).toHaveLength(2);
    await act(() => vi.advanceTimersByTimeAsync(1999));
    expect(checkoutCalls(request)).toHaveLength(2);
    expect(planButton('BASIC')).toHaveTextContent('Processing...');
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(checkoutCalls(request)).toHaveLength(3);
    expect(redirectTo).toHaveBeenCalledWith(CHECKOUT_URL);
  });

  it.each([
    [
      'a server error on every attempt',
      () => {
        throw new ApiError(500, 'boom', 'Internal error');
      },
      'Unable to create checkout session. Please try again later.',
      3,
    ],
    [
      'a network failure on every attempt',
      () => {
        throw new TypeError('Failed to fetch');
      },
      'Failed to create checkout session. Please try again later.',
      3,
    ],
    [
      'something that is not an Error',
      () => {
        throw 'weird';
      },
      'An unexpected error occurred. Please try again later.',
      3,
    ],
    [
      'a refusal (409)',
      () => {
        throw new ApiError(409, '{}', 'Already subscribed', 'already_subscribed');
      },
      'Unable to create checkout session. Please try again later.',
      1,
    ],
    ['an answer without checkout_url', () => ({}), 'Invalid response from checkout service: missing checkout URL', 1],
    [
      'the server asking for an email',
      () => {
        throw new ApiError(400, '{}', 'x', 'email_required');
      },
      'Unable to process subscription. Please ensure you have a valid email address.',
      1,
    ],
  ])('after %s it shows the error in red and clears processing', async (_what, handler, message, attempts) => {
    vi.useFakeTimers();
    const { request } = renderWith(<SubscriptionScreen />, { subscription: inactive, routes: { '/api/billing/checkout': handler } });
    act(() => planButton('PROFESSIONAL').click());
    await act(() => vi.advanceTimersByTimeAsync(5_000));
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent(message);
    expect(alert.className).toContain('text-danger');
    expect(checkoutCalls(request)).toHaveLength(attempts);
    expect(planButton('PROFESSIONAL')).toHaveTextContent('Choose plan');
    expect(planButton('PROFESSIONAL')).toBeEnabled();
    expect(redirectTo).not.toHaveBeenCalled();
    expect(console.error).toHaveBeenCalled();
  });

  it('refuses checkout without an email and sends nothing', async () => {
    const { request } = renderWith(<SubscriptionScreen />, { subscription: inactive, me: { email: null } });
    await userEvent.click(planButton('BASIC'));
    expect(screen.getByRole('alert')).toHaveTextContent('Unable to process subscription. Please ensure you have a valid email address.');
    expect(checkoutCalls(request)).toHaveLength(0);
  });

  it("refuses checkout while offline with 'No internet connection…'", async () => {
    const fake = fakeBackend();
    const wrapper = ({ children }: { children: ReactNode }) => <AppProviders backend={fake.backend}>{children}</AppProviders>;
    const { result } = renderHook(() => useCheckout(), { wrapper });
    await act(() => result.current.start('BASIC', { userId: 'u1', email: 'a@b.co' }, false));
    expect(result.current.error).toBe('No internet connection. Please check your network and try again.');
    expect(fake.request).not.toHaveBeenCalled();
  });

  it("offline: shows the banner and disables every button, reading 'Offline'", () => {
    renderWith(<SubscriptionScreen />, { subscription: inactive });
    act(() => setOnline(false));
    expect(screen.getByText('You are currently offline. Please check your internet connection.')).toBeInTheDocument();
    for (const id of ['BASIC', 'STANDARD', 'PROFESSIONAL']) {
      expect(planButton(id)).toHaveTextContent('Offline');
      expect(planButton(id)).toBeDisabled();
    }
    act(() => setOnline(true));
    expect(screen.queryByText('You are currently offline. Please check your internet connection.')).toBeNull();
    expect(planButton('BASIC')).toHaveTextContent('Choose plan');
  });

  it("shows 'Unable to load user data. Please refresh the page.' when the subscription read fails", async () => {
    renderWith(<SubscriptionScreen />, {
      routes: {
        '/api/billing/subscription': () => {
          throw new ApiError(404, '{}', 'Not found');
        },
      },
    });
    expect(await screen.findByText('Unable to load user data. Please refresh the page.')).toBeInTheDocument();
  });

  it('after returning from checkout, says the credits are on their way until the subscription event arrives', async () => {
    // A change is a signal: the user record is synced again and answers the new plan.
    const { emit } = renderWith(<SubscriptionScreen />, {
      subscription: inactive,
      path: '/app/subscription?checkout=success',
      routes: { '/api/me/sync': () => me({ subscription_status: 'active', subscription_plan: 'STANDARD', credits: 4500 }) },
    });
    expect(screen.getByText('Payment received — your credits are on their way')).toBeInTheDocument();
    act(() => {
      emit({ type: 'subscription', status: 'active', plan: 'STANDARD' });
      emit({ type: 'credits', credits: 4500 });
    });
    expect(await screen.findByText('Payment received — your Standard plan is active')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Manage Your Plan');
    expect(screen.getByTestId('balance')).toHaveTextContent('4,500 credits available');
  });
});

describe('subscription page for an active user', () => {
  const activeMe: Partial<Me> = { subscription_status: 'active', subscription_plan: 'STANDARD', creem_customer_id: 'cus_1', credits: 4500 };

  it('labels plans relative to the current one and keeps every button disabled until the portal link loads', async () => {
    let answer!: (v: unknown) => void;
    const { request } = renderWith(<SubscriptionScreen />, {
      me: activeMe,
      subscription: activeStandard,
      routes: { '/api/billing/portal': () => new Promise((r) => (answer = r)) },
    });
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Manage Your Plan');
    expect(['BASIC', 'STANDARD', 'PROFESSIONAL'].map((id) => planButton(id).textContent)).toEqual([
      'Downgrade',
      'Manage Current Plan',
      'Upgrade',
    ]);
    const manage = screen.getByRole('button', { name: 'Manage Subscription' });
    for (const button of [manage, planButton('BASIC'), planButton('STANDARD'), planButton('PROFESSIONAL')]) expect(button).toBeDisabled();
    expect(request).toHaveBeenCalledWith(
      '/api/billing/portal',
      expect.objectContaining({ method: 'POST', body: { customer_id: 'cus_1' } }),
    );

    await act(async () => answer({ customer_portal_link: PORTAL_URL }));
    await waitFor(() => expect(manage).toBeEnabled());
    await userEvent.click(planButton('PROFESSIONAL'));
    expect(redirectTo).toHaveBeenLastCalledWith(PORTAL_URL);
    await userEvent.click(manage);
    expect(redirectTo).toHaveBeenCalledTimes(2);
    expect(checkoutCalls(request)).toHaveLength(0);
  });

  it('shows the active-plan panel: plan, credits per month, automatic renewal and period end', () => {
    renderWith(<SubscriptionScreen />, {
      me: activeMe,
      subscription: activeStandard,
      routes: { '/api/billing/portal': () => new Promise(() => {}) },
    });
    expect(screen.getByRole('heading', { name: 'Standard Plan' })).toBeInTheDocument();
    expect(screen.getByText('Active')).toBeInTheDocument();
    expect(screen.getAllByText('4,500 credits per month').length).toBe(2);
    expect(screen.getByText('Renews automatically every month')).toBeInTheDocument();
    expect(screen.getByText('Current period ends December 21, 2026')).toBeInTheDocument();
  });

  it('only logs a failed portal-link fetch; the buttons stay disabled', async () => {
    renderWith(<SubscriptionScreen />, {
      me: activeMe,
      subscription: activeStandard,
      routes: {
        '/api/billing/portal': () => {
          throw new ApiError(403, '{}', 'Not yours');
        },
      },
    });
    await waitFor(() => expect(console.error).toHaveBeenCalledWith('Could not load the customer portal link', expect.any(ApiError)));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByRole('button', { name: 'Manage Subscription' })).toBeDisabled();
    expect(planButton('BASIC')).toBeDisabled();
  });

  it('does not ask for a portal link without a customer id, and the plan label needs an active status', () => {
    const { request } = renderWith(<SubscriptionScreen />, {
      me: { subscription_status: 'canceled', subscription_plan: 'STANDARD', creem_customer_id: 'cus_1' },
      subscription: { ...inactive, status: 'canceled', plan: 'STANDARD', customer_id: 'cus_1' },
    });
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Choose Your Plan');
    expect(planButton('STANDARD')).toHaveTextContent('Choose plan');
    expect(request.mock.calls.some(([path]) => path === '/api/billing/portal')).toBe(false);
  });
});

describe('profile page', () => {
  it('shows a spinner while loading, then identity, credits, plan and account information', async () => {
    let answer!: (v: unknown) => void;
    renderWith(<ProfilePage />, {
      me: { full_name: null, credits: 1234, joined_at: '2026-03-14T10:00:00.000Z' },
      routes: { '/api/billing/subscription': () => new Promise((r) => (answer = r)) },
      path: '/app/profile',
    });
    expect(screen.getByRole('status', { name: 'Loading profile' })).toBeInTheDocument();
    await act(async () => answer(inactive));
    expect(await screen.findByRole('heading', { level: 1 })).toHaveTextContent('Anonymous User');
    expect(screen.getByText('Joined March 2026')).toBeInTheDocument();
    expect(screen.getByTestId('profile-credits')).toHaveTextContent('1,234');
    expect(screen.getByText('Generation costs 10 credits each')).toBeInTheDocument();
    expect(screen.getByText('Training costs 500 credits each')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Get More Credits' })).toHaveAttribute('href', '/app/subscription');
    expect(screen.getByRole('link', { name: 'Credit History' })).toHaveAttribute('href', '/app/credits');
    expect(screen.getByTestId('profile-plan')).toHaveTextContent('Free Plan');
    expect(screen.getByText('Upgrade to unlock more features and credits')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Upgrade Plan' })).toHaveAttribute('href', '/app/subscription');
    expect(screen.getByText('Full Name')).toBeInTheDocument();
    expect(screen.getByText('Email Address')).toBeInTheDocument();
    expect(screen.getByText(/contact support/)).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: 'Sign Out' }).length).toBeGreaterThan(0);
  });

  it('shows an active plan with its badge and Manage Subscription; a failed subscription read is only logged', async () => {
    renderWith(<ProfilePage />, {
      me: { subscription_status: 'active', subscription_plan: 'PROFESSIONAL', creem_customer_id: 'cus_1' },
      routes: {
        '/api/billing/subscription': () => {
          throw new ApiError(404, '{}', 'gone');
        },
      },
      path: '/app/profile',
    });
    expect(await screen.findByTestId('profile-plan')).toHaveTextContent('Professional Plan');
    expect(screen.getByText('Active')).toBeInTheDocument();
    expect(screen.getByText(/renews automatically/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Manage Subscription' })).toHaveAttribute('href', '/app/subscription');
    expect(console.error).toHaveBeenCalledWith('Could not load the subscription for the profile', expect.any(ApiError));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('with the Cloudflare checkout and portal workers (VITE_CHECKOUT_WORKER_URL, VITE_PORTAL_WORKER_URL)', () => {
  const workers = { checkout: 'https://checkout.likeness.workers.dev', portal: 'https://portal.likeness.workers.dev/' };
  const workerCalls = (request: ReturnType<typeof fakeBackend>['request'], url: string) =>
    request.mock.calls.filter(([path]) => path === url);

  it('asks the checkout worker, 3 attempts at 1 s and 2 s on its 5xx, and never our server', async () => {
    vi.useFakeTimers();
    let calls = 0;
    const { request } = renderWith(<SubscriptionScreen />, {
      subscription: inactive,
      billing: workers,
      routes: {
        [workers.checkout]: () => {
          calls += 1;
          if (calls < 3) throw new ApiError(504, '{"code":"payment_provider_timeout"}', 'The payment provider did not answer in time.');
          return { checkout_url: CHECKOUT_URL };
        },
      },
    });
    act(() => planButton('STANDARD').click());
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(workerCalls(request, workers.checkout)).toHaveLength(1);
    expect(request).toHaveBeenCalledWith(workers.checkout, {
      method: 'POST',
      body: { plan: 'STANDARD', userId: me().id, email: 'jamie@example.com' },
    });
    await act(() => vi.advanceTimersByTimeAsync(999));
    expect(workerCalls(request, workers.checkout)).toHaveLength(1);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(workerCalls(request, workers.checkout)).toHaveLength(2);
    await act(() => vi.advanceTimersByTimeAsync(2000));
    expect(workerCalls(request, workers.checkout)).toHaveLength(3);
    expect(redirectTo).toHaveBeenCalledWith(CHECKOUT_URL);
    expect(checkoutCalls(request)).toHaveLength(0);
  });

  it("stops at the worker's first 4xx and shows the checkout error", async () => {
    vi.useFakeTimers();
    const { request } = renderWith(<SubscriptionScreen />, {
      subscription: inactive,
      billing: workers,
      routes: {
        [workers.checkout]: () => {
          throw new ApiError(409, '{"code":"already_subscribed"}', 'You already have an active subscription.', 'already_subscribed');
        },
      },
    });
    act(() => planButton('BASIC').click());
    await act(() => vi.advanceTimersByTimeAsync(5_000));
    expect(workerCalls(request, workers.checkout)).toHaveLength(1);
    expect(screen.getByRole('alert')).toHaveTextContent('Unable to create checkout session. Please try again later.');
    expect(redirectTo).not.toHaveBeenCalled();
  });

  it("loads an active customer's portal link from the portal worker", async () => {
    const { request } = renderWith(<SubscriptionScreen />, {
      me: { subscription_status: 'active', subscription_plan: 'STANDARD', creem_customer_id: 'cus_1', credits: 4500 },
      subscription: activeStandard,
      billing: workers,
      routes: { [workers.portal]: () => ({ customer_portal_link: PORTAL_URL }) },
    });
    const manage = screen.getByRole('button', { name: 'Manage Subscription' });
    await waitFor(() => expect(manage).toBeEnabled());
    expect(request).toHaveBeenCalledWith(workers.portal, expect.objectContaining({ method: 'POST', body: { customer_id: 'cus_1' } }));
    expect(request.mock.calls.some(([path]) => path === '/api/billing/portal')).toBe(false);
    await userEvent.click(manage);
    expect(redirectTo).toHaveBeenCalledWith(PORTAL_URL);
  });
});
