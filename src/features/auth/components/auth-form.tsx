import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useBackend } from '@/backend/backend-context';
import { ApiError } from '@/backend/api-error';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Logo } from '@/components/logo';
import { PageSpinner } from '@/components/ui/spinner';
import { sessionUserKey, useSessionUser } from '@/session/api';
import { ACCOUNT_TEXTS } from '@common/account';
import { TEXT_LIMITS } from '@common/text';
import { CheckEmail } from './check-email';
import { authPath, NEXT_PARAM, POST_AUTH_PATH, postAuthPath } from '@/session/paths';

/** The password rule carries zxcvbn's dictionaries (~400 KB): loaded only when someone signs up. */
const loadPasswordRule = () => import('@common/password');

/** Said both before sending (the field's own check) and when the server refuses the same thing. */
const PASSWORD_TOO_SHORT = `Use at least ${TEXT_LIMITS.passwordMin} characters for your password.`;
const INVALID_EMAIL = 'Enter a valid email address.';

/** A wrong password, an unknown address and an account not confirmed yet get the same answer from the server. */
const isWrongPassword = (err: unknown) => err instanceof ApiError && (err.status === 401 || err.code === 'INVALID_EMAIL_OR_PASSWORD');

function authErrorMessage(err: unknown, mode: 'sign-in' | 'sign-up'): string {
  if (err instanceof ApiError) {
    if (isWrongPassword(err)) return 'Incorrect email or password. Please try again.';
    if (err.code === 'PASSWORD_TOO_SHORT') return PASSWORD_TOO_SHORT;
    if (err.code === 'INVALID_EMAIL') return INVALID_EMAIL;
    if (err.status === 429) return err.message;
    if (err.status < 500 && err.message) return err.message;
  }
  if (err instanceof TypeError) return 'No internet connection. Please check your network and try again.';
  return mode === 'sign-in' ? 'Sign-in failed. Please try again.' : 'Sign-up failed. Please try again.';
}

/** The form's fields in page order: the first one with a problem takes the focus. */
const FIELDS = ['name', 'email', 'password'] as const;
type Field = (typeof FIELDS)[number];

/**
 * What is wrong with a field before anything is sent, in the page's words rather than the browser's bubble; the
 * rules are the fields' own (required, type=email, minlength).
 */
function fieldProblem(field: Field, control: HTMLInputElement): string | null {
  const { validity } = control;
  if (validity.valueMissing || (field === 'name' && !control.value.trim())) {
    return field === 'name' ? 'Enter your full name.' : field === 'email' ? 'Enter your email address.' : 'Enter your password.';
  }
  if (field === 'email' && !validity.valid) return INVALID_EMAIL;
  // The length read directly: browsers (and jsdom) set tooShort only for some ways a value was entered.
  if (field === 'password' && control.value.length < control.minLength) return PASSWORD_TOO_SHORT;
  return null;
}

/** The built-in sign-in / sign-up flow; any sub-path of /sign-in or /sign-up renders it. */
export function AuthForm({ mode }: { mode: 'sign-in' | 'sign-up' }) {
  const { identity } = useBackend();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const session = useSessionUser();
  const [params] = useSearchParams();
  const next = params.get(NEXT_PARAM);
  const landing = postAuthPath(next);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<Field, string>>>({});
  const [busy, setBusy] = useState(false);
  // The address a confirmation link went (or may have gone) to: 'Check your e-mail to continue'.
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [unconfirmedHint, setUnconfirmedHint] = useState(false);
  const [resend, setResend] = useState(false);
  const isSignUp = mode === 'sign-up';
  // Where 'Delete account' on the profile page lands once the account is gone.
  const accountDeleted = !isSignUp && params.get('deleted') === '1';

  if (sentTo) return <CheckEmail email={sentTo} sendNow={resend} />;
  if (session.isPending) return <PageSpinner />;
  if (session.data && !busy) return <Navigate to={landing} replace />;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    const form = e.currentTarget as HTMLFormElement;
    const problems: Partial<Record<Field, string>> = {};
    let first: HTMLInputElement | undefined;
    for (const field of FIELDS) {
      const control = form.elements.namedItem(field);
      const problem = control instanceof HTMLInputElement ? fieldProblem(field, control) : null;
      if (!problem) continue;
      problems[field] = problem;
      first ??= control as HTMLInputElement;
    }
    setFieldErrors(problems);
    if (first) {
      first.focus();
      return;
    }
    setBusy(true);
    if (isSignUp) {
      // The server's own rule, shown before sending; the server checks it again.
      const problem = (await loadPasswordRule()).passwordProblem(password, [email.trim(), name.trim()]);
      if (problem) {
        setFieldErrors({ password: problem });
        setBusy(false);
        return;
      }
    }
    setUnconfirmedHint(false);
    try {
      if (isSignUp) {
        // The same answer for a new and a taken address, and nobody is signed in by it: the mailed link does that.
        await identity.signUp({
          name: name.trim(),
          email: email.trim(),
          password,
          ...(landing === POST_AUTH_PATH ? {} : { next: landing }),
        });
        setSentTo(email.trim());
        return;
      }
      await identity.signIn({ email: email.trim(), password });
      await qc.fetchQuery({ queryKey: sessionUserKey, queryFn: () => identity.loadUser(), staleTime: 0 });
      navigate(landing, { replace: true });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'WEAK_PASSWORD') setFieldErrors({ password: err.message });
      else setError(authErrorMessage(err, mode));
      setUnconfirmedHint(!isSignUp && isWrongPassword(err));
      setBusy(false);
    }
  }

  return (
    <div className="flex min-h-dvh flex-col items-center justify-center bg-bg-subtle px-4 py-10">
      <Link to="/" className="mb-8" aria-label="Likeness home">
        <Logo />
      </Link>
      <div className="w-full max-w-sm rounded-xl border border-border bg-bg p-6 shadow-card sm:p-8">
        <h1 className="text-2xl font-bold">{isSignUp ? 'Create your account' : 'Welcome back'}</h1>
        <p className="mt-1 text-sm text-fg-muted">
          {isSignUp ? 'Start creating photos of you in minutes.' : 'Sign in to continue to Likeness.'}
        </p>
        <form className="mt-6 flex flex-col gap-4" onSubmit={submit} noValidate>
          {error && <Banner tone="red">{error}</Banner>}
          {unconfirmedHint && identity.sendVerificationEmail && (
            <p className="-mt-2 text-sm text-fg-muted">
              Signed up but not confirmed yet?{' '}
              <button
                type="button"
                className="font-medium text-brand hover:underline"
                onClick={() => {
                  setResend(true);
                  setSentTo(email.trim());
                }}
              >
                Send the link again
              </button>
            </p>
          )}
          {accountDeleted && !error && <Banner tone="green">{ACCOUNT_TEXTS.deleted}</Banner>}
          {isSignUp && (
            <Input
              label="Full name"
              name="name"
              autoComplete="name"
              required
              maxLength={TEXT_LIMITS.personName}
              error={fieldErrors.name}
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                setFieldErrors(({ name: _, ...rest }) => rest);
              }}
            />
          )}
          <Input
            label="Email address"
            name="email"
            type="email"
            autoComplete="email"
            required
            maxLength={TEXT_LIMITS.email}
            error={fieldErrors.email}
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              setFieldErrors(({ email: _, ...rest }) => rest);
            }}
          />
          <Input
            label="Password"
            name="password"
            type="password"
            autoComplete={isSignUp ? 'new-password' : 'current-password'}
            required
            minLength={isSignUp ? TEXT_LIMITS.passwordMin : undefined}
            maxLength={TEXT_LIMITS.passwordMax}
            hint={isSignUp ? `At least ${TEXT_LIMITS.passwordMin} characters, not a common password or your name.` : undefined}
            error={fieldErrors.password}
            value={password}
            onFocus={isSignUp ? () => void loadPasswordRule() : undefined}
            onChange={(e) => {
              setPassword(e.target.value);
              setFieldErrors(({ password: _, ...rest }) => rest);
            }}
          />
          {!isSignUp && (
            <Link to="/forgot-password" className="-mt-2 self-end text-sm font-medium text-brand hover:underline">
              Forgot password?
            </Link>
          )}
          <Button type="submit" size="lg" busy={busy} className="mt-2 w-full">
            {isSignUp ? 'Sign up' : 'Sign in'}
          </Button>
        </form>
        <p className="mt-6 text-center text-sm text-fg-muted">
          {isSignUp ? 'Already have an account? ' : 'New to Likeness? '}
          <Link to={authPath(isSignUp ? '/sign-in' : '/sign-up', next)} className="font-medium text-brand hover:underline">
            {isSignUp ? 'Sign in' : 'Create an account'}
          </Link>
        </p>
      </div>
    </div>
  );
}
