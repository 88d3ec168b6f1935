// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppProviders, createQueryClient } from '@/app/providers';
import { RequireAuth } from '@/app/require-auth';
import { AppLayout } from '@/app/shell/app-layout';
import { fakeBackend, me } from '../support/fake-backend';

function renderApp() {
  const fake = fakeBackend({ routes: { '/api/me/sync': () => me({ credits: 1510 }) } });
  render(
    <AppProviders backend={fake.backend} queryClient={createQueryClient()}>
      <MemoryRouter initialEntries={['/app/explore']}>
        <Routes>
          <Route
            path="/app"
            element={
              <RequireAuth>
                <AppLayout />
              </RequireAuth>
            }
          >
            <Route path="explore" element={<p>explore page</p>} />
            <Route path="profile" element={<p>profile page</p>} />
            <Route path="subscription" element={<p>subscription page</p>} />
            <Route path="credits" element={<p>credits page</p>} />
          </Route>
        </Routes>
      </MemoryRouter>
    </AppProviders>,
  );
  return fake;
}

/** The account menu's button in the desktop sidebar or the phone's top bar (both are in the page; CSS shows one). */
async function trigger(where: 'sidebar' | 'top bar') {
  await screen.findByText('explore page');
  const place = where === 'sidebar' ? screen.getByTestId('sidebar') : screen.getByRole('banner');
  return within(place).getByRole('button', { name: 'Account menu: Jamie Rivera' });
}

let assign: ReturnType<typeof vi.fn>;
beforeEach(() => {
  assign = vi.fn();
  vi.spyOn(window, 'location', 'get').mockReturnValue({ ...window.location, assign } as Location);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('the account menu', () => {
  for (const where of ['sidebar', 'top bar'] as const) {
    it(`opens from the avatar in the ${where}: Profile, Credits, Subscription, Sign out, under who it is`, async () => {
      renderApp();
      const user = userEvent.setup();
      const button = await trigger(where);
      expect(button).toHaveAttribute('aria-haspopup', 'menu');
      await user.click(button);
      const menu = await screen.findByRole('menu');
      expect(menu).toHaveTextContent('jamie@example.com');
      expect(
        within(menu)
          .getAllByRole('menuitem')
          .map((item) => item.textContent),
      ).toEqual(['Profile', 'Credits · 1,510', 'Subscription', 'Sign out']);
      await user.click(within(menu).getByRole('menuitem', { name: 'Subscription' }));
      expect(await screen.findByText('subscription page')).toBeInTheDocument();
      expect(screen.queryByRole('menu')).not.toBeInTheDocument();
      await user.click(button);
      await user.click(await screen.findByRole('menuitem', { name: /^Credits/ }));
      expect(await screen.findByText('credits page')).toBeInTheDocument();
    });
  }

  it('Sign out is the app’s one sign-out: the session ends and the page goes home', async () => {
    const fake = renderApp();
    const user = userEvent.setup();
    await user.click(await trigger('top bar'));
    await user.click(await screen.findByRole('menuitem', { name: 'Sign out' }));
    await waitFor(() => expect(assign.mock.calls).toEqual([['/']]));
    expect(fake.backend.identity.signOut).toHaveBeenCalledOnce();
  });

  it('works from the keyboard: Enter opens it on Profile, arrows move, Escape closes it back onto the avatar', async () => {
    renderApp();
    const user = userEvent.setup();
    const button = await trigger('sidebar');
    button.focus();
    await user.keyboard('{Enter}');
    const menu = await screen.findByRole('menu');
    await waitFor(() => expect(within(menu).getByRole('menuitem', { name: 'Profile' })).toHaveFocus());
    await user.keyboard('{ArrowDown}{ArrowDown}');
    expect(within(menu).getByRole('menuitem', { name: 'Subscription' })).toHaveFocus();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('menu')).not.toBeInTheDocument());
    expect(button).toHaveFocus();
  });

  it('keeps the sidebar open under the menu while the pointer is in the menu', async () => {
    renderApp();
    const user = userEvent.setup();
    await user.click(await trigger('sidebar'));
    const sidebar = screen.getByTestId('sidebar');
    await screen.findByRole('menu');
    fireEvent.pointerLeave(sidebar);
    fireEvent.blur(sidebar);
    expect(sidebar).toHaveAttribute('data-open', 'true');
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('menu')).not.toBeInTheDocument());
  });
});
