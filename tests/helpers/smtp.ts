import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { waitFor } from './wait.ts';

export interface ReceivedMail {
  /** The envelope's recipients (RCPT TO). */
  to: string[];
  mail: ParsedMail;
  /** The message as it arrived (RFC 5322 text). */
  raw: string;
}

/**
 * A real SMTP server on loopback (the smtp-server package; mailparser reads what arrives). `mode` decides how it
 * answers the next messages: accept, refuse with a temporary 451, or hang (greet nobody).
 */
export interface TestSmtp {
  url: string;
  received: ReceivedMail[];
  mode: 'accept' | 'fail' | 'hang';
  /** Messages refused so far (mode 'fail'). */
  refused: number;
  /** Mail to `to`, waiting for at least `count` to arrive. */
  waitFor(to: string, count?: number): Promise<ReceivedMail[]>;
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
}

export async function startTestSmtp(port = 0): Promise<TestSmtp> {
  const state: TestSmtp = {
    url: '',
    received: [],
    mode: 'accept',
    refused: 0,
    to: (address) => state.received.filter((m) => m.to.includes(address.toLowerCase())),
    waitFor: (address, count = 1) =>
      waitFor(
        `${count} message(s) to ${address}`,
        async () => {
          const got = state.to(address);
          return got.length >= count ? got : undefined;
        },
        20_000,
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    // Plain SMTP on loopback; production's STARTTLS is nodemailer's default and needs a certificate.
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      if (state.mode === 'hang') return; // never greets: the client must time out
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (state.mode === 'fail') {
          state.refused++;
          const err = Object.assign(new Error('Try again later'), { responseCode: 451 });
          return callback(err);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw)
          .then((mail) => {
            state.received.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), mail, raw });
            callback();
          })
          .catch(callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  state.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  return state;
}

/** The first link in a message's text that contains `part`. */
export function linkIn(received: ReceivedMail, part: string): string {
  const text = `${received.mail.text ?? ''}\n${typeof received.mail.html === 'string' ? received.mail.html : ''}`;
  const link = text.match(/https?:\/\/[^\s"'<>\]]+/g)?.find((l) => l.includes(part));
  if (!link) throw new Error(`no link with ${part} in: ${text}`);
  return link.replace(/&amp;/g, '&');
}

/** The header section of a message as it arrived, unfolded (one header per line). */
export function headerSection(received: ReceivedMail): string {
  return received.raw.split(/\r?\n\r?\n/)[0].replace(/\r?\n[ \t]+/g, ' ');
}

/** A header's value as it arrived (unfolded), or undefined. */
export function headerOf(received: ReceivedMail, name: string): string | undefined {
  const line = headerSection(received)
    .split(/\r?\n/)
    .find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}
