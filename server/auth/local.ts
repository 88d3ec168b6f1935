import { betterAuth } from 'better-auth';
import { drizzleAdapter } from 'better-auth/adapters/drizzle';
import { APIError, createAuthMiddleware, isAPIError } from 'better-auth/api';
import { mailRequestSchema, resetPasswordSchema, signInFieldsSchema, signUpFieldsSchema } from '@common/auth.ts';
import { TEXT_LIMITS } from '@common/text.ts';
import type { Db } from '../db/index.ts';
import { authAccounts, authSessions, authUsers, authVerifications } from '../db/schema.ts';
import { AppError } from '../http/errors.ts';
import { parseOrThrow } from '../http/validate.ts';
import type { Logger } from '../logger.ts';
import type { Identity, IdentityProvider } from './identity.ts';
import type { SignInGuard } from './sign-in-guard.ts';

/**
 * The caller's address as the server worked it out (server/http/client-address.ts), handed to better-auth on
 * this header. The auth routes always overwrite it, so a client cannot choose it.
 */
export const CLIENT_ADDRESS_HEADER = 'x-likeness-client-address';

export interface LocalIdentityOptions {
  db: Db;
  secret: string;
  publicUrl?: string;
  secureCookies: boolean;
  allowedOrigins: (request?: Request) => string[];
  signInGuard: SignInGuard;
  /**
   * Writes a reset or verification message to the mail outbox (server/services/mail.service.ts); the sender
   * delivers it. Never talks to a mail server, so the request is as fast whether or not SMTP is up.
   */
  accountMail: (kind: 'password-reset' | 'verify-email', to: string, token: string) => Promise<void>;
  logger: Logger;
}

/** Requests that send account mail: counted per e-mail and address like sign-ins (docs/decisions/007). */
const MAIL_REQUESTS = new Set(['/request-password-reset', '/send-verification-email']);
/** The reset link works for one hour; the verification link for a day (people open it later). */
export const RESET_TOKEN_SECONDS = 60 * 60;
export const VERIFY_TOKEN_SECONDS = 24 * 60 * 60;

/** The guard's and the parser's refusals are AppErrors; inside better-auth they must be APIErrors to become answers. */
async function asApiError<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AppError) throw new APIError(err.status as never, { message: err.message, code: err.code.toUpperCase() });
    throw err;
  }
}

/** Built-in email and password accounts (better-auth); sessions are HttpOnly, SameSite=Lax cookies. */
export function createLocalIdentity(opts: LocalIdentityOptions): IdentityProvider {
  const guard = opts.signInGuard;
  const auth = betterAuth({
    appName: 'Likeness',
    secret: opts.secret,
    baseURL: opts.publicUrl,
    basePath: '/api/auth',
    database: drizzleAdapter(opts.db, {
      provider: 'pg',
      schema: { user: authUsers, session: authSessions, account: authAccounts, verification: authVerifications },
    }),
    emailAndPassword: {
      enabled: true,
      autoSignIn: true,
      minPasswordLength: TEXT_LIMITS.passwordMin,
      maxPasswordLength: TEXT_LIMITS.passwordMax,
      // 'Forgot password?': a single-use link (the token is consumed in the transaction that sets the password)
      // valid one hour; setting the password signs every session of the account out.
      resetPasswordTokenExpiresIn: RESET_TOKEN_SECONDS,
      revokeSessionsOnPasswordReset: true,
      sendResetPassword: async ({ user, token }) => {
        await opts.accountMail('password-reset', user.email, token);
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      expiresIn: VERIFY_TOKEN_SECONDS,
      sendVerificationEmail: async ({ user, token }) => {
        await opts.accountMail('verify-email', user.email, token);
      },
    },
    // Reset tokens are kept as hashes: a copy of the database holds no working link.
    verification: { storeIdentifier: 'hashed' },
    session: { expiresIn: 60 * 60 * 24 * 30, updateAge: 60 * 60 * 24 },
    // Sign-in attempts are limited by the sign-in guard (hooks below), shared by every instance through
    // the database and counted after better-auth has parsed the body, whatever its encoding.
    rateLimit: { enabled: false },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        // Absent on server-side calls (operator commands, test fixtures), which no guard needs to stop.
        const address = ctx.request?.headers.get(CLIENT_ADDRESS_HEADER);
        if (ctx.path === '/sign-up/email') {
          // Parsed after better-auth has read the body (JSON or form-encoded); a 400 names the field.
          const fields = await asApiError(() => parseOrThrow(signUpFieldsSchema, ctx.body ?? {}));
          // Its dictionaries load on the first sign-up, not at every start.
          const { passwordProblem } = await import('@common/password.ts');
          const problem = passwordProblem(fields.password, [fields.email, fields.name]);
          if (problem) throw new APIError('BAD_REQUEST', { message: problem, code: 'WEAK_PASSWORD' });
          if (address) await asApiError(() => guard.admitSignUp(address));
        } else if (ctx.path === '/sign-in/email') {
          const fields = await asApiError(() => parseOrThrow(signInFieldsSchema, ctx.body ?? {}));
          if (address) await asApiError(() => guard.admit(fields.email.toLowerCase(), address));
        } else if (MAIL_REQUESTS.has(ctx.path)) {
          const fields = await asApiError(() => parseOrThrow(mailRequestSchema, ctx.body ?? {}));
          if (address) await asApiError(() => guard.admitMailRequest(fields.email.toLowerCase(), address));
        } else if (ctx.path === '/reset-password') {
          // The password rule of sign-up, before the token is looked at (a weak password changes nothing).
          const fields = await asApiError(() => parseOrThrow(resetPasswordSchema, ctx.body ?? {}));
          const { passwordProblem } = await import('@common/password.ts');
          const problem = passwordProblem(fields.newPassword, []);
          if (problem) throw new APIError('BAD_REQUEST', { message: problem, code: 'WEAK_PASSWORD' });
        }
      }),
      after: createAuthMiddleware(async (ctx) => {
        const address = ctx.request?.headers.get(CLIENT_ADDRESS_HEADER);
        if (ctx.path !== '/sign-in/email' || !address) return;
        const email = String((ctx.body as { email?: unknown } | undefined)?.email ?? '').trim().toLowerCase();
        await guard.settle(email, address, !isAPIError(ctx.context.returned));
      }),
    },
    trustedOrigins: (request) => opts.allowedOrigins(request),
    advanced: {
      cookiePrefix: 'likeness',
      useSecureCookies: opts.secureCookies,
      defaultCookieAttributes: { httpOnly: true, sameSite: 'lax', secure: opts.secureCookies },
      // Sessions record the same address the limits use, never a client-written X-Forwarded-For entry.
      ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] },
    },
    telemetry: { enabled: false },
    // Its messages go into the server's log, structured like every other line, not to the console. Errors of
    // its API are thrown back to us instead of printed: a refusal (a malformed body, a wrong password) is
    // still answered by better-auth, an unexpected failure reaches the app's error handler (logged, generic 500).
    logger: { level: 'error', log: (level, message, ...args) => opts.logger[level]({ auth: args }, `better-auth: ${message}`) },
    onAPIError: { throw: true },
  });

  const toIdentity = (user: { id: string; email: string; name: string; image?: string | null; createdAt: Date; emailVerified?: boolean }): Identity => ({
    id: user.id,
    emailVerified: Boolean(user.emailVerified),
    email: user.email,
    fullName: user.name?.trim() || null,
    imageUrl: user.image ?? null,
    createdAt: new Date(user.createdAt).toISOString(),
  });

  return {
    name: 'local',
    transport: 'cookie',
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
