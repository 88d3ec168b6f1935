// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import type { HistoryPage, LedgerLine, SpendSummary } from '@common/credits';
import { PROMO_TEXTS } from '@common/promo';
import { AppProviders, createQueryClient } from '@/app/providers';
import { ApiError } from '@/backend/api-error';
import { LowBalanceNotice } from '@/features/credits/components/low-balance-notice';
import { SpendChart } from '@/features/credits/components/spend-chart';
import { redirectTo } from '@/lib/redirect';
import { meKey, sessionUserKey, useMe } from '@/session/api';
import { useLiveUserRecord } from '@/session/use-realtime';
import CreditsPage from '@/pages/app/credits-page';
import { fakeBackend, me, sessionUser } from '../support/fake-backend';

vi.mock('@/lib/redirect', () => ({ redirectTo: vi.fn() }));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

/** `n` UTC days ending 2026-11-29, with spend on the days given. */
function perDay(n: number, spent: Record<string, number>): SpendSummary['per_day'] {
  const end = Date.UTC(2026, 10, 29);
  return Array.from({ length: n }, (_, i) => {
    const day = new Date(end - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10);
    return { day, credits: spent[day] ?? 0 };
  });
}

describe('the spend chart and its table', () => {
  const days = perDay(30, { '2026-11-20': 40, '2026-11-27': 15, '2026-11-29': 120 });

  it('draws one SVG bar for each day with spend, and says the total', () => {
    render(<SpendChart perDay={days} days={30} />);
    const chart = screen.getByTestId('spend-chart');
    expect(chart).toHaveAttribute('aria-hidden', 'true');
    expect(chart.querySelector('svg')).not.toBeNull();
    const bars = chart.querySelectorAll('.recharts-bar-rectangle path');
    expect(bars).toHaveLength(3);
    // The tallest bar is the 120-credit day: recharts scales heights to the values.
    const heights = [...bars].map((b) => Number(b.getAttribute('height')));
    expect(Math.max(...heights)).toBe(heights[2]);
    expect(heights[2]).toBeGreaterThan(heights[0]);
    expect(screen.getByRole('figure')).toHaveAccessibleName('Credits spent per day, last 30 days: 175');
  });

  it('has a table of every day, newest first, that screen readers read and "Show table" shows', async () => {
    render(<SpendChart perDay={days} days={30} />);
    const table = screen.getByRole('table', { name: 'Credits spent per day, last 30 days' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(30);
    expect(rows[0]).toHaveTextContent('Nov 29, 2026120');
    expect(rows[2]).toHaveTextContent('Nov 27, 202615');
    expect(rows[9]).toHaveTextContent('Nov 20, 202640');
    expect(rows[29]).toHaveTextContent('Oct 31, 20260');
    // Visually hidden at first, the chart shown; the toggle swaps them.
    expect(table.parentElement).toHaveClass('sr-only');
    const toggle = screen.getByRole('button', { name: 'Show table' });
    expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await userEvent.setup().click(toggle);
    expect(table.parentElement).not.toHaveClass('sr-only');
    expect(screen.getByTestId('spend-chart')).toHaveClass('hidden');
    expect(screen.getByRole('button', { name: 'Show chart' })).toHaveAttribute('aria-pressed', 'true');
  });
});

// ---- The page ----------------------------------------------------------------------------------------------

const line = (n: number, over: Partial<LedgerLine> = {}): LedgerLine => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  created_at: new Date(Date.UTC(2026, 10, 29, 12, 0) - n * 60_000).toISOString(),
  kind: 'generation',
  reason: 'Image generation',
  amount: -10,
  balance_after: 1000 - n * 10,
  link: { type: 'image', id: `img-${n}` },
  ...over,
});

const spend = (days: 30 | 90): SpendSummary => ({
  period_start: '2026-11-01T00:00:00.000Z',
  by_kind: [
    { kind: 'generation', credits: 30 },
    { kind: 'shoot', credits: 0 },
    { kind: 'upscale', credits: 20 },
    { kind: 'edit', credits: 0 },
    { kind: 'training', credits: 500 },
    { kind: 'prompt', credits: 0 },
  ],
  refunded: 10,
  days,
  per_day: perDay(days, { '2026-11-29': 550 }),
});

function Where() {
  const { search } = useLocation();
  return <output data-testid="search">{search}</output>;
}

type Routes = NonNullable<Parameters<typeof fakeBackend>[0]>['routes'];

function renderPage(routes: Routes, path = '/app/credits') {
  const fake = fakeBackend({ routes: { '/api/credits/spend': () => spend(30), ...routes } });
  const queryClient = createQueryClient();
  queryClient.setQueryData(sessionUserKey, sessionUser());
  queryClient.setQueryData(meKey, me({ credits: 970 }));
  render(
    <AppProviders backend={fake.backend} queryClient={queryClient}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route
            path="/app/credits"
            element={
              <>
                <CreditsPage />
                <Where />
              </>
            }
          />
        </Routes>
      </MemoryRouter>
    </AppProviders>,
  );
  return fake;
}

const paths = (request: ReturnType<typeof fakeBackend>['request'], prefix: string) =>
  request.mock.calls.map(([path]) => path as string).filter((p) => p.startsWith(prefix));

describe('the credits page', () => {
  it('lists the ledger newest first with what, amount, balance after and links; loads more by cursor', async () => {
    let calls = 0;
    const first: HistoryPage = {
      lines: [
        line(1, { kind: 'topup', reason: 'Top-up: 500 credits', amount: 500, balance_after: 970, link: null }),
        line(2, { kind: 'shoot', reason: 'Photo shoot', link: { type: 'shoot', id: 'sh-1' } }),
        line(3, { kind: 'training', reason: 'Character training', amount: -500, link: { type: 'character', id: 'ch-1' } }),
      ],
      next_cursor: 'cursor-1',
    };
    const second: HistoryPage = { lines: [line(4, { kind: 'upscale', reason: 'Image upscale 2×' })], next_cursor: null };
    const fake = renderPage({ '/api/credits/history': () => (calls++ === 0 ? first : second) });

    const table = await screen.findByRole('table', { name: 'Credit history, newest first' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toHaveTextContent('Top-up');
    expect(rows[0]).toHaveTextContent('+500');
    expect(rows[0]).toHaveTextContent('970');
    expect(within(rows[1]).getAllByRole('link', { name: 'Shoot' })[0]).toHaveAttribute('href', '/app/photo-shoots/sh-1');
    expect(rows[2]).toHaveTextContent('−500');
    expect(within(rows[2]).getAllByRole('link', { name: 'Character' })[0]).toHaveAttribute(
      'href',
      '/app/character-training?character=ch-1',
    );

    await userEvent.setup().click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(5));
    expect(within(table).getAllByRole('link', { name: 'Image' })[0]).toHaveAttribute('href', '/app/my-generations?image=img-4');
    expect(paths(fake.request, '/api/credits/history')).toEqual(['/api/credits/history', '/api/credits/history?cursor=cursor-1']);
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
  });

  it("shows this period's spend by kind, and asks for 90 days when chosen", async () => {
    let asked = 0;
    const fake = renderPage({
      '/api/credits/history': () => ({ lines: [], next_cursor: null }),
      '/api/credits/spend': () => spend(asked++ ? 90 : 30),
    });
    const kinds = await screen.findByRole('region', { name: /This period, since Nov 1, 2026/ });
    expect(within(kinds).getByText('Training').nextElementSibling).toHaveTextContent('500');
    expect(within(kinds).getByText('Upscale').nextElementSibling).toHaveTextContent('20');
    expect(screen.getByText('10 credits were refunded this period.')).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: '90 days' }));
    expect(await screen.findByRole('table', { name: 'Credits spent per day, last 90 days' })).toBeInTheDocument();
    expect(paths(fake.request, '/api/credits/spend')).toEqual(['/api/credits/spend?days=30', '/api/credits/spend?days=90']);
  });

  it('filters by kind, and says so when a kind has no lines', async () => {
    const fake = renderPage({ '/api/credits/history': () => ({ lines: [], next_cursor: null }) });
    expect(await screen.findByText('No credit history yet')).toBeInTheDocument();
    await userEvent.setup().selectOptions(screen.getByLabelText('Kind'), 'Promo');
    expect(await screen.findByText('No promo lines yet')).toBeInTheDocument();
    expect(paths(fake.request, '/api/credits/history').at(-1)).toBe('/api/credits/history?kind=promo');
  });

  it("shows a failed history with 'Try Again'", async () => {
    let fail = true;
    renderPage({
      '/api/credits/history': () => {
        if (fail) throw new ApiError(500, '{}', 'boom');
        return { lines: [line(1)], next_cursor: null };
      },
    });
    expect(await screen.findByText('Your credit history could not be loaded.', {}, { timeout: 5000 })).toBeInTheDocument();
    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try Again' }));
    expect(await screen.findByRole('table', { name: 'Credit history, newest first' })).toBeInTheDocument();
  });

  it('starts a pack’s checkout and leaves for it', async () => {
    const fake = renderPage({
      '/api/credits/history': () => ({ lines: [], next_cursor: null }),
      '/api/credits/top-ups': () => ({ checkout_url: 'http://127.0.0.1/sandbox/top-ups/t1' }),
    });
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Buy 1,500 credits for $24' }));
    await waitFor(() => expect(redirectTo).toHaveBeenCalledWith('http://127.0.0.1/sandbox/top-ups/t1'));
    const call = fake.request.mock.calls.find(([path]) => path === '/api/credits/top-ups');
    expect(call?.[1]).toMatchObject({ method: 'POST', body: { pack: 'PACK_1500' } });
  });

  it('confirms a signed return once, says what was credited, and clears the address', async () => {
    const fake = renderPage(
      {
        '/api/credits/history': () => ({ lines: [], next_cursor: null }),
        '/api/credits/top-ups/return': () => ({ credited: true, credits: 500, balance: 1470 }),
      },
      '/app/credits?checkout_id=c1&order_id=o1&product_id=p1&request_id=top_x&signature=abc&extra=1',
    );
    expect(await screen.findByText('500 credits are in your balance.')).toBeInTheDocument();
    const calls = fake.request.mock.calls.filter(([path]) => path === '/api/credits/top-ups/return');
    expect(calls).toHaveLength(1);
    expect(calls[0][1]?.body).toEqual({ checkout_id: 'c1', order_id: 'o1', product_id: 'p1', request_id: 'top_x', signature: 'abc' });
    expect(screen.getByTestId('search')).toHaveTextContent(/^$/);
  });

  it("redeems a promo code, and shows the server's message when it is refused", async () => {
    let refuse = true;
    renderPage({
      '/api/credits/history': () => ({ lines: [], next_cursor: null }),
      '/api/credits/promo': () => {
        if (refuse) throw new ApiError(409, JSON.stringify({ code: 'promo_used_up', message: PROMO_TEXTS.usedUp }), PROMO_TEXTS.usedUp);
        return { credits: 250, balance: 1220 };
      },
    });
    const user = userEvent.setup();
    const input = await screen.findByLabelText('Code');
    await user.type(input, 'launch 2026');
    await user.click(screen.getByRole('button', { name: 'Redeem' }));
    expect(await screen.findByText(PROMO_TEXTS.usedUp)).toBeInTheDocument();
    expect(input).toHaveAttribute('aria-invalid', 'true');
    refuse = false;
    await user.click(screen.getByRole('button', { name: 'Redeem' }));
    expect(await screen.findByText('250 credits added. Your balance is 1,220.')).toBeInTheDocument();
    expect(input).toHaveValue('');
  });
});

describe('the low-balance notice', () => {
  function Shell({ children }: { children: React.ReactNode }) {
    useLiveUserRecord();
    const { credits } = useMe();
    return (
      <>
        <span data-testid="credits">{credits}</span>
        {children}
      </>
    );
  }

  function renderNotice(path: string, answer: () => unknown) {
    const fake = fakeBackend({ routes: { '/api/credits/low-balance': answer, '/api/me/sync': () => me({ credits: 5 }) } });
    const queryClient = createQueryClient();
    queryClient.setQueryData(sessionUserKey, sessionUser());
    queryClient.setQueryData(meKey, me({ credits: 5 }));
    render(
      <AppProviders backend={fake.backend} queryClient={queryClient}>
        <MemoryRouter initialEntries={[path]}>
          <Shell>
            <LowBalanceNotice />
          </Shell>
        </MemoryRouter>
      </AppProviders>,
    );
    return fake;
  }

  it("says what the last action cost, with 'Top up' to the credits page and 'Upgrade Plan'; gone once the balance pays for it", async () => {
    let status = { low: true, balance: 5, last: { kind: 'training', cost: 500 } };
    const fake = renderNotice('/app/explore', () => status);
    const notice = await screen.findByRole('status');
    expect(notice).toHaveTextContent('Your balance is low');
    expect(notice).toHaveTextContent('You have 5 credits left, not enough for another character training (500 credits).');
    expect(within(notice).getByRole('link', { name: 'Top up' })).toHaveAttribute('href', '/app/credits');
    expect(within(notice).getByRole('link', { name: 'Upgrade Plan' })).toHaveAttribute('href', '/app/subscription');

    // The balance changes (a top-up): asked again, and no longer low.
    status = { low: false, balance: 1505, last: { kind: 'training', cost: 500 } };
    fake.emit({ type: 'credits', credits: 1505 });
    await waitFor(() => expect(screen.getByTestId('credits')).toHaveTextContent('1505'));
    await waitFor(() => expect(screen.queryByText('Your balance is low')).not.toBeInTheDocument());
    expect(fake.request.mock.calls.filter(([path]) => path === '/api/credits/low-balance')).toHaveLength(2);
  });

  it('can be dismissed, and is not shown on the credits page nor before any spending', async () => {
    renderNotice('/app/explore', () => ({ low: true, balance: 5, last: { kind: 'generation', cost: 10 } }));
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByText('Your balance is low')).not.toBeInTheDocument();
    cleanup();

    const onPage = renderNotice('/app/credits', () => ({ low: true, balance: 5, last: { kind: 'generation', cost: 10 } }));
    await waitFor(() => expect(onPage.request).toHaveBeenCalledWith('/api/credits/low-balance', expect.anything()));
    expect(screen.queryByText('Your balance is low')).not.toBeInTheDocument();
    cleanup();

    const fresh = renderNotice('/app/explore', () => ({ low: false, balance: 5, last: null }));
    await waitFor(() => expect(fresh.request).toHaveBeenCalledWith('/api/credits/low-balance', expect.anything()));
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });
});
