import {
  HISTORY_PAGE_SIZE,
  historyPageOf,
  LEDGER_ENTRY_LABELS,
  SPEND_ENTRIES,
  toLedgerLine,
  type HistoryPage,
  type HistoryQuery,
  type LedgerEntry,
  type SpendRange,
  type SpendSummary,
} from '@common/credits.ts';
import type { Db, Executor } from '../db/index.ts';
import { creditHistoryRepository as repo } from '../repositories/credit-history.repository.ts';
import { subscriptionsRepository as subs } from '../repositories/subscriptions.repository.ts';

export type CreditsHistoryService = ReturnType<typeof createCreditsHistoryService>;

/** Subscription statuses whose paid period is "this period" (billing's ENTITLED set). */
const IN_FORCE = new Set(['active', 'scheduled_cancel', 'past_due']);
/** Lines read per statement while a CSV streams: a bounded amount in memory whatever the account's size. */
const CSV_BATCH = 1000;

/** A CSV field: quoted when it must be, and text a spreadsheet would run as a formula made inert. */
function csvField(value: string | number): string {
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Start of this period: the paid period of the subscription in force, else the calendar month (UTC). The spend sums
 * and the low-balance mail (once per period) both count from it.
 */
export async function periodStartOf(db: Executor, userId: string, now: Date): Promise<Date> {
  const inForce = (await subs.listForUser(db, userId)).filter((s) => IN_FORCE.has(s.status) && s.currentPeriodStart);
  const newest = inForce.sort((a, b) => b.currentPeriodStart!.getTime() - a.currentPeriodStart!.getTime())[0];
  if (newest?.currentPeriodStart && newest.currentPeriodStart <= now) return newest.currentPeriodStart;
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export const CSV_HEADER = ['Date (UTC)', 'Kind', 'Description', 'Amount', 'Balance after', 'Link'];

/** The credits page's reads: the ledger's history, its CSV, and the spend sums above them (issue 50, item 1). */
export function createCreditsHistoryService(deps: { db: Db; publicUrl?: string }) {
  const { db } = deps;

  async function page(userId: string, query: HistoryQuery, limit = HISTORY_PAGE_SIZE): Promise<HistoryPage> {
    return historyPageOf(await repo.page(db, userId, { entry: query.kind, end: query.cursor, limit: limit + 1 }), limit);
  }

  return {
    page,

    async spend(userId: string, days: SpendRange, now = new Date()): Promise<SpendSummary> {
      // The chart does not depend on the period: it is read while the period's start is looked up.
      const [{ from, byKind, refunded }, perDay] = await Promise.all([
        periodStartOf(db, userId, now).then(async (start) => ({ from: start, ...(await repo.spendByKind(db, userId, start)) })),
        repo.spendPerDay(db, userId, days),
      ]);
      return {
        period_start: from.toISOString(),
        by_kind: SPEND_ENTRIES.map((kind) => ({ kind, credits: byKind.get(kind) ?? 0 })),
        refunded,
        days,
        per_day: perDay,
      };
    },

    /**
     * Every line of the account (of one kind, or all), newest first, as CSV text in pieces: read a batch at a time
     * by keyset, so a long history streams in bounded memory and a page's end never skips or repeats a line.
     */
    async *csv(userId: string, kind?: LedgerEntry): AsyncGenerator<string> {
      yield `${CSV_HEADER.join(',')}\r\n`;
      let cursor: HistoryQuery['cursor'];
      for (;;) {
        const rows = await repo.page(db, userId, { entry: kind, end: cursor, limit: CSV_BATCH });
        let text = '';
        for (const r of rows) {
          const line = toLedgerLine(r);
          const link = line.link ? `${line.link.type}:${line.link.id}` : '';
          text += `${[line.created_at, LEDGER_ENTRY_LABELS[line.kind], line.reason, line.amount, line.balance_after, link].map(csvField).join(',')}\r\n`;
        }
        if (text) yield text;
        if (rows.length < CSV_BATCH) return;
        const last = rows[rows.length - 1];
        cursor = { at: last.created_at, id: last.id };
      }
    },
  };
}
