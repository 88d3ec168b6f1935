import { SignIn, SignUp } from '@clerk/react';
import { Link } from 'react-router';
import { Logo } from '@/components/logo';
import { POST_AUTH_PATH } from './paths';

/**
 * The hosted build's /sign-in/* and /sign-up/*: Clerk's own widgets with path routing (spec §2), landing
 * on /app/create-image afterwards. Clerk draws and runs the forms; this page only frames them.
 */
export function ClerkAuthScreen({ mode }: { mode: 'sign-in' | 'sign-up' }) {
  return (
    <div className="flex min-h-dvh flex-col items-center justify-center bg-bg-subtle px-4 py-10">
      <Link to="/" className="mb-8" aria-label="Likeness home">
        <Logo />
      </Link>
      {mode === 'sign-in' ? (
        <SignIn routing="path" path="/sign-in" signUpUrl="/sign-up" fallbackRedirectUrl={POST_AUTH_PATH} />
      ) : (
        <SignUp routing="path" path="/sign-up" signInUrl="/sign-in" fallbackRedirectUrl={POST_AUTH_PATH} />
      )}
    </div>
  );
}
