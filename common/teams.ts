/**
 * Teams (issue 49): a company orders headshots for its people in one look. The rules both sides share: roles,
 * invite limits, the CSV import's rules and report, the team look's shape, member statuses and the ZIP's names.
 */
import { z } from 'zod';
import { PACK_ASPECTS, PACK_PROMPTS, cataloguePackSchema, type PackAspect } from './photo-shoots.ts';
import { TOP_UP_PACK_IDS } from './plans.ts';
import { storableText, TEXT_LIMITS } from './text.ts';

export const TEAM_ROLES = ['owner', 'manager', 'member'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];
/** Owners and managers run the team: invites, the dashboard, reminders, approvals. */
export const isLead = (role: TeamRole) => role !== 'member';

/** A personal invite's link works this long, once. */
export const INVITE_DAYS = 7;
/** A CSV import or a pasted list holds at most this many rows. */
export const INVITE_ROW_LIMIT = 10_000;
/** 'Remind' mails a person at most once in this many hours. */
export const REMIND_HOURS = 24;
/** A member submits up to this many favourites. */
export const SUBMISSION_MAX = 3;

export const TEAM_TEXTS = {
  rowLimit: (rows: number) =>
    `A list can hold at most ${INVITE_ROW_LIMIT.toLocaleString('en-US')} people; this one has ${rows.toLocaleString('en-US')} rows. Split it and import each part.`,
  linkExpired: 'This invite link has expired. Ask your team lead to send you a new one.',
  linkUsed: 'This invite link has already been used. Ask your team lead to send you a new one.',
  linkRevoked: 'This invite link was withdrawn. Ask your team lead to send you a new one.',
  linkFull: 'This invite link has reached its usage limit. Ask your team lead for a new one.',
  linkUnknown: 'This invite link is not valid. Check that you copied all of it, or ask your team lead for a new one.',
  outsideDomain: (domain: string) => `This invite is only for addresses at ${domain}. Sign in with your ${domain} address.`,
  notEnoughTeamCredits: (required: number, available: number) =>
    `This needs ${required} team credits; the team has ${available}. Ask your team lead to buy more.`,
  purchaseUnavailable: 'Credit packs are not on sale here yet.',
  purchaseReason: (credits: number) => `Team credits bought: ${credits.toLocaleString('en-US')}`,
  purchaseReversed: (how: 'refunded' | 'charged back', credits: number) =>
    `Team credits ${how}: ${credits.toLocaleString('en-US')} unspent credits removed`,
  purchaseBadReturn: 'This payment confirmation could not be checked. If you paid, the team’s credits arrive within a minute.',
  purchaseOtherTeam: 'This payment confirmation belongs to another team.',
} as const;

/** Why an invite link cannot be used (the welcome page says so and how to get a new one). */
export type InviteRefusal = 'expired' | 'used' | 'revoked' | 'full' | 'unknown';
export const INVITE_REFUSAL_TEXT: Record<InviteRefusal, string> = {
  expired: TEAM_TEXTS.linkExpired,
  used: TEAM_TEXTS.linkUsed,
  revoked: TEAM_TEXTS.linkRevoked,
  full: TEAM_TEXTS.linkFull,
  unknown: TEAM_TEXTS.linkUnknown,
};

const EMAIL = /^[^\s@<>(),;:"[\]]+@[^\s@<>(),;:"[\]]+\.[^\s@<>(),;:"[\]]+$/;
/** An e-mail domain (`example.com`), lower-cased; a leading @ is dropped. */
export const emailDomainSchema = z
  .string({ error: 'must be text' })
  .trim()
  .toLowerCase()
  .transform((d) => d.replace(/^@/, ''))
  .refine((d) => /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d), 'must be a domain such as example.com');

export const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/** The space a list is read in (issue 49): `?team=<id>` for the caller's work in that team, none for their personal space. */
export const spaceQuerySchema = z.object({ team: z.uuid({ error: 'must be a team id' }).optional() });

/** 'Buy team credits' (issue 49 item 2): one of the credit packs, bought by the owner for the team. */
export const teamPurchaseSchema = z.object({ pack: z.enum(TOP_UP_PACK_IDS, { error: 'must be one of the credit packs' }) });

export const createTeamSchema = z.object({ name: storableText(80).trim().min(1, 'must not be blank') });

/** One person to invite, as pasted or read from a CSV row. */
export interface InviteRow {
  email: string;
  name: string | null;
  title: string | null;
}

/** What the import will do with a row (nothing is sent until the lead confirms the report). */
export type InviteRowOutcome = 'invite' | 'malformed' | 'duplicate' | 'member' | 'invited' | 'outside_domain';
export const INVITE_ROW_TEXT: Record<InviteRowOutcome, string> = {
  invite: 'Will be invited',
  malformed: 'Not an e-mail address',
  duplicate: 'Appears earlier in the list',
  member: 'Already in the team',
  invited: 'Already invited (re-send it from the invites list)',
  outside_domain: 'Outside the team’s e-mail domain',
};
export interface InviteReportRow {
  /** 1-based line in what was pasted or uploaded (the CSV's header is line 1). */
  line: number;
  email: string;
  name: string | null;
  title: string | null;
  outcome: InviteRowOutcome;
}

/** Splits one CSV line (RFC 4180 quotes, commas or semicolons). */
function splitCsvLine(line: string, separator: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') ((cell += '"'), i++);
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === separator) (cells.push(cell), (cell = ''));
    else cell += ch;
  }
  cells.push(cell);
  return cells.map((c) => c.trim());
}

/**
 * People from pasted text or a CSV file: a CSV with a header naming `email` (and optionally `name`, `title`),
 * or one address per line (commas, semicolons and spaces separate addresses too). Blank lines are skipped.
 * Each row keeps its line number, so the report points at it. Addresses are lower-cased; malformed ones stay,
 * marked by classifyInvites.
 */
export function parseInviteList(text: string): { rows: (InviteRow & { line: number })[]; total: number } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const first = lines.find((l) => l.trim()) ?? '';
  const separator = first.includes(';') && !first.includes(',') ? ';' : ',';
  const header = splitCsvLine(first, separator).map((h) => h.toLowerCase());
  const rows: (InviteRow & { line: number })[] = [];
  if (header.includes('email') || header.includes('e-mail')) {
    const at = (k: string) => header.indexOf(k);
    const emailAt = at('email') >= 0 ? at('email') : at('e-mail');
    const headerLine = lines.indexOf(first);
    for (let i = headerLine + 1; i < lines.length; i++) {
      if (!lines[i].trim()) continue;
      const cells = splitCsvLine(lines[i], separator);
      const cell = (k: number) => (k >= 0 && cells[k] ? cells[k].slice(0, TEXT_LIMITS.personName) : null);
      rows.push({ line: i + 1, email: (cells[emailAt] ?? '').toLowerCase(), name: cell(at('name')), title: cell(at('title')) });
    }
  } else {
    lines.forEach((l, i) => {
      for (const part of l.split(/[\s,;]+/).filter(Boolean)) rows.push({ line: i + 1, email: part.toLowerCase(), name: null, title: null });
    });
  }
  return { rows, total: rows.length };
}

export const isEmail = (s: string) => s.length <= TEXT_LIMITS.email && EMAIL.test(s);

/** The row-by-row report: what each row will become, given who is in the team or invited and its domain. */
export function classifyInvites(
  rows: (InviteRow & { line: number })[],
  known: { members: Set<string>; invited: Set<string>; domain: string | null },
): InviteReportRow[] {
  const seen = new Set<string>();
  return rows.map((r) => {
    let outcome: InviteRowOutcome = 'invite';
    if (!isEmail(r.email)) outcome = 'malformed';
    else if (seen.has(r.email)) outcome = 'duplicate';
    else if (known.members.has(r.email)) outcome = 'member';
    else if (known.invited.has(r.email)) outcome = 'invited';
    else if (known.domain && domainOf(r.email) !== known.domain) outcome = 'outside_domain';
    if (isEmail(r.email)) seen.add(r.email);
    return { ...r, outcome };
  });
}

export const inviteListSchema = z.object({
  /** Pasted addresses or the CSV file's text. */
  text: z.string({ error: 'must be text' }).max(2_000_000, 'is too long'),
  /** false: only the report; true: send the rows marked 'invite', all or nothing. */
  send: z.boolean().default(false),
});

export const openLinkSchema = z.object({
  domain: emailDomainSchema.nullable().default(null),
  usage_limit: z.number().int().min(1, 'must be at least 1').max(100_000).nullable().default(null),
  /** ISO date-time; null: never expires. */
  expires_at: z.iso.datetime({ offset: true, error: 'must be a date and time' }).nullable().default(null),
});

export const teamSettingsSchema = z.object({
  name: storableText(80).trim().min(1, 'must not be blank').optional(),
  /** The e-mail domain personal invites and CSV imports are held to; null: any. */
  domain: emailDomainSchema.nullable().optional(),
});

/** A team pack as the team page edits it: validated as imported packs are (common/photo-shoots.ts). */
export const teamPackSchema = z.object({
  name: storableText(80).trim().min(1, 'must not be blank'),
  backdrop: storableText(200).trim().min(1, 'must not be blank'),
  clothing: storableText(200).trim().min(1, 'must not be blank'),
  framing: storableText(200).trim().min(1, 'must not be blank'),
  prompts: cataloguePackSchema.shape.prompts,
});
export type TeamPack = z.infer<typeof teamPackSchema>;

export const teamLookSchema = z
  .object({
    /** A catalogue pack, or null with `team_pack`. */
    pack_id: z.string({ error: 'must be text' }).max(64).nullable().default(null),
    team_pack: teamPackSchema.nullable().default(null),
    aspect_ratio: z.enum(Object.keys(PACK_ASPECTS) as [PackAspect, ...PackAspect[]], {
      error: `must be one of ${Object.keys(PACK_ASPECTS).join(', ')}`,
    }),
    /** YYYY-MM-DD, or null. */
    due_date: z.iso.date({ error: 'must be a date (YYYY-MM-DD)' }).nullable().default(null),
  })
  .refine((l) => (l.pack_id === null) !== (l.team_pack === null), {
    message: 'choose a pack from the catalogue or write a team pack, not both',
    path: ['pack_id'],
  });
export type TeamLook = z.infer<typeof teamLookSchema>;
export { PACK_PROMPTS };

export const submissionSchema = z.object({
  generation_ids: z
    .array(z.string().uuid('must be a uuid'))
    .min(1, 'pick at least one photo')
    .max(SUBMISSION_MAX, `pick at most ${SUBMISSION_MAX} photos`),
});

export const MEMBER_STATUSES = [
  'invited',
  'joined',
  'photos uploaded',
  'training',
  'shooting',
  'to pick',
  'submitted',
  'approved',
] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

/** `Jane Doe` → `jane-doe`; an address's local part when there is no name; never empty. */
export function personSlug(name: string | null, email: string | null): string {
  const base = (name?.trim() || email?.split('@')[0] || 'member')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return base || 'member';
}

/**
 * Where a member stands, from their newest team training and team shoot and their submission. 'photos
 * uploaded': their photos are in and trained (or the training failed and must be tried again), and the next
 * step, the team shoot, is theirs.
 */
export function memberStatus(m: {
  submissionStatus: 'submitted' | 'approved' | 'ask_again' | null;
  training: string | null;
  shoot: string | null;
}): MemberStatus {
  if (m.submissionStatus === 'approved') return 'approved';
  if (m.submissionStatus === 'submitted') return 'submitted';
  if (m.shoot === 'RUNNING') return 'shooting';
  if (m.shoot === 'COMPLETED' || m.shoot === 'CANCELLED' || m.submissionStatus === 'ask_again') return 'to pick';
  if (m.training === 'IN_PROGRESS') return 'training';
  if (m.training === 'COMPLETED' || m.training === 'FAILED' || m.shoot === 'FAILED') return 'photos uploaded';
  return 'joined';
}
/** Statuses 'Remind' mails: everyone not yet submitted. */
export const NOT_DONE: readonly MemberStatus[] = ['invited', 'joined', 'photos uploaded', 'training', 'shooting', 'to pick'];

export interface TeamView {
  id: string;
  name: string;
  role: TeamRole;
  /** The team's balance, which pays its members' team work (every member sees it). */
  credits: number;
  domain: string | null;
  due_date: string | null;
  aspect_ratio: string | null;
  pack_id: string | null;
  pack_name: string | null;
  team_pack: TeamPack | null;
}

export interface TeamMemberView {
  user_id: string;
  role: TeamRole;
  name: string | null;
  title: string | null;
  email: string | null;
  status: MemberStatus;
  submission: string[];
  /** The picks' images (media paths), in the member's order. */
  submission_urls: string[];
  last_reminded_at: string | null;
}

/** A member's own page: their status, team characters and team-shoot photos. */
export interface TeamMemberWork extends TeamMemberView {
  characters: { id: string; name: string; status: string }[];
  photos: { id: string; image_url: string }[];
  running_shoot_id: string | null;
}

export interface TeamInviteView {
  id: string;
  kind: 'personal' | 'open';
  email: string | null;
  name: string | null;
  title: string | null;
  /** Open links only: the link's token (leads may copy it again). */
  token: string | null;
  domain: string | null;
  usage_limit: number | null;
  use_count: number;
  expires_at: string | null;
  revoked: boolean;
  expired: boolean;
}

/** What the welcome page shows before anyone signs in. */
export type InviteWelcome =
  | {
      ok: true;
      team: string;
      due_date: string | null;
      look: { pack_name: string | null; aspect_ratio: string | null };
      domain: string | null;
    }
  | { ok: false; reason: InviteRefusal; message: string };
