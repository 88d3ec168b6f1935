// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { AppProviders, createQueryClient } from '@/app/providers';
import { RequireAuth, SESSION_ERROR_ADVICE } from '@/app/require-auth';
import { AppLayout } from '@/app/shell/app-layout';
import { fakeBackend, me, sessionUser } from '../support/fake-backend';
import { ApiError } from '@/backend/api-error';

function SignInProbe() {
  const location = useLocation();
  const from = (location.state as { from?: { pathname: string } } | null)?.from?.pathname;
  return <p>sign-in page (from {from})</p>;
}

function renderApp(backend: ReturnType<typeof fakeBackend>['backend'], path = '/app/explore') {
  return render(
    <AppProviders backend={backend} queryClient={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/sign-in" element={<SignInProbe />} />
          <Route
            path="/app"
            element={
              <RequireAuth>
                <AppLayout />
              </RequireAuth>
            }
          >
            <Route path="explore" element={<p>explore page</p>} />
          </Route>
        </Routes>
      </MemoryRouter>
    </AppProviders>,
  );
}

describe('the /app session guard', () => {
  it('sends a signed-out visitor to /sign-in, remembering where they came from', async () => {
    renderApp(fakeBackend({ user: null }).backend);
    expect(await screen.findByText('sign-in page (from /app/explore)')).toBeInTheDocument();
  });

  it("shows 'Initializing session...' while the user record syncs, then the page", async () => {
    let finish!: (v: unknown) => void;
    const { backend } = fakeBackend({ routes: { '/api/me/sync': () => new Promise((r) => (finish = r)) } });
    renderApp(backend);
    expect(await screen.findByText('Initializing session...')).toBeInTheDocument();
    await act(async () => finish(me({ credits: 70 })));
    expect(await screen.findByText('explore page')).toBeInTheDocument();
    expect(screen.getAllByText('70 Credits').length).toBeGreaterThan(0);
  });

  it("shows 'Error initializing user: Failed to get authentication token' without a token", async () => {
    renderApp(fakeBackend({ token: null }).backend);
    expect(await screen.findByText('Error initializing user: Failed to get authentication token')).toBeInTheDocument();
    // What to do, in words, beside the technical line.
    expect(screen.getByRole('alert')).toHaveTextContent(SESSION_ERROR_ADVICE);
    expect(SESSION_ERROR_ADVICE).toBe('We could not load your account. Try again in a moment.');
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeInTheDocument();
  });

  it('shows the server message when sync fails', async () => {
    const { backend } = fakeBackend({
      routes: {
        '/api/me/sync': () => {
          throw new ApiError(500, '{}', 'Database unavailable');
        },
      },
    });
    renderApp(backend);
    expect(await screen.findByText('Error initializing user: Database unavailable')).toBeInTheDocument();
  });

  it("shows 'Error initializing user: Authentication failed' when the sync fails without a proper error", async () => {
    const { backend } = fakeBackend({
      routes: {
        '/api/me/sync': () => {
          throw { status: 'odd' };
        },
      },
    });
    renderApp(backend);
    expect(await screen.findByText('Error initializing user: Authentication failed')).toBeInTheDocument();
  });

  it('shows the error, not the sign-in page, when the identity provider itself cannot load', async () => {
    const { backend } = fakeBackend();
    backend.identity.loadUser = async () => {
      throw new Error('The sign-in service could not be loaded. Check your connection and try again.');
    };
    renderApp(backend);
    // The identity provider's load is retried once, a second later, before the error shows.
    const message = await screen.findByText(
      'Error initializing user: The sign-in service could not be loaded. Check your connection and try again.',
    );
    expect(within(message.parentElement!.parentElement!).getByRole('button', { name: 'Try Again' })).toBeInTheDocument();
  });

  it('keeps the balance live from realtime events', async () => {
    const fake = fakeBackend({ routes: { '/api/me/sync': () => me({ credits: 10 }) } });
    renderApp(fake.backend);
    expect((await screen.findAllByText('10 Credits')).length).toBeGreaterThan(0);
    await act(async () => fake.emit({ type: 'credits', credits: 4510 }));
    expect((await screen.findAllByText('4,510 Credits')).length).toBeGreaterThan(0);
  });

  it('refetches the user record after a resync (the server may have missed events)', async () => {
    let credits = 10;
    const fake = fakeBackend({ routes: { '/api/me/sync': () => me({ credits, subscription_status: credits > 10 ? 'active' : null }) } });
    renderApp(fake.backend);
    expect((await screen.findAllByText('10 Credits')).length).toBeGreaterThan(0);
    credits = 1510;
    await act(async () => fake.emit({ type: 'resync' }));
    expect((await screen.findAllByText('1,510 Credits')).length).toBeGreaterThan(0);
    expect(fake.request.mock.calls.filter(([path]) => path === '/api/me/sync')).toHaveLength(2);
  });

  it("labels the profile entry 'User Profile' when there is no name", async () => {
    const { backend } = fakeBackend({ routes: { '/api/me/sync': () => me({ full_name: null }) } });
    renderApp(backend);
    expect((await screen.findAllByText('User Profile')).length).toBeGreaterThan(0);
  });
});

describe('a page of the app brought back from the back/forward cache', () => {
  let replace: ReturnType<typeof vi.fn>;
  let reload: ReturnType<typeof vi.fn>;
  const restore = () => window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
  const setUp = async (user: ReturnType<typeof sessionUser> | null) => {
    // The guard's tests above leave their pages mounted.
    cleanup();
    const fake = fakeBackend({ routes: { '/api/me/sync': () => me({ email: 'dana@example.com' }) } });
    renderApp(fake.backend, '/app/explore');
    expect(await screen.findByText('explore page')).toBeInTheDocument();
    replace = vi.fn();
    reload = vi.fn();
    vi.spyOn(window, 'location', 'get').mockReturnValue({ ...window.location, pathname: '/app/explore', replace, reload } as Location);
    vi.mocked(fake.backend.identity.loadUser).mockResolvedValue(user);
    return fake;
  };
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
    document.documentElement.style.visibility = '';
  });

  it('hides at once, asks the session again and, signed out, drops its data and goes to sign-in', async () => {
    await setUp(null);
    act(() => restore());
    // Hidden before the answer: the old account is never on show again.
    expect(document.documentElement.style.visibility).toBe('hidden');
    await vi.waitFor(() => expect(replace).toHaveBeenCalledWith('/sign-in?next=%2Fapp%2Fexplore'));
    expect(document.documentElement.style.visibility).toBe('hidden');
  });

  it('shows again and refreshes its data for the same person; loads afresh for another', async () => {
    const fake = await setUp(sessionUser());
    const syncs = () => fake.request.mock.calls.filter(([path]) => path === '/api/me/sync').length;
    const before = syncs();
    act(() => restore());
    await vi.waitFor(() => expect(document.documentElement.style.visibility).toBe(''));
    await vi.waitFor(() => expect(syncs()).toBe(before + 1));
    expect(replace).not.toHaveBeenCalled();

    vi.mocked(fake.backend.identity.loadUser).mockResolvedValue(sessionUser({ id: 'someone-else' }));
    act(() => restore());
    await vi.waitFor(() => expect(reload).toHaveBeenCalledOnce());
  });

  it('ignores an ordinary page show', async () => {
    const fake = await setUp(null);
    const asked = vi.mocked(fake.backend.identity.loadUser).mock.calls.length;
    act(() => {
      window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: false }));
    });
    expect(document.documentElement.style.visibility).toBe('');
    expect(vi.mocked(fake.backend.identity.loadUser).mock.calls.length).toBe(asked);
  });
});
