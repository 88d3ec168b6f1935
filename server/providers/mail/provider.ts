/**
 * Where outgoing mail goes: an SMTP server (SMTP_URL) or, without one, the local outbox in DATA_DIR that
 * /sandbox/mail shows. Chosen once at start (server/runtime.ts).
 */
export interface OutgoingMail {
  /** Our own Message-ID, the same on every attempt of one outbox row, so a receiver can drop a repeat. */
  messageId: string;
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  /** Extra headers (List-Unsubscribe, List-Unsubscribe-Post). */
  headers: Record<string, string>;
}

export interface MailTransport {
  readonly kind: 'smtp' | 'outbox';
  /** Resolves once the message was accepted; rejects with the reason otherwise (the sender retries later). */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** A refusal that asking again cannot change (the server refused the recipient for good). */
export class PermanentMailError extends Error {}
