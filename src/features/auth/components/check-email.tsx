import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { MailCheck } from 'lucide-react';
import { Banner } from '@/components/ui/banner';
import { buttonClasses } from '@/components/ui/button';
import { useMailOutboxPage } from '@/queries/public-config';
import { SIGN_UP_SENT_TEXT } from '@common/auth';
import { AuthShell } from './auth-shell';
import { useSendAgain } from '../hooks/use-send-again';
import { SendAgainButton } from './send-again-button';

/** Where the local outbox shows the mail a server without SMTP would have sent. */
export const LOCAL_OUTBOX_PATH = '/sandbox/mail';

/**
 * After sign-up, or 'Send the link again' on the sign-in page (`sendNow`): the same screen whether or not the
 * address already had an account, or one waiting for confirmation. A new account's link signs in; a taken
 * address's owner was told of the attempt instead. The server mails a link only to an account not confirmed yet.
 */
export function CheckEmail({ email, sendNow = false }: { email: string; sendNow?: boolean }) {
  const outbox = useMailOutboxPage();
  const { state, sendAgain } = useSendAgain(email);
  const sentOnOpen = useRef(false);
  useEffect(() => {
    if (!sendNow || sentOnOpen.current) return;
    sentOnOpen.current = true;
    // Once, when the screen opens.
    void sendAgain();
  }, [sendNow]);

  return (
    <AuthShell title={SIGN_UP_SENT_TEXT}>
      <div className="mt-6 flex flex-col gap-4">
        <div className="flex items-start gap-3">
          <MailCheck className="mt-0.5 size-5 shrink-0 text-brand" aria-hidden />
          <p className="break-words text-sm">
            We sent an e-mail to <strong>{email}</strong>. Open the link in it to continue.
          </p>
        </div>
        {outbox && (
          <Banner tone="blue">
            No mail server is set up here, so the message is in the{' '}
            <a href={LOCAL_OUTBOX_PATH} target="_blank" rel="noreferrer" className="font-semibold underline underline-offset-2">
              local outbox
            </a>
            .
          </Banner>
        )}
        {state.error && <Banner tone="red">{state.error}</Banner>}
        <p className="text-sm text-fg-muted">
          {state.sent ? 'We sent it again. ' : 'Nothing arrived? Check your spam folder, or '}
          {!state.sent && <SendAgainButton state={state} onClick={() => void sendAgain()} label="send it again" />}
          {!state.sent && '.'}
        </p>
        <Link to="/sign-in" className={buttonClasses('secondary', 'lg', 'w-full')}>
          Back to sign in
        </Link>
      </div>
    </AuthShell>
  );
}
