import { betterAuth } from 'better-auth';
import { drizzleAdapter } from 'better-auth/adapters/drizzle';
import { APIError, createAuthMiddleware, createEmailVerificationToken, isAPIError } from 'better-auth/api';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  CHANGE_PASSWORD_MESSAGES,
  changePasswordFieldsSchema,
  mailRequestSchema,
  RESET_TOKEN_SECONDS,
  resetPasswordSchema,
  signInFieldsSchema,
  signUpFieldsSchema,
  VERIFY_TOKEN_SECONDS,
} from '@common/auth.ts';
import { ACCOUNT_TEXTS } from '@common/account.ts';
import { TEXT_LIMITS } from '@common/text.ts';
import type { Db, Executor } from '../db/index.ts';
import { authAccounts, authSessions, authUsers, authVerifications } from '../db/schema.ts';
import { AppError, badRequest, notFound, RateLimitedError, unauthorized } from '../domain/errors.ts';
import { parseOrThrow } from '../domain/validate.ts';
import { loginsRepository } from '../repositories/logins.repository.ts';
import { usersRepository } from '../repositories/users.repository.ts';
import type { Logger } from '../logger.ts';
import type { AccountMail } from '../mail/messages.tsx';
import { CLIENT_ADDRESS_HEADER, type Identity, type IdentityProvider } from './identity.ts';
import type { SignInGuard } from './sign-in-guard.ts';
import type { SessionsService } from '../services/sessions.service.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { createCallerCache } from './caller-cache.ts';

/**
 * The only routes of the auth library a client may reach (method and path under /api/auth); every other one
 * answers 404 (README, Security). 'Change password' is this server's own (changePassword below), in front of
 * the library's. A feature that needs another route (the e-mail issue's password reset) adds it here.
 */
export const OPEN_AUTH_ROUTES: ReadonlySet<string> = new Set([
  'GET /get-session', // the SPA reads who is signed in
  'POST /sign-up/email', // the sign-up form
  'POST /sign-in/email', // the sign-in form
  'POST /sign-out', // Sign Out (ends the session's event streams too)
  'POST /request-password-reset', // 'Forgot password?' (same answer for any address; limited like sign-ins)
  'POST /reset-password', // 'Set a new password' with the mailed single-use token (the sign-up rule)
  'POST /send-verification-email', // the banner's 'Send again' (limited like sign-ins)
  'GET /verify-email', // the confirmation link in the verification mail
]);

/** The reset mail's link, `GET /reset-password/<token>`, leads on to the 'Set a new password' page. */
const RESET_LINK = /^\/reset-password\/[A-Za-z0-9_-]+$/;

export const isOpenAuthRoute = (method: string, path: string) =>
  OPEN_AUTH_ROUTES.has(`${method} ${path}`) || (method === 'GET' && RESET_LINK.test(path));

export interface LocalIdentityOptions {
  db: Db;
  secret: string;
  publicUrl?: string;
  secureCookies: boolean;
  allowedOrigins: (request?: Request) => string[];
  signInGuard: SignInGuard;
  sessions: SessionsService;
  /** The sessions-ended notices that make the callers remembered by identifyCaller forgotten. */
  events: Pick<EventBus, 'onSessionsEnded' | 'deliveringSince'>;
  /**
   * Writes an account message (reset, confirmation, a sign-up attempt for a taken address) to the mail outbox
   * (server/services/mail.service.ts) in the transaction `tx`; the sender delivers it. Never talks to a mail
   * server, so the request is as fast whether or not SMTP is up.
   */
  accountMail: (tx: Executor, to: string, mail: AccountMail) => Promise<void>;
  /** The password hash the accounts use; better-auth's own scrypt unless given (tests count its calls). */
  passwordHashing?: PasswordHashing;
  logger: Logger;
}

export interface PasswordHashing {
  hash(password: string): Promise<string>;
  verify(input: { hash: string; password: string }): Promise<boolean>;
}

/** A session lasts 30 days and is extended to 30 days from now when used a day or more after its last extension. */
const SESSION_SECONDS = { expiresIn: 60 * 60 * 24 * 30, updateAge: 60 * 60 * 24 } as const;

/**
 * The session token of a signed session cookie (`<token>.<base64 HMAC-SHA256 of the token>`), read as
 * better-auth reads it (the first cookie of that name, quotes taken off, percent-decoded when it decodes, a
 * 44-character signature), or null when it is absent or its signature is not the server's.
 */
export function signedCookieValue(cookieHeader: string | null, name: string, secret: string): string | null {
  if (!cookieHeader) return null;
  let raw: string | undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      raw = part.slice(eq + 1).trim();
      break;
    }
  }
  if (!raw) return null;
  if (raw.codePointAt(0) === 34) raw = raw.slice(1, -1);
  let value = raw;
  try {
    value = decodeURIComponent(raw);
  } catch {
    // better-call keeps a value that does not decode as it is.
  }
  const dot = value.lastIndexOf('.');
  if (dot < 1) return null;
  const token = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(createHmac('sha256', secret).update(token).digest('base64'));
  return given.length === expected.length && timingSafeEqual(given, expected) ? token : null;
}

/** better-auth's log line for an address its origin check refused ('Invalid callbackURL: …', 'Invalid origin: …'). */
const REFUSED_ADDRESS = /^Invalid (callbackURL|redirectURL|errorCallbackURL|newUserCallbackURL|redirectTo|origin)\b/;

/** Requests that send account mail: counted per e-mail and address like sign-ins (docs/decisions/007). */
const MAIL_REQUESTS = new Set(['/request-password-reset', '/send-verification-email']);

/**
 * How a verification identifier is stored (SHA-256, base64url): the library's own 'hashed' scheme, named here
 * because the reset token's row is written by this file (see sendResetPassword), so both must agree.
 */
const hashVerificationIdentifier = async (identifier: string) => createHash('sha256').update(identifier).digest('base64url');
/** The library names a reset token's row `reset-password:<token>` (its request-password-reset route). */
const resetIdentifier = (token: string) => `reset-password:${token}`;

/** The address and name of the account a reset token belongs to, while the token is valid. */
async function resetTokenOwner(db: Db, token: string): Promise<{ email: string; name: string } | undefined> {
  return loginsRepository.verificationOwner(db, await hashVerificationIdentifier(resetIdentifier(token)));
}

/**
 * A sign-in of an account whose address is not confirmed yet, answered as a wrong password is (the library
 * answers 403 'not verified' once the password is right). Otherwise whoever signed up with an address could sign
 * in with the password they chose to learn whether the address was new. The owner confirms through the mailed
 * link, which signs them in, or asks for it again.
 */
async function answeredAsWrongPassword(response: Response): Promise<Response> {
  if (response.status !== 403) return response;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: string } | null;
  if (body?.code !== 'EMAIL_NOT_VERIFIED') return response;
  return Response.json({ message: 'Invalid email or password', code: 'INVALID_EMAIL_OR_PASSWORD' }, { status: 401 });
}

/**
 * 'Forgot password?' writes a token and its mail for an address with an account and nothing for one without (a
 * few milliseconds apart: `npm run bench -- auth-timing`), so its answer waits until this long after the request
 * came, whichever it was. The library does the same for 'Send again' (500 ms); the work is far shorter.
 */
const RESET_ANSWER_MS = 500;

async function answeredNoSoonerThan(ms: number, answer: () => Promise<Response>): Promise<Response> {
  const started = performance.now();
  const response = await answer();
  const left = ms - (performance.now() - started);
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  return response;
}

/**
 * Where a sign-up's confirmation link may lead on to: a page of the app (`/app/...`) the visitor came from, sent
 * as the library's callbackURL; anything else is dropped (the SPA checks it again before following it).
 */
const appLink = (value: unknown): string | undefined =>
  typeof value === 'string' && /^\/app\/[^\s\\]{0,500}$/.test(value) && !value.startsWith('//') ? value : undefined;

/**
 * A sign-up's confirmation link names the page after it as `/verify-email?next=<app page>` (the page that also
 * says when a link is not valid). Once the link has worked, its redirect goes to that app page itself: the new
 * person's first screen loads once, not after a page that only passes them on (issue 54, the first second).
 */
function straightToTheApp(response: Response): Response {
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) return response;
  const target = new URL(location, 'http://likeness.invalid');
  const next = appLink(target.searchParams.get('next'));
  if (target.pathname !== '/verify-email' || target.searchParams.has('error') || !next) return response;
  const headers = new Headers(response.headers);
  headers.set('location', next);
  return new Response(null, { status: 302, headers });
}

/** The guard's and the parser's refusals are AppErrors; inside better-auth they must be APIErrors to become answers. */
async function asApiError<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AppError) {
      const headers: Record<string, string> = err instanceof RateLimitedError ? { 'Retry-After': String(err.retryAfterSeconds) } : {};
      throw new APIError(err.status as never, { message: err.message, code: err.code.toUpperCase() }, headers);
    }
    throw err;
  }
}

/** Built-in email and password accounts (better-auth); sessions are HttpOnly, SameSite=Lax cookies. */
export function createLocalIdentity(opts: LocalIdentityOptions): IdentityProvider {
  const guard = opts.signInGuard;

  /**
   * Account mail is an outbox row, committed together with the token it carries (docs/decisions/015): a reset
   * token's row is written here, in the outbox row's transaction, never by the library on its own (the
   * verification hook below holds its insert back), so no token exists without its mail, nor a mail without
   * its token. Past the per-address limit neither is written.
   */
  async function accountMail(to: string, mail: AccountMail, tokenRow?: typeof authVerifications.$inferInsert): Promise<void> {
    if (!(await guard.mayMail(to))) {
      opts.logger.warn({ kind: mail.kind }, 'account mail not sent: too many for this address in this window');
      return;
    }
    await opts.db.transaction(async (tx) => {
      if (tokenRow) await loginsRepository.insertVerification(tx, tokenRow);
      await opts.accountMail(tx, to, mail);
    });
  }

  /**
   * The library's writes run in real transactions (`transaction: true` below), each on the handle recorded here,
   * so a hook of ours can write in the same one: a sign-up's user row and its confirmation mail commit together.
   */
  const libraryTransaction = new AsyncLocalStorage<Executor>();
  const libraryDb = Object.create(opts.db, {
    transaction: {
      value: ((run, config) => opts.db.transaction((tx) => libraryTransaction.run(tx, () => run(tx)), config)) as Db['transaction'],
    },
  }) as Db;

  /**
   * The confirmation mail of a new account, written in the sign-up's transaction before its user row (whose id
   * is chosen here so the signed token can name it, as the library's own token does): either both commit or
   * neither. Past the per-address limit the account is made without a mail, as before.
   */
  async function verificationMailAtSignUp(user: { email: string }, id: string, next: string | undefined): Promise<void> {
    const tx = libraryTransaction.getStore();
    if (!tx) throw new Error('a sign-up ran outside a transaction: its account could commit without its confirmation mail');
    if (!(await guard.mayMail(user.email, tx))) {
      opts.logger.warn({ kind: 'verify-email' }, 'account mail not sent: too many for this address in this window');
      return;
    }
    const token = await createEmailVerificationToken(opts.secret, user.email, undefined, VERIFY_TOKEN_SECONDS, { userId: id });
    await opts.accountMail(tx, user.email, { kind: 'verify-email', payload: { token, signUp: true, ...(next ? { next } : {}) } });
  }

  const auth = betterAuth({
    appName: 'Likeness',
    secret: opts.secret,
    baseURL: opts.publicUrl,
    basePath: '/api/auth',
    database: drizzleAdapter(libraryDb, {
      provider: 'pg',
      transaction: true,
      schema: { user: authUsers, session: authSessions, account: authAccounts, verification: authVerifications },
    }),
    emailAndPassword: {
      enabled: true,
      // Sign-up answers the same for a new and a taken address (docs/decisions/018): nobody is signed in by it,
      // a taken address hears nothing but its owner gets a mail (onExistingUserSignUp), and the library hashes the
      // password for a taken address too, as it does for a new one. A new account is signed in by its
      // confirmation link, and not before: a sign-in that worked before confirming would tell whoever just
      // signed up with someone's address that it was new.
      requireEmailVerification: true,
      autoSignIn: false,
      onExistingUserSignUp: async ({ user }) => {
        await accountMail(user.email, { kind: 'sign-up-attempt', payload: {} });
      },
      ...(opts.passwordHashing ? { password: opts.passwordHashing } : {}),
      minPasswordLength: TEXT_LIMITS.passwordMin,
      maxPasswordLength: TEXT_LIMITS.passwordMax,
      // 'Forgot password?': a single-use link (the token is consumed in the transaction that sets the password)
      // valid one hour; setting the password signs every session of the account out.
      resetPasswordTokenExpiresIn: RESET_TOKEN_SECONDS,
      revokeSessionsOnPasswordReset: true,
      // Revoked sessions' event streams end too, on every instance (the sessions-ended notice), and the account's
      // other reset links stop working: a link left in a mailbox must not set the password again. The link came
      // by mail to the sign-in address, so the address is confirmed too: an account someone else made with it
      // and never confirmed becomes its owner's, with the owner's password.
      onPasswordReset: async ({ user }) => {
        await loginsRepository.confirmEmail(opts.db, user.id);
        await usersRepository.forgetResetLinks(opts.db, user.id);
        await opts.sessions.sessionsEndedForAccount(user.id);
        await accountMail(user.email, { kind: 'password-changed', payload: { at: new Date().toISOString(), by: 'reset' } });
      },
      sendResetPassword: async ({ user, token }) => {
        const now = new Date();
        await accountMail(
          user.email,
          { kind: 'password-reset', payload: { token } },
          {
            id: randomBytes(24).toString('base64url'),
            identifier: await hashVerificationIdentifier(resetIdentifier(token)),
            value: user.id,
            expiresAt: new Date(now.getTime() + RESET_TOKEN_SECONDS * 1000),
            createdAt: now,
            updatedAt: now,
          },
        );
      },
    },
    emailVerification: {
      // At sign-up the mail is written in the account's own transaction (the user hook below); the library's
      // sending comes after its commit, too late for that.
      sendOnSignUp: false,
      // A sign-in of an unconfirmed account sends nothing: the work (and the answer) is that of a wrong password.
      sendOnSignIn: false,
      // The confirmation link of a new account signs it in (once: a confirmed address's link only leads on).
      autoSignInAfterVerification: true,
      expiresIn: VERIFY_TOKEN_SECONDS,
      // 'Send again' (the banner of a signed-in person, or 'Check your e-mail' after sign-up). The token is a
      // signed, expiring JWT the library stores nowhere: it exists only in the outbox row, so the row alone is
      // the whole of it (no token without its mail, nor the reverse). A link asked for while signed out leads on
      // into the app, as the sign-up's does.
      sendVerificationEmail: async ({ user, token }, request) => {
        const signedIn =
          request && (await auth.api.getSession({ headers: request.headers, query: { disableRefresh: true } }).catch(() => null));
        await accountMail(user.email, { kind: 'verify-email', payload: signedIn ? { token } : { token, signUp: true } });
      },
    },
    // Reset tokens are kept as hashes: a copy of the database holds no working link.
    verification: { storeIdentifier: { hash: hashVerificationIdentifier } },
    databaseHooks: {
      user: {
        create: {
          // Accounts are made only by sign-up; this runs in its transaction (verificationMailAtSignUp above).
          before: async (user, ctx) => {
            const id = ctx?.context.generateId({ model: 'user' }) || randomBytes(24).toString('base64url');
            await verificationMailAtSignUp(user, id, appLink((ctx?.body as { callbackURL?: unknown } | undefined)?.callbackURL));
            return { data: { ...user, id } };
          },
        },
      },
      verification: {
        create: {
          // The reset token's row is written with its mail, in one transaction (accountMail above): the
          // library's own insert, just before it calls sendResetPassword, is held back.
          before: async (_row, ctx) => (ctx?.path === '/request-password-reset' ? false : undefined),
        },
      },
    },
    session: SESSION_SECONDS,
    // Sign-in attempts are limited by the sign-in guard (hooks below), shared by every instance through
    // the database and counted after better-auth has parsed the body, whatever its encoding.
    rateLimit: { enabled: false },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        // Absent on server-side calls (operator commands, test fixtures), which no guard needs to stop.
        const address = ctx.request?.headers.get(CLIENT_ADDRESS_HEADER);
        if (ctx.path === '/sign-up/email') {
          // Every attempt counts, before anything is read from it: a malformed or weak one too.
          if (address) await asApiError(() => guard.admitSignUp(address));
          // Parsed after better-auth has read the body (JSON or form-encoded); a 400 names the field.
          const fields = await asApiError(() => parseOrThrow(signUpFieldsSchema, ctx.body ?? {}));
          // Its dictionaries load on the first sign-up, not at every start.
          const { passwordProblem } = await import('@common/password.ts');
          const problem = passwordProblem(fields.password, [fields.email, fields.name]);
          if (problem) throw new APIError('BAD_REQUEST', { message: problem, code: 'WEAK_PASSWORD' });
        } else if (ctx.path === '/sign-in/email') {
          const fields = await asApiError(() => parseOrThrow(signInFieldsSchema, ctx.body ?? {}));
          if (address) await asApiError(() => guard.admit(fields.email.toLowerCase(), address));
        } else if (MAIL_REQUESTS.has(ctx.path)) {
          const fields = await asApiError(() => parseOrThrow(mailRequestSchema, ctx.body ?? {}));
          if (address) await asApiError(() => guard.admitMailRequest(fields.email.toLowerCase(), address));
        } else if (ctx.path === '/reset-password') {
          // The password rule of sign-up, before the token is used (a weak password changes nothing): not the
          // account's own address or name either, read through the token; an unknown token is the library's to refuse.
          const fields = await asApiError(() => parseOrThrow(resetPasswordSchema, ctx.body ?? {}));
          const owner = fields.token ? await resetTokenOwner(opts.db, fields.token) : undefined;
          const { passwordProblem } = await import('@common/password.ts');
          const problem = passwordProblem(fields.newPassword, owner ? [owner.email, owner.name] : []);
          if (problem) throw new APIError('BAD_REQUEST', { message: problem, code: 'WEAK_PASSWORD' });
        }
      }),
      after: createAuthMiddleware(async (ctx) => {
        const address = ctx.request?.headers.get(CLIENT_ADDRESS_HEADER);
        if (ctx.path !== '/sign-in/email' || !address) return;
        const email = String((ctx.body as { email?: unknown } | undefined)?.email ?? '')
          .trim()
          .toLowerCase();
        await guard.settle(email, address, !isAPIError(ctx.context.returned));
      }),
    },
    trustedOrigins: (request) => opts.allowedOrigins(request),
    advanced: {
      // The library skips its origin and link-address checks when NODE_ENV is 'test' or TEST is set; they hold
      // in every environment, so a test server checks what a production one does.
      disableOriginCheck: false,
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
    // Its origin checks log each refused address (a visitor's input: any length, any bytes) as an error before
    // answering 403; those are a warning, cut short.
    logger: {
      level: 'error',
      log: (level, message, ...args) =>
        REFUSED_ADDRESS.test(message)
          ? opts.logger.warn({ auth: args }, `better-auth: ${JSON.stringify(message.slice(0, 200))}`)
          : opts.logger[level]({ auth: args }, `better-auth: ${message}`),
    },
    onAPIError: { throw: true },
  });

  const toIdentity = (user: {
    id: string;
    email: string;
    name: string;
    image?: string | null;
    createdAt: Date;
    emailVerified?: boolean;
  }): Identity => ({
    id: user.id,
    emailVerified: Boolean(user.emailVerified),
    email: user.email,
    fullName: user.name?.trim() || null,
    imageUrl: user.image ?? null,
    createdAt: new Date(user.createdAt).toISOString(),
  });

  /** 'Change password': the steps in the order that tells a guesser nothing (see changePassword below). */
  async function changePassword(headers: Headers, body: unknown): Promise<void> {
    const signedIn = await auth.api.getSession({ headers });
    if (!signedIn) throw unauthorized();
    const { user, session } = signedIn;
    const fields = parseOrThrow(changePasswordFieldsSchema, body);
    // The new password's rule first: its answer does not depend on the current password being right.
    const { passwordProblem } = await import('@common/password.ts');
    const problem = passwordProblem(fields.newPassword, [user.email, user.name]);
    if (problem) throw new AppError(400, 'WEAK_PASSWORD', problem);
    if (fields.newPassword === fields.currentPassword) throw badRequest(CHANGE_PASSWORD_MESSAGES.sameAsCurrent, 'same_password');
    await guard.admitPasswordCheck(user.id);
    const context = await auth.$context;
    const newHash = await context.password.hash(fields.newPassword);
    const person = await usersRepository.findBy(opts.db, { clerkId: user.id });
    const changed = await opts.db.transaction(async (tx) => {
      // The row lock makes parallel changes take turns: the second one checks against the new password.
      const account = await loginsRepository.passwordAccount(tx, user.id, { lock: true });
      const right = account?.password ? await context.password.verify({ hash: account.password, password: fields.currentPassword }) : false;
      if (!account || !right) return false;
      await loginsRepository.setPassword(tx, account.id, newHash);
      await usersRepository.forgetResetLinks(tx, user.id);
      // Told in the change's own transaction: the owner hears of every change that happened, and of no other.
      await opts.accountMail(tx, user.email, { kind: 'password-changed', payload: { at: new Date().toISOString(), by: 'profile' } });
      if (person) await opts.sessions.endSessions(person.id, { exceptSessionId: session.id, executor: tx });
      else await loginsRepository.deleteOtherSessions(tx, user.id, session.id);
      return true;
    });
    if (!changed) throw badRequest(CHANGE_PASSWORD_MESSAGES.wrongCurrent, 'wrong_password');
    await guard.passwordCheckPassed(user.id);
  }

  /**
   * 'Delete account': the caller's current password, checked as 'Change password' checks it and counted in the
   * same per-account limit of wrong ones (10 per 15 minutes, then 429 with the wait; a right one is taken back).
   */
  async function confirmPassword(accountId: string, password: string): Promise<void> {
    await guard.admitPasswordCheck(accountId);
    const context = await auth.$context;
    const account = await loginsRepository.passwordAccount(opts.db, accountId, { lock: false });
    const right = account?.password ? await context.password.verify({ hash: account.password, password }) : false;
    if (!right) throw badRequest(ACCOUNT_TEXTS.wrongPassword, 'wrong_password');
    await guard.passwordCheckPassed(accountId);
  }

  async function identify(headers: Headers): Promise<Identity | null> {
    const found = await auth.api.getSession({ headers });
    return found ? { ...toIdentity(found.user), session: { id: found.session.id, expiresAt: new Date(found.session.expiresAt) } } : null;
  }

  /**
   * The session, its login and the users row in one prepared query. Any case better-auth treats specially
   * (no or a badly signed cookie, an unknown or expired session, one due for extension) goes through
   * better-auth's own getSession, so the answer is always the one it would give.
   */
  const sessionWithRow = loginsRepository.sessionWithUser(opts.db);
  let cookie: Promise<{ name: string; secret: string }> | undefined;

  const callers = createCallerCache({ events: opts.events });

  async function sessionToken(headers: Headers): Promise<string | null> {
    cookie ??= auth.$context.then((context) => ({ name: context.authCookies.sessionToken.name, secret: context.secret }));
    const { name, secret } = await cookie;
    return signedCookieValue(headers.get('cookie'), name, secret);
  }

  /** Whether better-auth's getSession must answer for a session expiring at `expiresAt` (expired, or due for its extension). */
  function needsLibrary(expiresAt: number): boolean {
    const now = Date.now();
    return expiresAt <= now || expiresAt - SESSION_SECONDS.expiresIn * 1000 + SESSION_SECONDS.updateAge * 1000 <= now;
  }

  async function identifyWithRow(headers: Headers) {
    const token = await sessionToken(headers);
    const read = callers.beginRead();
    const [found] = token ? await sessionWithRow.execute({ token }) : [];
    if (!found || needsLibrary(found.expiresAt.getTime())) {
      if (token) callers.forget(token);
      const who = await identify(headers);
      return who && { who, row: await usersRepository.findBy(opts.db, { clerkId: who.id }) };
    }
    const who: Identity = { ...toIdentity(found.login), session: { id: found.sessionId, expiresAt: found.expiresAt } };
    const row = found.row?.id ? found.row : undefined;
    if (token && row && !row.erasedAt) callers.remember(token, { who, userId: row.id }, read);
    return { who, row };
  }

  async function identifyCaller(headers: Headers) {
    const token = await sessionToken(headers);
    const caller = token ? callers.recall(token) : undefined;
    return caller && !needsLibrary(caller.who.session!.expiresAt.getTime()) ? caller : undefined;
  }

  return {
    name: 'local',
    transport: 'cookie',
    identify,
    identifyWithRow,
    identifyCaller,
    async handle(request) {
      const path = new URL(request.url).pathname.replace(/^\/api\/auth/, '');
      if (!isOpenAuthRoute(request.method, path)) throw notFound();
      if (path === '/sign-in/email') return answeredAsWrongPassword(await auth.handler(request));
      if (path === '/request-password-reset') return answeredNoSoonerThan(RESET_ANSWER_MS, () => auth.handler(request));
      if (path === '/verify-email') return straightToTheApp(await auth.handler(request));
      if (path !== '/sign-out') return auth.handler(request);
      // Whose session this was is known only before it is deleted.
      const ending = await auth.api.getSession({ headers: request.headers, query: { disableRefresh: true } }).catch(() => null);
      const response = await auth.handler(request);
      if (ending && response.ok) await opts.sessions.sessionsEndedForAccount(ending.user.id);
      return response;
    },
    changePassword,
    confirmPassword,
  };
}
