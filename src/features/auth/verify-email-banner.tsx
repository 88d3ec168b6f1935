import { useState } from 'react';
import { useBackend } from '@/backend/backend-context';
import { ApiError } from '@/backend/api-error';
import { Banner } from '@/components/ui/banner';
import { useSessionUser } from '@/features/session/api';

const dismissedKey = (userId: string) => `likeness:verify-email-dismissed:${userId}`;

/**
 * Built-in accounts: until the sign-in address is confirmed, 'Confirm your e-mail address' with 'Send again'.
 * Dismissed, it stays away for this browser tab's session. Nothing else waits for it (except buying a plan
 * where the server requires a confirmed address).
 */
export function VerifyEmailBanner() {
  const { identity } = useBackend();
  const user = useSessionUser().data;
  const [dismissed, setDismissed] = useState(() => (user ? sessionStorage.getItem(dismissedKey(user.id)) === '1' : false));
  const [state, setState] = useState<{ busy?: boolean; sent?: boolean; error?: string }>({});

  if (!user || user.emailVerified !== false || dismissed || !identity.sendVerificationEmail) return null;
  const email = user.primaryEmailAddress?.emailAddress ?? '';

  async function sendAgain() {
    setState({ busy: true });
    try {
      await identity.sendVerificationEmail!(email);
      setState({ sent: true });
    } catch (err) {
      setState({ error: err instanceof ApiError && err.status === 429 ? err.message : 'Could not send it. Please try again in a moment.' });
    }
  }

  return (
    <Banner
      tone="amber"
      title="Confirm your e-mail address"
      className="mb-4 md:mb-6"
      onDismiss={() => {
        sessionStorage.setItem(dismissedKey(user.id), '1');
        setDismissed(true);
      }}
    >
      {/* One short paragraph with the action inline: the banner tops every app page, and on a phone it took a fifth of the screen. */}
      <p className="break-words">
        {state.sent ? `We sent a new link to ${email}.` : (state.error ?? `Open the link we sent to ${email}.`)}
        {!state.sent && (
          <>
            {' '}
            <button
              type="button"
              className="inline-flex min-h-6 items-center font-semibold text-fg underline underline-offset-2 hover:no-underline disabled:opacity-60"
              disabled={state.busy}
              onClick={() => void sendAgain()}
            >
              {state.busy ? 'Sending…' : 'Send again'}
            </button>
          </>
        )}
      </p>
    </Banner>
  );
}
