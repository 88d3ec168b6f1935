import { useState, type FormEvent } from 'react';
import { Link, Navigate, useSearchParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useBackend } from '@/backend/backend-context';
import { ApiError } from '@/backend/api-error';
import { Banner } from '@/components/ui/banner';
import { Button, buttonClasses } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { RESET_REQUESTED_TEXT } from '@common/auth';
import { TEXT_LIMITS } from '@common/text';
import { sessionUserKey } from '@/session/api';
import { AuthShell } from './auth-shell';
import { NEXT_PARAM, postAuthPath } from '@/session/paths';

/** The password rule of sign-up (zxcvbn's dictionaries, ~400 KB): loaded only on this page. */
const loadPasswordRule = () => import('@common/password');

const INVALID_LINK = 'This link is invalid, has expired or was already used. Ask for a new one.';

function requestError(err: unknown): string {
  if (err instanceof ApiError && err.status < 500 && err.message) return err.status === 400 ? 'Enter a valid email address.' : err.message;
  if (err instanceof TypeError) return 'No internet connection. Please check your network and try again.';
  return 'Something went wrong. Please try again.';
}

/** 'Forgot password?': an address form; the same answer whether or not the address has an account. */
export function ForgotPasswordForm() {
  const { identity } = useBackend();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      await identity.requestPasswordReset!(email.trim());
      setSent(true);
    } catch (err) {
      setError(requestError(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthShell title="Forgot password?" subtitle="Enter the address you sign in with and we will e-mail you a link to set a new password.">
      {sent ? (
        <div className="mt-6 flex flex-col gap-4">
          <Banner tone="green">{RESET_REQUESTED_TEXT}</Banner>
          <p className="text-sm text-fg-muted">
            The link works once, for one hour. Nothing arrived? Check your spam folder, or try again in a few minutes.
          </p>
          <Link to="/sign-in" className={buttonClasses('secondary', 'lg', 'w-full')}>
            Back to sign in
          </Link>
        </div>
      ) : (
        <form className="mt-6 flex flex-col gap-4" onSubmit={submit}>
          {error && <Banner tone="red">{error}</Banner>}
          <Input
            label="Email address"
            name="email"
            type="email"
            autoComplete="email"
            required
            maxLength={TEXT_LIMITS.email}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <Button type="submit" size="lg" busy={busy} className="mt-2 w-full">
            Send link
          </Button>
          <p className="text-center text-sm text-fg-muted">
            <Link to="/sign-in" className="font-medium text-brand hover:underline">
              Back to sign in
            </Link>
          </p>
        </form>
      )}
    </AuthShell>
  );
}

/** 'Set a new password': reached from the mail's link (the server checked the token and put it in the address). */
export function ResetPasswordForm() {
  const { identity } = useBackend();
  const qc = useQueryClient();
  const [params] = useSearchParams();
  const token = params.get('token');
  const linkError = params.get('error');
  const [password, setPassword] = useState('');
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);

  if (!token || linkError) {
    return (
      <AuthShell title="Set a new password">
        <div className="mt-6 flex flex-col gap-4">
          <Banner tone="red">{INVALID_LINK}</Banner>
          <Link to="/forgot-password" className={buttonClasses('primary', 'lg', 'w-full')}>
            Ask for a new link
          </Link>
        </div>
      </AuthShell>
    );
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    setPasswordError(null);
    setBusy(true);
    const problem = (await loadPasswordRule()).passwordProblem(password, []);
    if (problem) {
      setPasswordError(problem);
      setBusy(false);
      return;
    }
    try {
      await identity.resetPassword!({ token: token!, newPassword: password });
      // Every session of the account was signed out, this browser's too.
      qc.setQueryData(sessionUserKey, null);
      setDone(true);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'WEAK_PASSWORD') setPasswordError(err.message);
      // The password was checked above, so any other refusal is of the link (unknown, used, expired or malformed);
      // the address form's 'Enter a valid email address.' would name a field this page does not have.
      else if (err instanceof ApiError && (err.status === 400 || err.code === 'USER_NOT_FOUND')) setError(INVALID_LINK);
      else setError(requestError(err));
    } finally {
      setBusy(false);
    }
  }

  if (done) {
    return (
      <AuthShell title="Password changed">
        <div className="mt-6 flex flex-col gap-4">
          <Banner tone="green">Your new password is set. Every other session of your account was signed out.</Banner>
          <Link to="/sign-in" className={buttonClasses('primary', 'lg', 'w-full')}>
            Sign in
          </Link>
        </div>
      </AuthShell>
    );
  }

  return (
    <AuthShell title="Set a new password" subtitle="Choose a new password for your account.">
      <form className="mt-6 flex flex-col gap-4" onSubmit={submit}>
        {error && <Banner tone="red">{error}</Banner>}
        <Input
          label="New password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={TEXT_LIMITS.passwordMin}
          maxLength={TEXT_LIMITS.passwordMax}
          hint={`At least ${TEXT_LIMITS.passwordMin} characters, not a common password or your name.`}
          error={passwordError}
          value={password}
          onFocus={() => void loadPasswordRule()}
          onChange={(e) => {
            setPassword(e.target.value);
            setPasswordError(null);
          }}
        />
        <Button type="submit" size="lg" busy={busy} className="mt-2 w-full">
          Set new password
        </Button>
      </form>
    </AuthShell>
  );
}

/**
 * Where the confirmation link lands: confirmed, or why not. A new account's link (`next`) signed the person in
 * and leads on into the app.
 */
export function VerifyEmailResult() {
  const [params] = useSearchParams();
  const error = params.get('error');
  const next = params.get(NEXT_PARAM);
  if (!error && next) return <Navigate to={postAuthPath(next)} replace />;
  return (
    <AuthShell title={error ? 'Link not valid' : 'E-mail address confirmed'}>
      <div className="mt-6 flex flex-col gap-4">
        {error ? (
          <Banner tone="red">
            This confirmation link is invalid or has expired. For a new one, sign in with your address and password and choose Send the link
            again.
          </Banner>
        ) : (
          <Banner tone="green">Thank you! Your e-mail address is confirmed.</Banner>
        )}
        <Link to="/app/create-image" className={buttonClasses('primary', 'lg', 'w-full')}>
          Continue to Likeness
        </Link>
      </div>
    </AuthShell>
  );
}
