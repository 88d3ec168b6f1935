import { useState } from 'react';
import { useBackend } from '@/backend/backend-context';
import { Banner } from '@/components/ui/banner';
import { useSessionUser } from '@/session/api';
import { useSendAgain } from '../hooks/use-send-again';
import { SendAgainButton } from './send-again-button';

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
  const email = user?.primaryEmailAddress?.emailAddress ?? '';
  const { state, sendAgain } = useSendAgain(email);

  if (!user || user.emailVerified !== false || dismissed || !identity.sendVerificationEmail) return null;

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
            <SendAgainButton state={state} onClick={() => void sendAgain()} label="Send again" />
          </>
        )}
      </p>
    </Banner>
  );
}
