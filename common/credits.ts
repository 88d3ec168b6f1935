/**
 * The credits page (issue 50): what a ledger line was for, the history's query and answer, the spend sums.
 * The server parses with these schemas; the SPA (both adapters) reads these types and labels.
 */
import { z } from 'zod';
import { TOP_UP_PACK_IDS } from './plans.ts';

/**
 * What a ledger line was for. The database derives it from the line's idempotency key (migration 0022), so every
 * writer of the ledger fills it without knowing of it: a paid image call's debit is `generation`, `upscale` or
 * `edit` by its reason; `refund` gives back a debit; `plan` is a subscription's grant; `adjustment` an operator's
 * change, a refunded payment's unspent credits taken back, or an erased account's forfeit.
 */
export const LEDGER_ENTRIES = [
  'generation',
  'shoot',
  'upscale',
  'edit',
  'training',
  'prompt',
  'refund',
  'plan',
  'topup',
  'promo',
  'adjustment',
] as const;
export type LedgerEntry = (typeof LEDGER_ENTRIES)[number];

export const LEDGER_ENTRY_LABELS: Record<LedgerEntry, string> = {
  generation: 'Generation',
  shoot: 'Shoot photos',
  upscale: 'Upscale',
  edit: 'Edit',
  training: 'Training',
  prompt: 'Prompt extraction',
  refund: 'Refund',
  plan: 'Plan grant',
  topup: 'Top-up',
  promo: 'Promo',
  adjustment: 'Adjustment',
};

/** The kinds that spend credits (the chart's and the period's sums); refunds are subtracted from them. */
export const SPEND_ENTRIES = ['generation', 'shoot', 'upscale', 'edit', 'training', 'prompt'] as const satisfies readonly LedgerEntry[];
export type SpendEntry = (typeof SPEND_ENTRIES)[number];

export const isLedgerEntry = (v: unknown): v is LedgerEntry => typeof v === 'string' && (LEDGER_ENTRIES as readonly string[]).includes(v);

export const HISTORY_PAGE_SIZE = 50;
export const SPEND_RANGES = [30, 90] as const;
export type SpendRange = (typeof SPEND_RANGES)[number];

/** Where a history page ended: created_at as Postgres writes it and the line's id, as one opaque string. */
export function encodeHistoryCursor(end: { at: string; id: string }): string {
  return `${end.at}|${end.id}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const POSTGRES_TIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:\d{2})?|Z)$/;

export function decodeHistoryCursor(cursor: string): { at: string; id: string } | null {
  const [at, id, ...rest] = cursor.split('|');
  if (rest.length || !at || !id || !POSTGRES_TIME.test(at) || !UUID.test(id)) return null;
  // Postgres writes the offset as +00; JavaScript reads only +00:00. A date that does not exist is refused here.
  if (Number.isNaN(Date.parse(at.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00')))) return null;
  return { at, id };
}

/** GET /api/credits/history?kind=…&cursor=… */
export const historyQuerySchema = z.object({
  kind: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '' || v === 'all') return undefined;
      if (!isLedgerEntry(v)) {
        ctx.addIssue({ code: 'custom', message: `must be one of ${LEDGER_ENTRIES.join(', ')}` });
        return z.NEVER;
      }
      return v;
    }),
  cursor: z
    .string()
    .max(120, 'is not a page of this list')
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const end = decodeHistoryCursor(v);
      if (!end) {
        ctx.addIssue({ code: 'custom', message: 'is not a page of this list' });
        return z.NEVER;
      }
      return end;
    }),
});
export type HistoryQuery = z.output<typeof historyQuerySchema>;

/** GET /api/credits/spend?days=30|90 */
export const spendQuerySchema = z.object({
  days: z
    .enum(['30', '90'], { error: 'must be 30 or 90' })
    .optional()
    .transform((v): SpendRange => (v === '90' ? 90 : 30)),
});

/** What a ledger line links to: the image it made, the shoot or the character it was for. */
export type LedgerLink = { type: 'image'; id: string } | { type: 'shoot'; id: string } | { type: 'character'; id: string } | null;

export interface LedgerLine {
  id: string;
  created_at: string;
  kind: LedgerEntry;
  reason: string;
  /** Positive when credits came in, negative when they were spent or taken back. */
  amount: number;
  balance_after: number;
  link: LedgerLink;
}

export interface HistoryPage {
  lines: LedgerLine[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

export interface SpendSummary {
  /** This period: the subscription's paid period in force, else the calendar month (UTC). */
  period_start: string;
  /** Credits spent this period per kind, net of refunds of that kind's work where the refund names it. */
  by_kind: { kind: SpendEntry; credits: number }[];
  refunded: number;
  days: SpendRange;
  /** One entry per UTC day, oldest first, the last being today: credits spent that day, refunds subtracted. */
  per_day: { day: string; credits: number }[];
}

/**
 * One line of the credit_history view (server/db/migrations/0027_credit_spend_days.sql), which both modes read: the
 * server as the tables' owner, the hosted SPA through PostgREST under row-level security. `created_at` is the
 * database's text of it, microseconds included (Postgres' own on the server, PostgREST's ISO form hosted), so a
 * page's end is exact in both.
 */
export interface HistoryRecord {
  id: string;
  created_at: string;
  entry: LedgerEntry;
  reason: string;
  delta: number;
  balance_after: number;
  link_type: 'image' | 'shoot' | 'character' | null;
  /** Null when what the line was for no longer exists (or never made anything: a failed job). */
  link_id: string | null;
}

export const HISTORY_RECORD_COLUMNS = 'id, created_at, entry, reason, delta, balance_after, link_type, link_id';

export function toLedgerLine(r: HistoryRecord): LedgerLine {
  return {
    id: r.id,
    created_at: new Date(r.created_at).toISOString(),
    kind: r.entry,
    reason: r.reason,
    amount: Number(r.delta),
    balance_after: Number(r.balance_after),
    link: r.link_type && r.link_id ? { type: r.link_type, id: r.link_id } : null,
  };
}

/** A page of history from up to `limit` + 1 records read newest first: the extra one says there is a next page. */
export function historyPageOf(records: HistoryRecord[], limit = HISTORY_PAGE_SIZE): HistoryPage {
  const more = records.length > limit;
  const shown = more ? records.slice(0, limit) : records;
  const last = shown.at(-1);
  return {
    lines: shown.map(toLedgerLine),
    next_cursor: more && last ? encodeHistoryCursor({ at: last.created_at, id: last.id }) : null,
  };
}

/** Where a link goes in the SPA. */
export function ledgerLinkHref(link: LedgerLink): string | null {
  if (!link) return null;
  if (link.type === 'image') return `/app/my-generations?image=${encodeURIComponent(link.id)}`;
  if (link.type === 'shoot') return `/app/photo-shoots/${encodeURIComponent(link.id)}`;
  return `/app/character-training?character=${encodeURIComponent(link.id)}`;
}

/** POST /api/credits/top-ups: which pack (common/plans.ts TOP_UP_PACKS). */
export const topUpRequestSchema = z.object({
  pack: z.enum(TOP_UP_PACK_IDS, { error: 'Choose one of the credit packs.' }),
});

/** ?top_up=… flags and the return address's fields the credits page sends back (Creem's success redirect). */
export const TOP_UP_RETURN_FIELDS = [
  'checkout_id',
  'order_id',
  'customer_id',
  'subscription_id',
  'product_id',
  'request_id',
  'signature',
] as const;

/**
 * The signed return address's fields, when a page was opened by a payer coming back from a pack's checkout (the
 * credits page for a person's top-up, the team page for a team's); null otherwise.
 */
export function topUpReturnOf(params: URLSearchParams): Record<string, string> | null {
  if (!params.get('signature') || !params.get('order_id')) return null;
  const fields: Record<string, string> = {};
  for (const field of TOP_UP_RETURN_FIELDS) {
    const value = params.get(field);
    if (value !== null) fields[field] = value;
  }
  return fields;
}

/**
 * POST /api/credits/top-ups/return: the signed return address's fields, as the payer came back with them. Only
 * these are read (and signed over); anything else is dropped before the signature is checked.
 */
export const topUpReturnSchema = z.object(
  Object.fromEntries(
    TOP_UP_RETURN_FIELDS.map((field) => [field, z.string({ error: 'must be text' }).max(300, 'is too long').optional()]),
  ) as Record<(typeof TOP_UP_RETURN_FIELDS)[number], z.ZodOptional<z.ZodString>>,
);

/**
 * Low balance (issue 50 item 5): the balance is below what the person's last paid action cost, so they cannot do
 * that again. Before any spending there is no such action, and no notice.
 */
export const isLowBalance = (balance: number, lastCost: number | undefined): boolean => lastCost !== undefined && balance < lastCost;

/** GET /api/credits/low-balance */
export interface LowBalanceStatus {
  low: boolean;
  balance: number;
  /** The newest spending line: its kind and what it cost. */
  last: { kind: SpendEntry; cost: number } | null;
}
