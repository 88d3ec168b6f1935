import { RESET_TOKEN_SECONDS } from '@common/auth.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import { NOTIFICATION_KINDS, renderMail, type MailKind, type MailPayloads } from '../mail/messages.tsx';
import type { Metrics } from '../ops/metrics.ts';
import { PermanentMailError, type MailTransport } from '../providers/mail/index.ts';
import { mailOutboxRepository as repo, type MailRow } from '../repositories/mail-outbox.repository.ts';
import { onMailEnqueued, recipientAddress, type UnsubscribeLinks } from '../services/mail.service.ts';
import type { JobLeases } from '../repositories/job-leases.ts';
import { createLeasedRunner } from './leased-runner.ts';

/**
 * Sends the mail outbox (docs/decisions/015-mail-outbox.md). Every instance polls for due PENDING rows and claims
 * a few with the durable-job lease (leased-runner.ts: SKIP LOCKED, renewed while the SMTP conversation
 * runs), so each row is sent by one instance. A failed attempt is tried again after a wait that doubles from
 * `retryBaseMs` up to an hour; a row still unsent 24 hours after it was written is given up with a log line and
 * the metric likeness_mail_total{outcome="given_up"}.
 */
export interface MailSenderDeps {
  db: Db;
  transport: MailTransport;
  logger: Logger;
  metrics: Metrics;
  leases: JobLeases;
  links: UnsubscribeLinks;
  from: string;
  baseUrl: string;
  appUrl: string;
  supportEmail: string;
  pollMs: number;
  retryBaseMs: number;
  /** Bounds one attempt as a whole (nodemailer bounds each wait; this bounds their sum). */
  attemptTimeoutMs: number;
  giveUpMs?: number;
}

export const GIVE_UP_MS = 24 * 60 * 60 * 1000;
/**
 * Account mail whose link lapses sooner than the outbox gives up: sent after that, its link would only lead to
 * 'invalid or expired', so it is given up when the link lapses (the page lets the person ask again).
 */
const LINK_LIFETIME_MS: Partial<Record<MailKind, number>> = { 'password-reset': RESET_TOKEN_SECONDS * 1000 };
const MAX_RETRY_MS = 60 * 60 * 1000;
const WAIT_MS = 10 * 60 * 1000;
/** Messages one instance sends at a time. */
const BATCH = 4;
/** The domain of our Message-IDs. */
const MESSAGE_ID_DOMAIN = 'mail.likeness';

export interface MailSender {
  start(): void;
  /** Looks for due mail now (after a commit that enqueued some). */
  wake(): void;
  /** Sends everything due now and resolves when done (tests). */
  runNow(): Promise<void>;
  close(): Promise<void>;
}

export function createMailSender(deps: MailSenderDeps): MailSender {
  const { db, leases, logger, metrics } = deps;
  const giveUpMs = deps.giveUpMs ?? GIVE_UP_MS;
  let stopListening: (() => void) | undefined;

  function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
    let t: NodeJS.Timeout;
    return Promise.race([
      work,
      new Promise<never>((_, reject) => {
        t = setTimeout(() => reject(new Error(`no answer from the mail server within ${Math.round(ms / 1000)} s`)), ms);
      }),
    ]).finally(() => clearTimeout(t));
  }

  async function giveUp(row: MailRow, error: string, why = 'not delivered within 24 hours') {
    if (await repo.end(db, row.id, leases.owner, { status: 'FAILED', error })) {
      metrics.mailEnded(row.kind, 'given_up');
      logger.error({ mailId: row.id, kind: row.kind, attempts: row.attempts, error }, `mail given up: ${why}`);
    }
  }

  async function retry(row: MailRow, error: string, attempted: boolean) {
    const attempts = row.attempts + (attempted ? 1 : 0);
    // A message waiting for its address looks again every few minutes; a failed attempt backs off.
    const delayMs = attempted ? Math.min(MAX_RETRY_MS, deps.retryBaseMs * 2 ** Math.max(0, attempts - 1)) : WAIT_MS;
    await repo.retryLater(db, row.id, leases.owner, { delayMs, error, attempted });
    if (attempted) metrics.mailEnded(row.kind, 'retried');
    logger.warn(
      { mailId: row.id, kind: row.kind, attempts, retryInSeconds: delayMs / 1000, error },
      attempted ? 'mail not sent; it will be tried again' : 'mail waits',
    );
  }

  async function sendOne(row: MailRow): Promise<void> {
    const kind = row.kind as MailKind;
    const age = Date.now() - row.createdAt.getTime();
    const tooOld = age > giveUpMs;
    const linkLifetime = LINK_LIFETIME_MS[kind];
    if (linkLifetime !== undefined && age > linkLifetime) {
      return giveUp(row, row.lastError ?? 'not sent before its link expired', 'its link expired before it was delivered');
    }
    let to = row.toAddress;
    if (NOTIFICATION_KINDS.includes(kind)) {
      const recipient = row.userId ? await recipientAddress(db, row.userId) : { skip: 'no user' };
      if ('skip' in recipient) {
        if (await repo.end(db, row.id, leases.owner, { status: 'SKIPPED', error: recipient.skip })) metrics.mailEnded(kind, 'skipped');
        return;
      }
      if ('wait' in recipient) return tooOld ? giveUp(row, recipient.wait) : retry(row, recipient.wait, false);
      to = recipient.to;
    }
    if (!to) return giveUp(row, 'no recipient');
    if (tooOld) return giveUp(row, row.lastError ?? 'not sent within 24 hours');
    try {
      const unsubscribeUrl = NOTIFICATION_KINDS.includes(kind) && row.userId ? deps.links.url(row.userId) : undefined;
      const { subject, html, text } = await renderMail(kind, row.payload as MailPayloads[MailKind], {
        baseUrl: deps.baseUrl,
        appUrl: deps.appUrl,
        supportEmail: deps.supportEmail,
        unsubscribeUrl,
      });
      await withTimeout(
        deps.transport.send({
          messageId: `<${row.id}@${MESSAGE_ID_DOMAIN}>`,
          from: deps.from,
          to,
          subject,
          html,
          text,
          headers: unsubscribeUrl
            ? { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
            : {},
        }),
        deps.attemptTimeoutMs,
      );
    } catch (err) {
      const message = (err as Error).message ?? String(err);
      if (err instanceof PermanentMailError) return giveUp(row, message);
      return retry(row, message, true);
    }
    if (await repo.end(db, row.id, leases.owner, { status: 'SENT' })) {
      metrics.mailEnded(kind, 'sent');
      logger.info({ mailId: row.id, kind }, 'mail sent');
    } else {
      // Our lease ran out during the conversation and another instance took the row: it may send it once more
      // (same Message-ID, so receivers can tell).
      logger.warn({ mailId: row.id, kind }, 'mail sent after its lease was lost');
    }
  }

  const runner = createLeasedRunner({
    kind: 'mail',
    logger,
    leases,
    concurrency: BATCH,
    pollMs: deps.pollMs,
    claim: (limit) => repo.claimDue(db, leases.claim(), limit),
    keyOf: (row) => row.id,
    work: sendOne,
    // sendOne ends the row or schedules its retry itself; a failure it did not expect gives the row back at once.
    afterWork: 'drop',
    failed: 'mail sender failed on a message; it will be tried again',
    retry: 'release',
  });

  return {
    start() {
      stopListening = onMailEnqueued(runner.wake);
      runner.start();
    },
    wake: runner.wake,
    runNow: runner.runNow,
    async close() {
      stopListening?.();
      await runner.close();
      deps.transport.close();
    },
  };
}
