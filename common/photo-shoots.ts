/**
 * Photo shoots: a pack of photographer's-brief prompts run for one trained character. The rules
 * both sides share: the catalogue's shape, prompt templating, the cost, the views and the progress words.
 */
import { z } from 'zod';
import type { LikenessVerdict } from './likeness.ts';
import { CREDIT_COSTS } from './product.ts';
import { storableText, TEXT_LIMITS, timeLeftText } from './text.ts';

export const PACK_CATEGORIES = [
  'Corporate headshot',
  'LinkedIn profile',
  'Studio black & white',
  'Outdoor natural light',
  'Creative professional',
  'Doctor / medical',
  'Real estate agent',
  'Actor headshot',
  'Dating profile',
  'Travel',
  'Fitness',
  'Cinematic',
] as const;

/** A pack's frame; each maps to a size FLUX renders well (multiples of 8 within the generation bounds). */
export const PACK_ASPECTS = {
  '1:1': { width: 1024, height: 1024 },
  '4:5': { width: 896, height: 1120 },
  '2:3': { width: 832, height: 1248 },
  '3:2': { width: 1248, height: 832 },
  '16:9': { width: 1344, height: 768 },
} as const;
export type PackAspect = keyof typeof PACK_ASPECTS;

export const PACK_PROMPTS = { min: 8, max: 20 } as const;
/** Placeholders a template may use; anything else in braces is refused at import. */
export const TEMPLATE_FIELDS = ['trigger', 'subject', 'person', 'pronoun', 'possessive', 'hair'] as const;

/** N photos cost N × the generation cost (product §9). */
export const shootCost = (photoCount: number) => photoCount * CREDIT_COSTS.generation;

const packId = z
  .string({ error: 'must be text' })
  .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'must be 2 to 63 lowercase letters, digits and dashes');

const template = storableText(TEXT_LIMITS.prompt)
  .trim()
  .min(1, 'must not be blank')
  .refine((t) => [...t.matchAll(/\{([^}]*)\}/g)].every((m) => (TEMPLATE_FIELDS as readonly string[]).includes(m[1])), {
    message: `may use only the placeholders ${TEMPLATE_FIELDS.map((f) => `{${f}}`).join(', ')}`,
  })
  .refine((t) => t.includes('{trigger}') || t.includes('{subject}'), { message: 'must name the character with {subject} or {trigger}' });

/** One pack as the catalogue file and `admin packs import` write it. */
export const cataloguePackSchema = z.object({
  id: packId,
  name: storableText(80).trim().min(1, 'must not be blank'),
  description: storableText(200).trim().min(1, 'must not be blank'),
  category: storableText(60).trim().min(1, 'must not be blank'),
  aspect_ratio: z.enum(Object.keys(PACK_ASPECTS) as [PackAspect, ...PackAspect[]], {
    error: `must be one of ${Object.keys(PACK_ASPECTS).join(', ')}`,
  }),
  prompts: z
    .array(template, { error: 'must be a list' })
    .min(PACK_PROMPTS.min, `must hold at least ${PACK_PROMPTS.min} prompts`)
    .max(PACK_PROMPTS.max, `must hold at most ${PACK_PROMPTS.max} prompts`),
});
export type CataloguePack = z.infer<typeof cataloguePackSchema>;

export const catalogueSchema = z.object({
  version: z.number().int().min(1),
  packs: z.array(cataloguePackSchema).min(1),
});
export type Catalogue = z.infer<typeof catalogueSchema>;

/** The character a template is filled for (the training form's answers). */
export interface PromptCharacter {
  triggerWord: string | null;
  gender: string;
  hairColor: string;
}

const SUBJECT: Record<string, { person: string; pronoun: string; possessive: string }> = {
  male: { person: 'man', pronoun: 'he', possessive: 'his' },
  female: { person: 'woman', pronoun: 'she', possessive: 'her' },
  other: { person: 'person', pronoun: 'they', possessive: 'their' },
};
const HAIR: Record<string, string> = {
  black: 'black hair',
  brown: 'brown hair',
  blonde: 'blonde hair',
  red: 'red hair',
  gray: 'gray hair',
  white: 'white hair',
  other: 'natural hair',
};

/**
 * Fills a template for a character: {trigger} the trigger word (the LoRA's token; 'TOK' when the training had
 * none), {person} 'man' / 'woman' / 'person', {subject} '<trigger> <person>', {pronoun}, {possessive}, {hair}.
 */
export function fillPrompt(templateText: string, character: PromptCharacter): string {
  const who = SUBJECT[character.gender] ?? SUBJECT.other;
  const trigger = character.triggerWord?.trim() || 'TOK';
  const values: Record<string, string> = {
    trigger,
    person: who.person,
    // 'photo of riley, a woman with brown hair': reads as English, and keeps the trigger word and the class word
    // a LoRA is trained on side by side ('riley woman' read oddly, 'riley person' more so).
    subject: `${trigger}, a ${who.person}`,
    pronoun: who.pronoun,
    possessive: who.possessive,
    hair: HAIR[character.hairColor] ?? HAIR.other,
  };
  return templateText
    .replace(/\{([a-z]+)\}/g, (whole, name: string) => values[name] ?? whole)
    .replace(/\s+/g, ' ')
    .trim();
}

/** A template in words for the pack page: the character is 'the person'. */
export function describePrompt(templateText: string): string {
  const text = templateText
    .replace(/\s+with \{hair\}/g, '')
    .replace(/\{subject\}|\{trigger\}( \{person\})?/g, 'the person')
    .replace(/\{person\}/g, 'person')
    .replace(/\{pronoun\}/g, 'they')
    .replace(/\{possessive\}/g, 'their')
    .replace(/\{hair\}/g, 'their hair')
    .replace(/\s+/g, ' ')
    .trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** POST /api/shoots */
export const startShootSchema = z.object({
  pack_id: storableText(TEXT_LIMITS.url).trim().min(1, 'is required'),
  lora_id: z.string({ error: 'is required' }).uuid('must be a character id'),
  /** Teams (issue 49): the team shoot, in the team's look (pack_id is then the team's) and paid by the team. */
  team_id: z.string({ error: 'must be a team id' }).uuid('must be a team id').optional(),
});
export type StartShootRequest = z.infer<typeof startShootSchema>;

export interface PackView {
  id: string;
  name: string;
  description: string;
  category: string;
  aspect_ratio: string;
  width: number;
  height: number;
  cover_url: string | null;
  /** Sample photos of the pack (the cover first). */
  sample_urls: string[];
  photo_count: number;
  /** photo_count × the generation cost. */
  cost: number;
  /** The prompts in words, with the character left as 'the person'. */
  prompts: string[];
}

export type ShootStatus = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';
export type ShootPhotoStatus = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

export interface ShootPhotoView {
  id: string;
  position: number;
  status: ShootPhotoStatus;
  prompt: string;
  width: number;
  height: number;
  image_url: string | null;
  generation_id: string | null;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
  /** Queued photos only: photos (of every shoot) that will start before this one. */
  ahead: number | null;
  /** The photo landed and the person has deleted it from My Generations since: no image, not in the ZIP. */
  deleted: boolean;
  /** The kept photo's likeness to the character (common/likeness.ts); null until it landed and was checked. */
  likeness: number | null;
  likeness_verdict: LikenessVerdict | null;
}

export interface ShootView {
  id: string;
  pack_id: string;
  pack_name: string;
  lora_id: string | null;
  character_name: string;
  status: ShootStatus;
  photo_count: number;
  cost: number;
  created_at: string;
  finished_at: string | null;
  photos: ShootPhotoView[];
  /** Photos taken again for likeness (at most ⌈N/4⌉). */
  retaken: number;
  /** Mean time of recent photos on this server (ms), for an estimate before this shoot's first photo lands. */
  recent_photo_ms?: number | null;
}

/**
 * A row of the shoot_photo_views view (server/db/migrations/0020_shoot_photo_views.sql), the one definition of
 * what a shoot photo shows, as the server's driver (timestamps as Dates) or PostgREST (as strings) gives it.
 */
export type ShootPhotoViewRecord = Omit<ShootPhotoView, 'started_at' | 'finished_at'> & {
  shoot_id?: string;
  started_at: string | Date | null;
  finished_at: string | Date | null;
};

/** A shoot_photo_views row as the page's ShootPhotoView, the same in both modes. */
export function toShootPhotoView({ shoot_id: _shoot, ...row }: ShootPhotoViewRecord): ShootPhotoView {
  const iso = (t: string | Date | null) => (t === null ? null : new Date(t).toISOString());
  return { ...row, started_at: iso(row.started_at), finished_at: iso(row.finished_at) };
}

/** A shoot in a list (the sidebar's running shoots, the page's own shoots). */
export type ShootSummary = Omit<ShootView, 'photos'> & { ready: number; failed: number };

export const SHOOT_TEXTS = {
  trainFirst: 'Train a character first',
  start: 'Start shoot',
  cancel: 'Cancel shoot',
  downloadAll: 'Download all',
  needCredits: (cost: number) => `Need ${cost} Credits`,
  photos: (n: number) => `${n} photos`,
  credits: (n: number) => `${n} credits`,
  ready: (k: number, n: number) => `${k} of ${n} ready`,
  failed: (m: number) => `${m} failed, refunded`,
  deleted: (m: number) => `${m} deleted`,
  /** Whole minutes from a minute up, whole seconds under it: an estimate that moves as photos land. */
  timeLeft: timeLeftText,
  ahead: (n: number) => `${n} ahead`,
  /** Cancel shoot asks this first: photos not started are refunded, the ones being taken still land. */
  cancelQuestion: (notStarted: number, running: number) =>
    [
      notStarted === 0
        ? 'Cancel this shoot? Every photo has started already, so nothing is refunded.'
        : notStarted === 1
          ? `Cancel this shoot? The 1 photo not yet taken is refunded (${shootCost(1)} credits).`
          : `Cancel this shoot? The ${notStarted} photos not yet taken are refunded (${shootCost(notStarted)} credits).`,
      running === 1 ? 'The photo being taken now still lands.' : running > 1 ? `The ${running} photos being taken now still land.` : '',
    ]
      .filter(Boolean)
      .join(' '),
  keepShooting: 'Keep shooting',
} as const;

export interface ShootProgress {
  total: number;
  /** Landed and still there (not deleted from My Generations since). */
  ready: number;
  deleted: number;
  failed: number;
  cancelled: number;
  /** Photos still to land (queued or running). */
  left: number;
  /** Milliseconds the photos left should take, from the measured times, while photos are left; else null. */
  msLeft: number | null;
}

/**
 * 'k of N ready', 'm failed, refunded' and 'about M min left' (or 'about S s left'): a photo is ready once its kept version is final
 * (after any re-take for likeness), and the estimate is the mean measured time of this shoot's finished
 * photos, each measured from its first take to its kept version, so re-takes are in it (or `fallbackMs`, e.g. a recent average) × photos left ÷ photos running.
 */
export function shootProgress(
  photos: (Pick<ShootPhotoView, 'status' | 'started_at' | 'finished_at'> & { deleted?: boolean })[],
  fallbackMs?: number,
): ShootProgress {
  const count = (s: ShootPhotoStatus) => photos.filter((p) => p.status === s).length;
  const deleted = photos.filter((p) => p.status === 'SUCCEEDED' && p.deleted).length;
  const ready = count('SUCCEEDED') - deleted;
  const failed = count('FAILED');
  const cancelled = count('CANCELLED');
  const running = count('RUNNING');
  const left = count('QUEUED') + running;
  const times = photos
    .filter((p) => p.status === 'SUCCEEDED' && p.started_at && p.finished_at)
    .map((p) => Date.parse(p.finished_at!) - Date.parse(p.started_at!))
    .filter((ms) => ms >= 0);
  const perPhoto = times.length ? times.reduce((a, b) => a + b, 0) / times.length : fallbackMs;
  const msLeft = left > 0 && perPhoto !== undefined ? (left * perPhoto) / Math.max(1, running) : null;
  return { total: photos.length, ready, deleted, failed, cancelled, left, msLeft };
}

/** `<character>-<pack>.zip`, in letters (of any script, without their accents), digits and dashes. */
export function shootArchiveName(characterName: string, packName: string): string {
  const slug = (s: string) =>
    s
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .toLowerCase() || 'photos';
  return `${slug(characterName)}-${slug(packName)}.zip`;
}

/** 01.jpg, 02.jpg … (three digits past 99). */
export function archiveEntryName(index: number, total: number, extension: string): string {
  return `${String(index + 1).padStart(Math.max(2, String(total).length), '0')}.${extension}`;
}
