// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppProviders, createQueryClient } from '@/app/providers';
import type { ConnectionStatus, EventsPort } from '@/backend/local/events';
import { sessionUserKey, useSignOut } from '@/session/api';
import { useLiveUserRecord } from '@/session/use-realtime';
import { localBackendOver, sessionUser, stubIdentity } from '../support/fake-backend';

/** An event stream whose connection status the test sets, as the server ending the stream with its session. */
function drivenStream() {
  const statuses = new Set<(s: ConnectionStatus) => void>();
  const events: EventsPort = {
    subscribe(_onEvent, onStatus) {
      if (onStatus) statuses.add(onStatus);
      onStatus?.('open');
      return () => onStatus && statuses.delete(onStatus);
    },
  };
  return { events, setStatus: (s: ConnectionStatus) => statuses.forEach((fn) => fn(s)) };
}

function SignedInPage() {
  useLiveUserRecord();
  const signOut = useSignOut();
  return <button onClick={() => void signOut()}>Sign Out</button>;
}

function renderSignedIn(identity = stubIdentity(), stream = drivenStream()) {
  const queryClient = createQueryClient();
  queryClient.setQueryData(sessionUserKey, sessionUser());
  const backend = localBackendOver(vi.fn(), { identity, events: stream.events });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <AppProviders backend={backend} queryClient={queryClient}>
      {children}
    </AppProviders>
  );
  render(<SignedInPage />, { wrapper });
  return Object.assign(stream, { queryClient });
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

// In this order: the page's own Sign Out is for good (the page is replaced), as in the browser.
describe('the session ending', () => {
  it('elsewhere (another tab, a password change) takes the page to sign-in', () => {
    const stream = renderSignedIn();
    act(() => stream.setStatus('signed-out'));
    expect(assign.mock.calls).toEqual([['/sign-in']]);
  });

  it('by this page’s Sign Out goes home only, even when the event stream ends first', async () => {
    const stream = drivenStream();
    // The server closes the stream with the session, before the sign-out request has answered.
    const identity = { ...stubIdentity(), signOut: vi.fn(async () => stream.setStatus('signed-out')) };
    renderSignedIn(identity, stream);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign Out' }));
    expect(identity.signOut).toHaveBeenCalledOnce();
    expect(assign.mock.calls).toEqual([['/']]);
  });

  it('by this page’s Sign Out drops the cached data as the page is put away (the browser may keep it for Back)', async () => {
    const { queryClient } = renderSignedIn();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign Out' }));
    expect(assign.mock.calls).toEqual([['/']]);
    // Still there while the signed-in page may render; gone once the page is hidden for the next one.
    expect(queryClient.getQueryData(sessionUserKey)).toBeTruthy();
    act(() => {
      window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true }));
    });
    expect(queryClient.getQueryCache().getAll()).toEqual([]);
  });
});
