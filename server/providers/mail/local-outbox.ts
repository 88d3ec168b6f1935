import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { MailTransport, OutgoingMail } from './provider.ts';

/** A message kept in the local outbox, as it would have been sent. */
export interface OutboxMessage extends OutgoingMail {
  /** File name stem: `<ISO time>-<outbox row id>`; sorts by time. */
  id: string;
  sentAt: string;
}

export interface LocalOutbox extends MailTransport {
  readonly kind: 'outbox';
  /** Newest first. */
  list(): Promise<OutboxMessage[]>;
  read(id: string): Promise<{ message: OutboxMessage; raw: string } | undefined>;
  /** Deletes the messages of these outbox rows (an erased account's); resolves with how many there were. */
  forget(rowIds: readonly string[]): Promise<number>;
}

const ID = /^[0-9TZ:.-]+-[0-9a-f-]{36}$/;

/**
 * Local mode without SMTP_URL: each message is written to `<dir>` as the RFC 5322 file SMTP would have carried
 * (`.eml`, built by nodemailer's own composer) and a `.json` with its parts for the /sandbox/mail pages.
 * Files appear whole or not at all (written under a temporary name, then renamed).
 */
export function createLocalOutbox(dir: string): LocalOutbox {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  async function put(name: string, data: string | Buffer) {
    const tmp = join(dir, `.${name}.tmp`);
    await writeFile(tmp, data);
    await rename(tmp, join(dir, name));
  }

  return {
    kind: 'outbox',
    async send(mail) {
      await mkdir(dir, { recursive: true });
      const info = await composer.sendMail({ ...mail, messageId: mail.messageId });
      const sentAt = new Date().toISOString();
      const rowId = /^<([^@]+)@/.exec(mail.messageId)?.[1] ?? crypto.randomUUID();
      const id = `${sentAt.replace(/:/g, '-')}-${rowId}`;
      await put(`${id}.eml`, info.message as Buffer);
      await put(`${id}.json`, JSON.stringify({ ...mail, id, sentAt } satisfies OutboxMessage));
    },
    async list() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        return [];
      }
      const ids = names
        .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
        .map((n) => n.slice(0, -5))
        .sort()
        .reverse();
      const messages: OutboxMessage[] = [];
      for (const id of ids) messages.push(JSON.parse(await readFile(join(dir, `${id}.json`), 'utf8')) as OutboxMessage);
      return messages;
    },
    async read(id) {
      if (!ID.test(id)) return undefined;
      try {
        const message = JSON.parse(await readFile(join(dir, `${id}.json`), 'utf8')) as OutboxMessage;
        return { message, raw: await readFile(join(dir, `${id}.eml`), 'utf8') };
      } catch {
        return undefined;
      }
    },
    async forget(rowIds) {
      if (rowIds.length === 0) return 0;
      const rows = new Set(rowIds);
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        return 0;
      }
      // `<time>-<row id>.json` and `.eml`; the .json goes last, so a message half forgotten is still listed.
      const ids = names.filter((n) => n.endsWith('.json') && !n.startsWith('.') && rows.has(n.slice(-41, -5))).map((n) => n.slice(0, -5));
      for (const id of ids) {
        await rm(join(dir, `${id}.eml`), { force: true });
        await rm(join(dir, `${id}.json`), { force: true });
      }
      return ids.length;
    },
    close() {},
  };
}
