import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Executor } from '../db/index.ts';
import { afterCommit } from '../db/index.ts';
import { NOTIFICATION_KINDS, type AccountMail, type MailKind, type MailPayloads } from '../mail/messages.tsx';
import { mailOutboxRepository as repo } from '../repositories/mail-outbox.repository.ts';
import { usersRepository } from '../repositories/users.repository.ts';

/**
 * Mail the product sends, written as outbox rows in the caller's transaction (docs/decisions/015-mail-outbox.md);
 * the mail sender (server/jobs/mail-sender.ts) sends them. Nothing here talks to an SMTP server, so a mail
 * server that is down or slow never fails or slows the action that causes a message.
 */

/** Wakes the mail senders of this process once a transaction that enqueued mail has committed. */
const wakers = new Set<() => void>();
export function onMailEnqueued(wake: () => void): () => void {
  wakers.add(wake);
  return () => wakers.delete(wake);
}
const wakeSenders = () => afterCommit(() => wakers.forEach((wake) => wake()));

/** Account mail (built-in accounts): to the address it names, whether or not a users row exists yet. */
export async function enqueueAccountMail(tx: Executor, to: string, mail: AccountMail): Promise<void> {
  await repo.insert(tx, { kind: mail.kind, toAddress: to, payload: mail.payload });
  wakeSenders();
}

/**
 * Team mail (issue 49: invites, reminders): to the address given, not a notification (the lead sent it; no
 * unsubscribe). `dedupeKey` makes it once per event.
 */
export async function enqueueTeamMail<K extends 'team-invite' | 'team-reminder'>(
  tx: Executor,
  to: string,
  kind: K,
  payload: MailPayloads[K],
  opts: { userId?: string; dedupeKey?: string } = {},
): Promise<boolean> {
  const inserted = await repo.insert(tx, { kind, toAddress: to, payload, userId: opts.userId, dedupeKey: opts.dedupeKey });
  if (inserted) wakeSenders();
  return inserted;
}

/**
 * A notification for `userId`, once per `dedupeKey` (an event mailed twice, by a replayed webhook or a second
 * instance, inserts nothing the second time). Nothing is written when the person turned notifications off.
 * The address is read when the message is sent (recipientAddress).
 */
async function enqueueNotification<K extends MailKind>(
  tx: Executor,
  userId: string,
  kind: K,
  payload: MailPayloads[K],
  dedupeKey: string,
): Promise<boolean> {
  if (!NOTIFICATION_KINDS.includes(kind)) throw new Error(`${kind} is not a notification`);
  if (!(await repo.wantsNotifications(tx, userId))) return false;
  const inserted = await repo.insert(tx, { kind, userId, payload, dedupeKey });
  if (inserted) wakeSenders();
  return inserted;
}

/** 'Your character <name> is ready': in the transaction that completes the training. */
export const enqueueCharacterReady = (tx: Executor, userId: string, training: { id: string; characterName: string }) =>
  enqueueNotification(
    tx,
    userId,
    'character-ready',
    { trainingId: training.id, characterName: training.characterName },
    `character-ready:${training.id}`,
  );

/** 'Training of <name> failed — 500 credits are back in your account': in the transaction that refunds it. */
export const enqueueTrainingFailed = (tx: Executor, userId: string, training: { id: string; characterName: string }) =>
  enqueueNotification(
    tx,
    userId,
    'training-failed',
    { trainingId: training.id, characterName: training.characterName },
    `training-failed:${training.id}`,
  );

/**
 * 'Your <pack> photo shoot is ready (N photos)': call it in the transaction that ends the shoot (once per shoot,
 * not per photo; a second call for the same shoot adds nothing).
 */
export const enqueueShootReady = (tx: Executor, userId: string, shoot: { id: string; pack: string; photos: number }) =>
  enqueueNotification(tx, userId, 'shoot-ready', { shootId: shoot.id, pack: shoot.pack, photos: shoot.photos }, `shoot-ready:${shoot.id}`);

/**
 * 'Your balance is low': once per `period` (its start, ISO), in the transaction of the debit that brought the balance
 * below `cost`, the price of the action just paid for.
 */
export const enqueueLowBalance = (tx: Executor, userId: string, low: { balance: number; cost: number; period: string }) =>
  enqueueNotification(tx, userId, 'low-balance', { balance: low.balance, cost: low.cost }, `low-balance:${userId}:${low.period}`);

/** What the sender should do with a notification for this person. */
export type Recipient = { to: string } | { skip: string } | { wait: string };

/**
 * The one place that says where a person's notifications go. Built-in accounts (local and scale-out): the
 * sign-in address, which sign-up checked is theirs (better-auth's user). Clerk mode: the address Clerk
 * verified (users.verified_email) — never users.email, which the hosted SPA writes itself. While that address
 * is unknown, the mail waits (and is given up after 24 hours like any undeliverable message).
 */
export async function recipientAddress(tx: Executor, userId: string): Promise<Recipient> {
  const row = await repo.recipient(tx, userId);
  if (!row || row.erasedAt) return { skip: 'the account no longer exists' };
  if (!row.wants) return { skip: 'the person turned notifications off' };
  // Built-in accounts: the sign-in address; Clerk mode: users.verified_email, which only the server writes.
  const address = await usersRepository.verifiedEmailOf(tx, userId);
  return address ? { to: address } : { wait: 'no verified address known for this person yet' };
}

/** The profile switch 'E-mail me when a character or a photo shoot is ready'. */
export const mailPreferences = {
  get: (db: Executor, userId: string) => repo.getNotifications(db, userId),
  set: (db: Executor, userId: string, on: boolean) => repo.setNotifications(db, userId, on),
  /** For the unsubscribe page: the person's address, masked, and whether notifications are on. */
  async recipient(db: Executor, userId: string): Promise<{ maskedEmail: string | null; on: boolean } | undefined> {
    const row = await repo.getRecipient(db, userId);
    return row && { maskedEmail: row.email && maskEmail(row.email), on: row.on };
  },
};

/**
 * An address as a page reached by a link may show it: enough for its owner to recognise ('j•••e@example.com'),
 * too little for whoever else holds the link to learn it.
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  const [local, domain] = at < 0 ? [email, ''] : [email.slice(0, at), email.slice(at)];
  const shown = local.length <= 2 ? local.slice(0, 1) : `${local[0]}${local.slice(-1)}`;
  return `${shown.slice(0, 1)}•••${shown.slice(1)}${domain}`;
}

/**
 * Signed one-click unsubscribe links (RFC 8058): the link names the person and carries an HMAC of their id, so
 * nobody can unsubscribe someone else, and it keeps working without a session (mail clients post it blind).
 */
export function createUnsubscribeLinks(secret: string, baseUrl: string) {
  const sign = (userId: string) => createHmac('sha256', secret).update(`unsubscribe:${userId}`).digest('base64url');
  return {
    url: (userId: string) => `${baseUrl}/mail/unsubscribe?u=${encodeURIComponent(userId)}&s=${sign(userId)}`,
    /** The user id the link names, when its signature is right. */
    verify(userId: string | undefined, signature: string | undefined): string | undefined {
      if (!userId || !signature || !/^[0-9a-f-]{36}$/.test(userId)) return undefined;
      const want = Buffer.from(sign(userId));
      const got = Buffer.from(signature);
      return want.length === got.length && timingSafeEqual(want, got) ? userId : undefined;
    },
  };
}
export type UnsubscribeLinks = ReturnType<typeof createUnsubscribeLinks>;
