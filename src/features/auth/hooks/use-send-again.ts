import { useState } from 'react';
import { useBackend } from '@/backend/backend-context';
import { ApiError } from '@/backend/api-error';

export interface SendAgainState {
  busy?: boolean;
  sent?: boolean;
  error?: string;
}

/** 'Send again' of the confirmation link to `email` (built-in accounts): its state, and the action. */
export function useSendAgain(email: string) {
  const { identity } = useBackend();
  const [state, setState] = useState<SendAgainState>({});
  async function sendAgain() {
    setState({ busy: true });
    try {
      await identity.sendVerificationEmail!(email);
      setState({ sent: true });
    } catch (err) {
      setState({ error: err instanceof ApiError && err.status === 429 ? err.message : 'Could not send it. Please try again in a moment.' });
    }
  }
  return { state, sendAgain };
}
