/**
 * The galleries' API (product §2 My Generations, Favorites, Explore; §4 favourite and pagination; §7 queries):
 * query schemas the server parses with and the answers the SPA reads.
 */
import { z } from 'zod';
import type { GenerationView } from './generation.ts';
import { WEAK_VERDICTS } from './likeness.ts';
import { LIMITS } from './product.ts';

/** Pages past this are refused: no gallery holds 400,000 items, and deep offsets only cost the database. */
export const MAX_PAGE = 10_000;

/**
 * The words an explore item's attributes are drawn from. Curation only accepts these, so the filter
 * options stay a short, clean list and a filter value outside it is a client mistake (400), not "no match".
 */
export const EXPLORE_VOCABULARY = {
  gender: ['female', 'male', 'other'],
  hair_color: ['black', 'blonde', 'brown', 'gray', 'red', 'white', 'other'],
  ethnicity: ['african', 'east-asian', 'hispanic', 'middle-eastern', 'south-asian', 'white', 'mixed'],
  style: ['cinematic', 'editorial', 'fashion', 'headshot', 'lifestyle', 'portrait', 'street'],
} as const;

export type ExploreFilterName = keyof typeof EXPLORE_VOCABULARY;
export const EXPLORE_FILTER_NAMES: readonly ExploreFilterName[] = ['gender', 'hair_color', 'ethnicity', 'style'];

const page = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === '') return 1;
    const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1 || n > MAX_PAGE) {
      ctx.addIssue({ code: 'custom', message: `must be a whole number from 1 to ${MAX_PAGE}` });
      return z.NEVER;
    }
    return n;
  });

const flag = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .optional()
  .transform((v) => v === 'true');

/** GET /api/library/generations?page=N&favorites=true&likeness=weak ('Weak likeness': weak or faceless images). */
export const libraryQuerySchema = z.object({
  page,
  favorites: flag,
  likeness: z
    .enum(['weak'], { error: 'must be weak' })
    .optional()
    .transform((v) => v === 'weak'),
});
export type LibraryQuery = z.output<typeof libraryQuerySchema>;

const filterValue = (name: ExploreFilterName) => {
  const allowed: readonly string[] = EXPLORE_VOCABULARY[name];
  return z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      if (!allowed.includes(v)) {
        ctx.addIssue({ code: 'custom', message: `must be one of ${allowed.join(', ')}` });
        return z.NEVER;
      }
      return v;
    });
};

/** GET /api/explore?page=&gender=&hair_color=&ethnicity=&style= */
export const exploreQuerySchema = z.object({
  page,
  gender: filterValue('gender'),
  hair_color: filterValue('hair_color'),
  ethnicity: filterValue('ethnicity'),
  style: filterValue('style'),
});
export type ExploreQuery = z.output<typeof exploreQuerySchema>;
export type ExploreFilters = Partial<Omit<ExploreQuery, 'page'>>;

/** PATCH /api/library/generations/:id */
export const favoriteBodySchema = z.object(
  { is_favorite: z.boolean({ error: 'must be true or false' }) },
  { error: 'must be {is_favorite}' },
);

/** A page of a list with its exact total (product §7: range and exact count). */
export interface Page<T> {
  items: T[];
  page: number;
  pageSize: typeof LIMITS.pageSize;
  total: number;
  pageCount: number;
}

export type LibraryPage = Page<GenerationView>;

/** An explore_gallery row as the SPA sees it (product §3). */
export interface ExploreItem {
  id: string;
  image_url: string;
  prompt: string;
  width: number;
  height: number;
  style: string | null;
  seed: string | null;
  num_inference_steps: number | null;
  guidance_scale: number | null;
  gender: string | null;
  ethnicity: string | null;
  hair_color: string | null;
  is_featured: boolean;
  created_at: string;
}

export type ExplorePage = Page<ExploreItem>;

/** GET /api/explore/filters: the distinct values present, sorted (product §7). */
export type ExploreFilterOptions = Record<ExploreFilterName, string[]>;

export const pageCountOf = (total: number) => Math.max(1, Math.ceil(total / LIMITS.pageSize));

// ───────────────────────── Selection in My Generations ─────────────────────────

/** At most this many images are deleted, favourited or downloaded at once. */
export const MAX_SELECTION = 200;
export const SELECTION_TOO_LARGE = `Select at most ${MAX_SELECTION} images at once.`;
export const SELECTION_GONE = 'Some of the selected images are no longer in your gallery. Nothing was changed; please select again.';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The selected generations' ids: 1 to MAX_SELECTION, each a generation id; repeats count once. */
export const selectionIdsSchema = z
  .array(z.string({ error: 'must be generation ids' }).regex(UUID, 'must be generation ids'), { error: 'must be a list of generation ids' })
  .min(1, 'select at least one image')
  .max(MAX_SELECTION, SELECTION_TOO_LARGE)
  .transform((ids) => [...new Set(ids.map((id) => id.toLowerCase()))]);

/**
 * POST /api/library/selection: 'Delete' or 'Add to favorites' for the selected images, or 'restore' (the
 * toast's Undo right after a 'Delete').
 */
export const selectionActionSchema = z.object(
  { action: z.enum(['delete', 'favorite', 'restore'], { error: 'must be delete, favorite or restore' }), ids: selectionIdsSchema },
  { error: 'must be {action, ids}' },
);
export type SelectionAction = z.input<typeof selectionActionSchema>;

/** GET /api/library/selection.zip?ids=<id>,<id>,…: 'Download' of the selected images. */
export const selectionDownloadQuerySchema = z.object({
  ids: z
    .string({ error: 'is required' })
    .transform((v) => v.split(',').filter(Boolean))
    .pipe(selectionIdsSchema),
});

export interface SelectionResult {
  /** How many images the action changed. */
  changed: number;
}
/**
 * How long a deleted generation can still be restored (the walk-through's Undo). Its image and thumbnails
 * stop being served at once; the files themselves are removed from storage once this has lapsed.
 */
export const GENERATION_UNDO_SECONDS = 10;
/**
 * How long the 'Image deleted' toast offers Undo: well inside GENERATION_UNDO_SECONDS, so an Undo clicked as
 * the toast leaves still reaches the server in time.
 */
export const UNDO_TOAST_MS = 6_000;
/** The toast after a delete: 'Image deleted', or the count after a selection's 'Delete' ('3 images deleted'). */
export const deletedMessage = (count: number) => (count === 1 ? 'Image deleted' : `${count} images deleted`);
/** The Undo could not bring the images back (its window has passed, or their files are already gone). */
export const restoreRefused = (count: number) =>
  `${count === 1 ? 'The image' : 'The images'} could not be restored: Undo works only for a few seconds after deleting.`;
/** The Undo failed for any other reason (no answer from the server). */
export const restoreFailed = (count: number) => `${count === 1 ? 'The image' : 'The images'} could not be restored.`;
/**
 * One list's rows and order, defined once for both sides: the server's repositories turn it into Drizzle
 * (server/repositories/list-query.ts) and the hosted adapter into PostgREST parameters
 * (src/backend/hosted/supabase-data.ts). `where` holds equality filters on the list's table (the owner filter,
 * user_id, is added by each side); `order` ends with the primary key, so rows that share a timestamp keep
 * one order from page to page and never show twice or not at all. Columns are the tables' own (snake_case).
 */
export interface ListDefinition<Column extends string = string> {
  table: 'generations' | 'explore_gallery';
  where: Readonly<Partial<Record<Column, string | boolean>>>;
  /** Columns whose value must be one of a few (PostgREST's `in`). */
  whereIn?: Readonly<Partial<Record<Column, readonly string[]>>>;
  order: readonly { column: Column; ascending: boolean }[];
}

type GenerationListColumn = 'status' | 'is_favorite' | 'likeness_verdict' | 'created_at' | 'id';
type ExploreListColumn = 'is_featured' | 'created_at' | 'id';

const NEWEST_FIRST = [
  { column: 'created_at', ascending: false },
  { column: 'id', ascending: false },
] as const;

/** Spec §4 (only ACTIVE generations are listed) and §7 (newest first; Explore: featured first, then newest). */
export const LISTS = {
  myGenerations: { table: 'generations', where: { status: 'ACTIVE' }, order: NEWEST_FIRST },
  favorites: { table: 'generations', where: { status: 'ACTIVE', is_favorite: true }, order: NEWEST_FIRST },
  /** My Generations filtered to 'Weak likeness': the images that miss their character (weak or no face). */
  weakLikeness: { table: 'generations', where: { status: 'ACTIVE' }, whereIn: { likeness_verdict: WEAK_VERDICTS }, order: NEWEST_FIRST },
  explore: { table: 'explore_gallery', where: {}, order: [{ column: 'is_featured', ascending: false }, ...NEWEST_FIRST] },
  exploreFeatured: { table: 'explore_gallery', where: { is_featured: true }, order: NEWEST_FIRST },
} as const satisfies {
  myGenerations: ListDefinition<GenerationListColumn>;
  favorites: ListDefinition<GenerationListColumn>;
  weakLikeness: ListDefinition<GenerationListColumn>;
  explore: ListDefinition<ExploreListColumn>;
  exploreFeatured: ListDefinition<ExploreListColumn>;
};

/** My Generations (optionally only its weak likenesses) or Favorites. */
export const generationsList = (favorites: boolean, weakLikeness = false): ListDefinition<GenerationListColumn> =>
  favorites ? LISTS.favorites : weakLikeness ? LISTS.weakLikeness : LISTS.myGenerations;
