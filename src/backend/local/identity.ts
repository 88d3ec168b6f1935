import type { IdentityPort, SessionUser } from '../port';
import { ApiError } from '../api-error';
import { askedAtOnce } from './asked-at-once';

interface AuthSession {
  session: { token: string };
  user: { id: string; name: string; email: string; image?: string | null; createdAt: string; emailVerified?: boolean };
}

async function authFetch(path: string, body?: unknown): Promise<Response> {
  return fetch(`/api/auth${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

function toSessionUser(u: AuthSession['user']): SessionUser {
  const fullName = u.name?.trim() || null;
  const [firstName, ...rest] = fullName?.split(/\s+/) ?? [];
  return {
    id: u.id,
    fullName,
    firstName: firstName ?? null,
    lastName: rest.length ? rest.join(' ') : null,
    imageUrl: u.image ?? null,
    primaryEmailAddress: u.email ? { emailAddress: u.email } : null,
    emailAddresses: u.email ? [{ emailAddress: u.email }] : [],
    createdAt: u.createdAt,
    emailVerified: Boolean(u.emailVerified),
  };
}

/**
 * Built-in accounts served by the product's own server under /api/auth. With `loadAtOnce`, the session is asked
 * for as the page opens (askedAtOnce).
 */
export function createLocalIdentity({ loadAtOnce = false } = {}): IdentityPort {
  let cached: AuthSession | null = null;

  async function session(): Promise<AuthSession | null> {
    const res = await authFetch('/get-session');
    if (!res.ok) throw await ApiError.from(res);
    cached = (await res.json()) as AuthSession | null;
    return cached;
  }

  async function post(path: string, body: unknown): Promise<void> {
    const res = await authFetch(path, body);
    if (!res.ok) throw await ApiError.from(res);
    cached = null;
  }

  const firstSession = askedAtOnce(session, loadAtOnce);

  return {
    async loadUser() {
      const s = await firstSession();
      return s ? toSessionUser(s.user) : null;
    },
    async getToken() {
      return (cached ?? (await session()))?.session.token ?? null;
    },
    signIn: (input) => post('/sign-in/email', input),
    // The library's callbackURL field carries where the confirmation link leads (server/auth/local.ts).
    signUp: ({ next, ...input }) => post('/sign-up/email', next ? { ...input, callbackURL: next } : input),
    signOut: () => post('/sign-out', {}),
    changePassword: (input) => post('/change-password', input),
    requestPasswordReset: (email) => post('/request-password-reset', { email }),
    resetPassword: (input) => post('/reset-password', input),
    sendVerificationEmail: (email) => post('/send-verification-email', { email, callbackURL: '/verify-email' }),
  };
}
