// @vitest-environment jsdom
/**
 * The hosted build's identity: Clerk's REAL React SDK (@clerk/react, pinned at 6.18.0) driven offline
 * through ClerkProvider's `Clerk` prop by a small fake of clerk-js (tests/helpers/fake-clerk.ts) whose
 * session tokens are real RS256 JWTs. The user sync goes through the real supabase-js to a PostgREST
 * answered by MSW, so what it sends (token, columns, values) is checked as it leaves.
 *
 * What this does NOT cover: Clerk's hosted sign-in and sign-up UI (<SignIn>, <SignUp> render from Clerk's
 * servers), clerk-js's own loading, cookies and token refresh; the real PostgREST (tests/server/
 * hosted-adapter.test.ts runs the same adapter against the offline Supabase stack with real Postgres + RLS).
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import userEvent from '@testing-library/user-event';
import { act, cleanup, render, screen } from '@testing-library/react';
import { Link, MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { ClerkProvider, useAuth, useClerk, useUser, type ClerkProp } from '@clerk/react';
import { importSPKI, jwtVerify } from 'jose';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { HostedSession } from '@/app/clerk-session';
import { HostedModeSession } from '@/app/hosted-mode';
import { RequireAuth } from '@/app/require-auth';
import { createClerkIdentity, IDENTITY_SERVICE_UNAVAILABLE, type ClerkLike } from '@/backend/hosted/clerk-identity';
import { ClerkAuthScreen } from '@/features/auth/components/clerk-auth-screen';
import type { HostedConfig } from '@/backend/hosted/hosted-config';
import { useMe, useSessionUser } from '@/session/api';
import { createClerkTestKeys, TEST_PUBLISHABLE_KEY } from '../helpers/clerk';
import { createFakeClerk, type FakeClerkUser } from '../helpers/fake-clerk';

const CLERK_REACT_VERSION = '6.18.0';
const SUPABASE = 'https://project.supabase.test';
const config: HostedConfig = {
  publishableKey: TEST_PUBLISHABLE_KEY,
  supabaseUrl: SUPABASE,
  supabaseAnonKey: 'anon-key',
  apiUrl: 'https://api.likeness.test',
};
const keys = createClerkTestKeys();
const ada: FakeClerkUser = {
  id: 'user_ada',
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  imageUrl: 'https://img.clerk.com/ada.png',
};

const mswServer = setupServer();
beforeAll(() => mswServer.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  cleanup();
  mswServer.resetHandlers();
});
afterAll(() => mswServer.close());

/** Who a request to Supabase runs as: the `sub` of its verified bearer token, or null. */
async function subOf(request: Request): Promise<string | null> {
  const token = request.headers.get('authorization')?.replace(/^Bearer /, '');
  if (!token || token === config.supabaseAnonKey) return null;
  const { payload } = await jwtVerify(token, await importSPKI(keys.publicKeyPem, 'RS256'));
  return payload.sub ?? null;
}

/** PostgREST's answers to the user sync of a person with no users row yet: lookup 406 PGRST116, insert 201. */
function newPersonSync(seen: { sub: string | null; body: unknown }[]) {
  mswServer.use(
    http.get(`${SUPABASE}/rest/v1/users`, async ({ request }) => {
      seen.push({ sub: await subOf(request), body: null });
      return HttpResponse.json(
        {
          code: 'PGRST116',
          details: 'The result contains 0 rows',
          hint: null,
          message: 'JSON object requested, multiple (or no) rows returned',
        },
        { status: 406 },
      );
    }),
    http.post(`${SUPABASE}/rest/v1/users`, async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      seen.push({ sub: await subOf(request), body });
      return HttpResponse.json(
        {
          id: '6f1f7c1e-0000-4000-8000-000000000001',
          ...body,
          updated_at: '2026-11-23T08:00:00+00:00',
          subscription_status: null,
          subscription_plan: null,
          creem_customer_id: null,
        },
        { status: 201 },
      );
    }),
  );
}

function Probe() {
  const me = useMe();
  return (
    <p>
      signed in as {me.full_name} ({me.email}), {me.credits} credits, picture {me.image_url}
    </p>
  );
}

function renderHosted(clerk: ReturnType<typeof createFakeClerk>['clerk'], path = '/app/explore') {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <HostedSession config={config} clerk={clerk as unknown as ClerkProp}>
        <Routes>
          <Route path="/sign-in/*" element={<p>sign-in page</p>} />
          <Route
            path="/app/*"
            element={
              <RequireAuth>
                <Probe />
              </RequireAuth>
            }
          />
        </Routes>
      </HostedSession>
    </MemoryRouter>,
  );
}

describe('the fake Clerk object drives the real @clerk/react (contract)', () => {
  it(`is checked against @clerk/react ${CLERK_REACT_VERSION}, the version it was written for`, () => {
    const pkg = JSON.parse(readFileSync('node_modules/@clerk/react/package.json', 'utf8')) as { version: string };
    expect(pkg.version).toBe(CLERK_REACT_VERSION);
  });

  it('useAuth, useUser and getToken see its user, session and real session tokens; signOut ends the session', async () => {
    const fake = createFakeClerk({ keys, user: ada });
    let identity: ReturnType<typeof createClerkIdentity> | undefined;
    function Hooks() {
      const auth = useAuth();
      const { user } = useUser();
      identity = createClerkIdentity(useClerk() as unknown as ClerkLike);
      return (
        <p>
          {auth.isLoaded
            ? `loaded ${auth.isSignedIn ? `in as ${auth.userId} (${user?.fullName}) in ${auth.sessionId}` : 'out'}`
            : 'loading'}
        </p>
      );
    }
    render(
      <ClerkProvider publishableKey={TEST_PUBLISHABLE_KEY} Clerk={fake.clerk as unknown as ClerkProp}>
        <Hooks />
      </ClerkProvider>,
    );
    expect(await screen.findByText('loaded in as user_ada (Ada Lovelace) in sess_user_ada')).toBeInTheDocument();

    expect(await identity!.loadUser()).toEqual({
      id: 'user_ada',
      fullName: 'Ada Lovelace',
      firstName: 'Ada',
      lastName: 'Lovelace',
      imageUrl: 'https://img.clerk.com/ada.png',
      primaryEmailAddress: { emailAddress: 'ada@example.com' },
      emailAddresses: [{ emailAddress: 'ada@example.com' }],
      createdAt: '2026-02-03T04:05:06.000Z',
    });
    const token = await identity!.getToken();
    const { payload } = await jwtVerify(token!, await importSPKI(keys.publicKeyPem, 'RS256'));
    expect(payload).toMatchObject({ sub: 'user_ada', sid: 'sess_user_ada', role: 'authenticated', v: 2 });

    await act(() => identity!.signOut());
    expect(fake.signOuts()).toBe(1);
    expect(await screen.findByText('loaded out')).toBeInTheDocument();
    expect(await identity!.getToken()).toBeNull();
  });
});

describe('hosted session guard and user sync (product §2, §4, §8)', () => {
  it('sends a signed-out visitor to /sign-in', async () => {
    renderHosted(createFakeClerk({ keys, user: null }).clerk);
    expect(await screen.findByText('sign-in page')).toBeInTheDocument();
  });

  it('syncs the users row through Supabase as the Clerk user: lookup by clerk_id, then insert with credits 0', async () => {
    const seen: { sub: string | null; body: unknown }[] = [];
    newPersonSync(seen);
    renderHosted(createFakeClerk({ keys, user: ada }).clerk);
    expect(
      await screen.findByText('signed in as Ada Lovelace (ada@example.com), 0 credits, picture https://img.clerk.com/ada.png'),
    ).toBeInTheDocument();
    expect(seen).toEqual([
      { sub: 'user_ada', body: null },
      { sub: 'user_ada', body: { clerk_id: 'user_ada', email: 'ada@example.com', full_name: 'Ada Lovelace', credits: 0 } },
    ]);
  });

  it("shows 'Error initializing user: Failed to get authentication token' with Try Again when Clerk gives no token, and asks Supabase nothing", async () => {
    const asked: string[] = [];
    const record = ({ request }: { request: Request }) => asked.push(request.url);
    mswServer.events.on('request:start', record);
    renderHosted(createFakeClerk({ keys, user: ada, getToken: async () => null }).clerk);
    expect(await screen.findByText('Error initializing user: Failed to get authentication token')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeInTheDocument();
    mswServer.events.removeListener('request:start', record);
    expect(asked).toEqual([]);
  });

  it('shows the data store’s message when the lookup fails with anything but PGRST116', async () => {
    mswServer.use(
      http.get(`${SUPABASE}/rest/v1/users`, () =>
        HttpResponse.json({ code: 'PGRST303', details: null, hint: null, message: 'JWT expired' }, { status: 401 }),
      ),
    );
    renderHosted(createFakeClerk({ keys, user: ada }).clerk);
    expect(await screen.findByText('Error initializing user: JWT expired')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeInTheDocument();
  });
});

describe('the hosted build loads Clerk only where it is needed', () => {
  afterEach(() => {
    document.cookie = '__client_uat=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
  });

  function Visitor() {
    const session = useSessionUser();
    return (
      <>
        <p>{session.isPending ? 'checking' : session.data ? `signed in as ${session.data.fullName}` : 'signed out'}</p>
        <Link to="/sign-in">Sign in</Link>
      </>
    );
  }

  function renderPublic(clerk: ReturnType<typeof createFakeClerk>) {
    render(
      <MemoryRouter initialEntries={['/']}>
        <HostedModeSession config={config} clerk={clerk.clerk as unknown as ClerkProp}>
          <Routes>
            <Route path="/" element={<Visitor />} />
            <Route path="/sign-in/*" element={<Visitor />} />
          </Routes>
        </HostedModeSession>
      </MemoryRouter>,
    );
  }

  it('a first-time visitor of the public pages is signed out without Clerk; the sign-in page brings Clerk in', async () => {
    const fake = createFakeClerk({ keys, user: ada });
    // ClerkProvider subscribes to Clerk as soon as it mounts: no subscription means Clerk was never brought in.
    const subscribed = vi.spyOn(fake.clerk, 'addListener');
    renderPublic(fake);
    expect(await screen.findByText('signed out')).toBeInTheDocument();
    expect(subscribed).not.toHaveBeenCalled();

    await userEvent.click(screen.getByRole('link', { name: 'Sign in' }));
    // Clerk's session (here the fake's signed-in user) now answers.
    expect(await screen.findByText('signed in as Ada Lovelace')).toBeInTheDocument();
    expect(subscribed).toHaveBeenCalled();
  });

  it('a visitor whose browser holds a Clerk session (__client_uat set) gets Clerk on the public pages too', async () => {
    document.cookie = '__client_uat=1763884800';
    renderPublic(createFakeClerk({ keys, user: ada }));
    expect(await screen.findByText('signed in as Ada Lovelace')).toBeInTheDocument();
  });

  it('__client_uat=0 (signed out in this browser) keeps Clerk away', async () => {
    document.cookie = '__client_uat=0';
    const fake = createFakeClerk({ keys, user: ada });
    const subscribed = vi.spyOn(fake.clerk, 'addListener');
    renderPublic(fake);
    expect(await screen.findByText('signed out')).toBeInTheDocument();
    expect(subscribed).not.toHaveBeenCalled();
  });
});

/** Where in the app a visitor landed. */
function AppAt() {
  return <p>the app at {useLocation().pathname}</p>;
}

describe('the sign-in page while Clerk loads and when it cannot', () => {
  function renderSignIn(clerk: ReturnType<typeof createFakeClerk>['clerk'], path = '/sign-in') {
    render(
      <MemoryRouter initialEntries={[path]}>
        <HostedSession config={config} clerk={clerk as unknown as ClerkProp}>
          <Routes>
            <Route path="/sign-in/*" element={<ClerkAuthScreen mode="sign-in" />} />
            <Route path="/app/*" element={<AppAt />} />
          </Routes>
        </HostedSession>
      </MemoryRouter>,
    );
  }

  it('sends someone already signed in on to the app (or the page that sent them), not to a second sign-in', async () => {
    renderSignIn(createFakeClerk({ keys, user: ada }).clerk, '/sign-in?next=%2Fapp%2Fexplore');
    expect(await screen.findByText('the app at /app/explore')).toBeInTheDocument();
    expect(screen.queryByRole('form', { name: 'Sign in' })).not.toBeInTheDocument();
  });

  it('shows that sign-in is loading while clerk-js loads', async () => {
    const { clerk } = createFakeClerk({ keys, user: null });
    clerk.loaded = false;
    clerk.load = () => new Promise<void>(() => {});
    renderSignIn(clerk);
    expect(await screen.findByRole('status', { name: 'Loading sign-in' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('says the sign-in service could not be loaded, with Try Again, instead of a blank page', async () => {
    const { clerk } = createFakeClerk({ keys, user: null });
    clerk.loaded = false;
    clerk.load = () => Promise.reject(new Error('clerk-js script blocked'));
    // @clerk/react reports the failure on the console itself.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    renderSignIn(clerk);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(IDENTITY_SERVICE_UNAVAILABLE);
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeInTheDocument();
    expect(screen.queryByRole('status', { name: 'Loading sign-in' })).not.toBeInTheDocument();
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('clerk-js script blocked'));
    logged.mockRestore();
  });
  // Last in the file: the page's watch over Clerk's scripts stays failed once it has seen a violation.
  it('says so at once when the browser reports a CSP violation for the Frontend API host, and names it on the console', async () => {
    const { clerk } = createFakeClerk({ keys, user: null });
    clerk.loaded = false;
    clerk.load = () => new Promise<void>(() => {});
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    renderSignIn(clerk);
    expect(await screen.findByRole('status', { name: 'Loading sign-in' })).toBeInTheDocument();
    // Another host's violation is not Clerk's.
    const violation = (blockedURI: string) =>
      Object.assign(new Event('securitypolicyviolation'), { blockedURI, effectiveDirective: 'script-src-elem' });
    act(() => void document.dispatchEvent(violation('https://elsewhere.example/x.js')));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    act(
      () => void document.dispatchEvent(violation('https://fake-instance.clerk.accounts.dev/npm/@clerk/clerk-js@6/dist/clerk.browser.js')),
    );
    expect(screen.getByRole('alert')).toHaveTextContent(IDENTITY_SERVICE_UNAVAILABLE);
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeInTheDocument();
    expect(screen.queryByRole('status', { name: 'Loading sign-in' })).not.toBeInTheDocument();
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('blocked fake-instance.clerk.accounts.dev'));
    logged.mockRestore();
  });
});
