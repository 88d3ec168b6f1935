import { betterAuth } from 'better-auth';
import { drizzleAdapter } from 'better-auth/adapters/drizzle';
import type { Db } from '../db/index.ts';
import { authAccounts, authSessions, authUsers, authVerifications } from '../db/schema.ts';
import type { Identity, IdentityProvider } from './identity.ts';

export interface LocalIdentityOptions {
  db: Db;
  secret: string;
  publicUrl?: string;
  secureCookies: boolean;
  allowedOrigins: (request?: Request) => string[];
}

/** Built-in email and password accounts (better-auth); sessions are HttpOnly, SameSite=Lax cookies. */
export function createLocalIdentity(opts: LocalIdentityOptions): IdentityProvider {
  const auth = betterAuth({
    appName: 'Likeness',
    secret: opts.secret,
    baseURL: opts.publicUrl,
    basePath: '/api/auth',
    database: drizzleAdapter(opts.db, {
      provider: 'pg',
      schema: { user: authUsers, session: authSessions, account: authAccounts, verification: authVerifications },
    }),
    emailAndPassword: { enabled: true, autoSignIn: true, minPasswordLength: 8, maxPasswordLength: 128 },
    session: { expiresIn: 60 * 60 * 24 * 30, updateAge: 60 * 60 * 24 },
    // Sign-in attempts are limited by our own middleware, shared by every instance through the database.
    rateLimit: { enabled: false },
    trustedOrigins: (request) => opts.allowedOrigins(request),
    advanced: {
      cookiePrefix: 'likeness',
      useSecureCookies: opts.secureCookies,
      defaultCookieAttributes: { httpOnly: true, sameSite: 'lax', secure: opts.secureCookies },
    },
    telemetry: { enabled: false },
    logger: { level: 'error' },
  });

  const toIdentity = (user: { id: string; email: string; name: string; image?: string | null; createdAt: Date }): Identity => ({
    id: user.id,
    email: user.email,
    fullName: user.name?.trim() || null,
    imageUrl: user.image ?? null,
    createdAt: new Date(user.createdAt).toISOString(),
  });

  return {
    name: 'local',
    async identify(headers) {
      const session = await auth.api.getSession({ headers });
      return session ? toIdentity(session.user) : null;
    },
    handle: (request) => auth.handler(request),
    async createUser(input) {
      const result = await auth.api.signUpEmail({ body: input });
      return toIdentity(result.user);
    },
  };
}
