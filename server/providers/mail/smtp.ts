import nodemailer from 'nodemailer';
import { PermanentMailError, type MailTransport } from './provider.ts';

/**
 * Mail over SMTP with nodemailer. smtp:// upgrades to TLS with STARTTLS whenever the server offers it
 * (nodemailer's default); smtps:// speaks TLS from the first byte. Every wait on the server is bounded by
 * `timeoutMs`, so a server that hangs costs one attempt, which the sender retries later.
 */
export function createSmtpTransport(opts: { url: string; timeoutMs: number }): MailTransport {
  const transport = nodemailer.createTransport({
    url: opts.url,
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
    dnsTimeout: opts.timeoutMs,
    // One connection per message: the sender sends a few at a time, and a pooled connection that the server
    // dropped would only fail the next message.
    pool: false,
  });
  return {
    kind: 'smtp',
    async send(mail) {
      try {
        await transport.sendMail({
          messageId: mail.messageId,
          from: mail.from,
          to: mail.to,
          subject: mail.subject,
          html: mail.html,
          text: mail.text,
          headers: mail.headers,
          // No name with the recipient: a display name is text a person typed.
          envelope: { from: addressOf(mail.from), to: mail.to },
        });
      } catch (err) {
        // 5xx for a recipient: that mailbox does not exist or refuses us; trying again will not change it.
        const code = (err as { responseCode?: number }).responseCode;
        if (code && code >= 550 && code < 560 && (err as { command?: string }).command === 'RCPT TO') {
          throw new PermanentMailError((err as Error).message);
        }
        throw err;
      }
    },
    close: () => transport.close(),
  };
}

function addressOf(mailbox: string): string {
  return /<([^>]+)>\s*$/.exec(mailbox)?.[1] ?? mailbox.trim();
}
