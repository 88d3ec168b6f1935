import type { PostgrestError, SupabaseClient } from '@supabase/supabase-js';
import { decodeHistoryCursor, HISTORY_PAGE_SIZE, HISTORY_RECORD_COLUMNS, historyPageOf, type HistoryRecord } from '@common/credits';
import { toGenerationView, type GenerationRecord } from '@common/generation';
import { isUuid } from '@common/ids';
import {
  EXPLORE_FILTER_NAMES,
  generationsList,
  LISTS,
  pageCountOf,
  type ExploreFilterOptions,
  type ExploreItem,
  type ListDefinition,
  type Page,
} from '@common/library';
import { LIMITS } from '@common/product';
import type { TrainingView } from '@common/training';
import {
  describePrompt,
  shootCost,
  toShootPhotoView,
  type PackView,
  type ShootPhotoViewRecord,
  type ShootSummary,
  type ShootView,
} from '@common/photo-shoots';
import { ApiError } from '../api-error';
import type { Character, DataPort, Me, SessionUser } from '../port';
import { activeTeamId } from '../space';

/**
 * The data operations of product §4 and §7 as Supabase queries (supabase-js → PostgREST), run as the signed-in
 * Clerk user: row-level security (supabase/migrations/…_likeness_security.sql) limits every read and write
 * to the user's own rows, the explicit user filters say the same in the query.
 *
 * How many rows each read can return (Supabase's PostgREST answers at most 1,000 rows a request, its
 * max-rows, and says nothing when it cuts; so no read here may rely on more):
 * - users, user_public_meta, setFavorite, deleteGeneration: one row (.single()).
 * - generationsPage, explorePage: one page, LIMITS.pageSize (40) rows, with the exact total in Content-Range.
 * - recentGenerations: `limit` rows (LIMITS.recentGenerations, 6). exploreFeatured: LIMITS.featuredLimit (12).
 * - exploreFilterOptions: one row of the explore_filter_options view, four lists of distinct values; curation
 *   accepts only the words of EXPLORE_VOCABULARY, so 24 values in all, whatever the gallery's size.
 * - creditHistory: one page of the credit_history view, HISTORY_PAGE_SIZE (50) lines and one more to know whether
 *   another page follows, by keyset (created_at, id) as the server pages it.
 * - trainings, characters: the person's own trainings, not paged (product §2 shows them all). Each costs 500
 *   credits, so the largest plan pays for 20 a month; a person would need over four years of it to reach
 *   PostgREST's 1,000.
 * The order and filters of My Generations, Favorites and Explore are common/library.ts LISTS, the very
 * definitions the server's repositories use (ties broken by id, so pages never overlap).
 */

const USER_COLUMNS = 'id, clerk_id, email, full_name, credits, updated_at, subscription_status, subscription_plan, creem_customer_id';
const GENERATION_COLUMNS =
  'id, prompt, style, width, height, output_format, image_url, lora_id, lora_scale, seed, num_inference_steps, guidance_scale, status, is_favorite, created_at, source_id, derivation, upscale_factor, edit_strength, likeness, likeness_verdict, shoot_id, lora_trainings(id, character_name, trigger_word, lora_file_url, photos_differ)';
const TRAINING_COLUMNS =
  'id, character_name, trigger_word, gender, hair_color, status, created_at, lora_file_url, request_id, result, error, progress';
const CHARACTER_COLUMNS = 'id, character_name, trigger_word, lora_file_url';
const EXPLORE_COLUMNS =
  'id, image_url, prompt, width, height, style, seed, num_inference_steps, guidance_scale, gender, ethnicity, hair_color, is_featured, created_at';

const PACK_COLUMNS =
  'id, name, description, category, aspect_ratio, width, height, cover_url, sample_urls, position, photo_pack_prompts(position, template)';
const SHOOT_COLUMNS = 'id, pack_id, pack_name, lora_id, character_name, status, photo_count, cost, created_at, finished_at, retaken';
/** shoot_photo_views (server/db/migrations/0020_shoot_photo_views.sql): the photos as the local server shows them. */
const PHOTO_VIEW_COLUMNS =
  'id, position, status, prompt, width, height, image_url, generation_id, deleted, error, started_at, finished_at, ahead, likeness, likeness_verdict';

type UserRow = Omit<Me, 'image_url' | 'joined_at'>;
type PackRow = Omit<PackView, 'photo_count' | 'cost' | 'prompts'> & { photo_pack_prompts: { position: number; template: string }[] };
type ShootRow = Omit<ShootView, 'photos'>;

/** PostgREST's "no row" for .single() (product §8: the only lookup error the user sync tolerates). */
const NO_ROW = 'PGRST116';
/** A uuid no row has: `in.()` of nothing, spelled so PostgREST takes it. */
const NO_ID = '00000000-0000-0000-0000-000000000000';
/** Postgres' unique_violation, which PostgREST answers with 409. */
const UNIQUE_VIOLATION = '23505';

/**
 * A failed query as the rest of the SPA knows failures: an ApiError with PostgREST's status and code (so a
 * 4xx is not retried), or a plain Error when the request never got an answer.
 */
function failure(error: PostgrestError, status: number): Error {
  if (!status) return new Error(error.message || 'The data service could not be reached.');
  return new ApiError(status, JSON.stringify(error), error.message || `Request failed (${status})`, error.code);
}

interface Result<T> {
  data: T | null;
  error: PostgrestError | null;
  status: number;
  count?: number | null;
}

/** The local API's 404 for a row that is missing or not the person's, so pages show the same empty state. */
function notFound(message: string): ApiError {
  return new ApiError(404, JSON.stringify({ code: 'not_found', message }), message, 'not_found');
}

function rowsOf<T>({ data, error, status }: Result<T>): T {
  if (error) throw failure(error, status);
  return data as T;
}

function pageOf<R, T>(result: Result<R[]>, page: number, map: (row: R) => T): Page<T> {
  const rows = rowsOf(result);
  const total = result.count ?? rows.length;
  return { items: rows.map(map), page, pageSize: LIMITS.pageSize, total, pageCount: pageCountOf(total) };
}

/** Rows `from`–`to` of page `page` (1-based), as .range() takes them. */
const rangeOf = (page: number): [number, number] => [(page - 1) * LIMITS.pageSize, page * LIMITS.pageSize - 1];

/** The part of supabase-js's filter builder a list definition needs. */
interface ListQuery<Q> {
  eq(column: string, value: unknown): Q;
  in(column: string, values: readonly unknown[]): Q;
  order(column: string, options: { ascending: boolean }): Q;
}

/** A list definition of common/library.ts applied to a query: its equality filters, then its order. */
function asListed<Q extends ListQuery<Q>>(query: Q, list: ListDefinition): Q {
  let q = query;
  for (const [column, value] of Object.entries(list.where)) q = q.eq(column, value);
  for (const [column, values] of Object.entries(list.whereIn ?? {})) q = q.in(column, [...(values as readonly string[])]);
  for (const term of list.order) q = q.order(term.column, { ascending: term.ascending });
  return q;
}

/** supabase-js wants a signal; a call without one is never aborted. */
const abortable = (signal?: AbortSignal) => signal ?? new AbortController().signal;

const iso = (timestamp: string) => new Date(timestamp).toISOString();

const toTraining = (row: TrainingView): TrainingView => ({
  ...row,
  created_at: iso(row.created_at),
  progress: row.status === 'IN_PROGRESS' ? (row.progress ?? null) : null,
});

/**
 * `media`: images live on our server under /media/… and the rows keep that path; a SPA served from another
 * origin turns it into our server's address (ApiPort.mediaUrl).
 */
export function createSupabaseData(
  supabase: SupabaseClient,
  opts: { media?: (path: string) => string } = {},
): DataPort & { userId(): string } {
  const media = opts.media ?? ((path: string) => path);
  const toView = (row: GenerationRecord) => toGenerationView({ ...row, image_url: media(row.image_url) });
  const toExploreItem = (row: ExploreItem): ExploreItem => ({ ...row, image_url: media(row.image_url), created_at: iso(row.created_at) });

  /** The users row id, known once the sync has run (the /app guard runs it before any page). */
  let userId: string | null = null;
  const ownId = () => {
    if (!userId) throw new Error('The user record is not loaded yet.');
    return userId;
  };

  /**
   * The active space (src/backend/space.ts, issue 49) as a filter of generations: a generation is a team's work
   * when its character is one of the person's team characters (a team shoot needs one), as the server has it
   * (server/repositories/trainings.repository.ts generationInSpace). RLS shows only the person's own rows.
   */
  async function spaceOfGenerations(signal?: AbortSignal) {
    const team = activeTeamId();
    let characters = supabase.from('lora_trainings').select('id').eq('user_id', ownId());
    characters = team ? characters.eq('team_id', team) : characters.not('team_id', 'is', null);
    const ids = rowsOf((await characters.abortSignal(abortable(signal))) as Result<{ id: string }[]>).map((r) => r.id);
    if (team) return { in: ids.length > 0 ? ids : [NO_ID] };
    return ids.length > 0 ? { or: `lora_id.is.null,lora_id.not.in.(${ids.join(',')})` } : {};
  }
  /** lora_trainings and photo_shoots in the active space: its team's rows, or the personal ones (team_id null). */
  const inSpace = (): [column: string, operator: string, value: string] => {
    const team = activeTeamId();
    return team ? ['team_id', 'eq', team] : ['team_id', 'is', 'null'];
  };

  /**
   * The shoots' photos that landed and are still in My Generations: their generations, ACTIVE, by shoot (a
   * photo deleted there since shows as deleted and is not counted ready).
   */
  async function keptShootPhotos(shootIds: string[], signal?: AbortSignal): Promise<{ id: string; shoot_id: string }[]> {
    if (shootIds.length === 0) return [];
    const result = await supabase
      .from('generations')
      .select('id, shoot_id')
      .in('shoot_id', shootIds)
      .eq('status', 'ACTIVE')
      .abortSignal(abortable(signal));
    return rowsOf(result as Result<{ id: string; shoot_id: string }[]>);
  }

  return {
    userId: ownId,

    async syncUser(user: SessionUser): Promise<Me> {
      const email = user.primaryEmailAddress?.emailAddress ?? null;
      const fullName = user.fullName;
      const lookup = await supabase.from('users').select('id, clerk_id').eq('clerk_id', user.id).single();
      if (lookup.error && lookup.error.code !== NO_ROW) throw failure(lookup.error, lookup.status);
      const refresh = () =>
        supabase
          .from('users')
          .update({ email, full_name: fullName, updated_at: new Date().toISOString() })
          .eq('clerk_id', user.id)
          .select(USER_COLUMNS)
          .single();
      let saved = lookup.data
        ? await refresh()
        : await supabase.from('users').insert({ clerk_id: user.id, email, full_name: fullName, credits: 0 }).select(USER_COLUMNS).single();
      // Our server creates the row too (on the person's first API call, or Clerk's user.created webhook, both
      // likely in a new account's first seconds): if it did so between the lookup and the insert, update it.
      if (!lookup.data && saved.error?.code === UNIQUE_VIOLATION) saved = await refresh();
      const row = rowsOf<UserRow>(saved as Result<UserRow>);
      userId = row.id;
      return { ...row, updated_at: iso(row.updated_at), image_url: user.imageUrl, joined_at: user.createdAt };
    },

    async generationsPage({ page, favorites, weakLikeness }, signal) {
      const space = await spaceOfGenerations(signal);
      let query = supabase.from('generations').select(GENERATION_COLUMNS, { count: 'exact' }).eq('user_id', ownId());
      if (space.in) query = query.in('lora_id', space.in);
      if (space.or) query = query.or(space.or);
      const [from, to] = rangeOf(page);
      const result = await asListed(query, generationsList(favorites, weakLikeness)).range(from, to).abortSignal(abortable(signal));
      return pageOf(result as Result<GenerationRecord[]>, page, toView);
    },

    async recentGenerations(limit, signal) {
      const space = await spaceOfGenerations(signal);
      let query = supabase.from('generations').select(GENERATION_COLUMNS).eq('user_id', ownId());
      if (space.in) query = query.in('lora_id', space.in);
      if (space.or) query = query.or(space.or);
      const result = await asListed(query, LISTS.myGenerations).limit(limit).abortSignal(abortable(signal));
      return rowsOf(result as Result<GenerationRecord[]>).map(toView);
    },

    async generation(id, signal) {
      const result = await supabase
        .from('generations')
        .select(GENERATION_COLUMNS)
        .eq('id', id)
        .eq('user_id', ownId())
        .eq('status', 'ACTIVE')
        .abortSignal(abortable(signal))
        .single();
      return toView(rowsOf(result as Result<GenerationRecord>));
    },

    async setFavorite(id, isFavorite) {
      const result = await supabase
        .from('generations')
        .update({ is_favorite: isFavorite })
        .eq('id', id)
        .select(GENERATION_COLUMNS)
        .single();
      return toView(rowsOf(result as Result<GenerationRecord>));
    },

    async deleteGeneration(id) {
      // .single() makes "not yours or already gone" an error (PGRST116), as the local API's 404 is.
      const result = await supabase.from('generations').update({ status: 'DELETED' }).eq('id', id).select('id').single();
      rowsOf(result);
    },

    async trainings(signal) {
      const result = await supabase
        .from('lora_trainings')
        .select(TRAINING_COLUMNS)
        .eq('user_id', ownId())
        .filter(...inSpace())
        // A character its owner deleted stays as a row; its update reaches Realtime and reloads this list.
        .is('deleted_at', null)
        .order('created_at', { ascending: false })
        .order('id', { ascending: false })
        .abortSignal(abortable(signal));
      return rowsOf(result as Result<TrainingView[]>).map(toTraining);
    },

    async characters(signal) {
      const result = await supabase
        .from('lora_trainings')
        .select(CHARACTER_COLUMNS)
        .eq('user_id', ownId())
        .filter(...inSpace())
        .eq('status', 'COMPLETED')
        .not('lora_file_url', 'is', null)
        .is('deleted_at', null)
        .order('created_at', { ascending: false })
        .order('id', { ascending: false })
        .abortSignal(abortable(signal));
      return rowsOf(result as Result<Character[]>);
    },

    async explorePage(filters, page, signal) {
      let query = supabase.from('explore_gallery').select(EXPLORE_COLUMNS, { count: 'exact' });
      for (const name of EXPLORE_FILTER_NAMES) {
        const value = filters[name];
        if (value) query = query.eq(name, value);
      }
      const [from, to] = rangeOf(page);
      const result = await asListed(query, LISTS.explore).range(from, to).abortSignal(abortable(signal));
      return pageOf(result as Result<ExploreItem[]>, page, toExploreItem);
    },

    async exploreFilterOptions(signal) {
      // One row: the four distinct-value lists, sorted, computed by the database (never the table's rows).
      const result = await supabase
        .from('explore_filter_options')
        .select(EXPLORE_FILTER_NAMES.join(', '))
        .abortSignal(abortable(signal))
        .single();
      return rowsOf(result as Result<ExploreFilterOptions>);
    },

    async exploreFeatured(signal) {
      const query = supabase.from('explore_gallery').select(EXPLORE_COLUMNS);
      const result = await asListed(query, LISTS.exploreFeatured).limit(LIMITS.featuredLimit).abortSignal(abortable(signal));
      return rowsOf(result as Result<ExploreItem[]>).map(toExploreItem);
    },

    async photoPacks(signal) {
      const result = await supabase.from('photo_packs').select(PACK_COLUMNS).order('position').order('id').abortSignal(abortable(signal));
      return rowsOf(result as Result<PackRow[]>).map(({ photo_pack_prompts, ...pack }) => {
        const prompts = [...photo_pack_prompts].sort((a, b) => a.position - b.position).map((p) => describePrompt(p.template));
        const { position: _position, ...rest } = pack as PackRow & { position: number };
        return {
          ...rest,
          cover_url: pack.cover_url ? media(pack.cover_url) : null,
          sample_urls: (pack.sample_urls ?? []).map(media),
          photo_count: prompts.length,
          cost: shootCost(prompts.length),
          prompts,
        };
      });
    },

    async shoots({ running }, signal) {
      let query = supabase
        .from('photo_shoots')
        .select(`${SHOOT_COLUMNS}, shoot_photos(status)`)
        .eq('user_id', ownId())
        .filter(...inSpace());
      if (running) query = query.eq('status', 'RUNNING');
      const result = await query.order('created_at', { ascending: false }).limit(50).abortSignal(abortable(signal));
      const rows = rowsOf(result as Result<(ShootRow & { shoot_photos: { status: string }[] })[]>);
      const kept = await keptShootPhotos(
        rows.map((s) => s.id),
        signal,
      );
      return rows.map(({ shoot_photos, ...s }) => ({
        ...s,
        created_at: iso(s.created_at),
        finished_at: s.finished_at ? iso(s.finished_at) : null,
        // Ready: landed and still in My Generations, as the server counts them.
        ready: kept.filter((g) => g.shoot_id === s.id).length,
        failed: shoot_photos.filter((p) => p.status === 'FAILED').length,
      })) satisfies ShootSummary[];
    },

    async shoot(id, signal) {
      // Someone else's shoot, a missing one and an id that is no uuid are all no such shoot, as the local API has it
      // (PostgREST's .single() answers 406 PGRST116, a malformed id 400): the page shows its empty state, no retry.
      const noSuchShoot = () => notFound('There is no such photo shoot.');
      if (!isUuid(id)) throw noSuchShoot();
      const [result, photos] = await Promise.all([
        supabase.from('photo_shoots').select(SHOOT_COLUMNS).eq('id', id).abortSignal(abortable(signal)).single(),
        // The view the local server reads too: kept image, deleted, likeness and queue position, worked out once.
        supabase
          .from('shoot_photo_views')
          .select(PHOTO_VIEW_COLUMNS)
          .eq('shoot_id', id)
          .order('position', { ascending: true })
          .abortSignal(abortable(signal)),
      ]);
      if (result.error?.code === NO_ROW) throw noSuchShoot();
      const s = rowsOf(result as Result<ShootRow>);
      return {
        ...s,
        created_at: iso(s.created_at),
        finished_at: s.finished_at ? iso(s.finished_at) : null,
        photos: rowsOf(photos as Result<ShootPhotoViewRecord[]>).map((row) => {
          const photo = toShootPhotoView(row);
          return { ...photo, image_url: photo.image_url ? media(photo.image_url) : null };
        }),
      };
    },

    async creditHistory({ kind, cursor }, signal) {
      // The view the local server reads too (migration 0027): the lines and their links, without the idempotency key.
      let query = supabase.from('credit_history').select(HISTORY_RECORD_COLUMNS).eq('user_id', ownId());
      if (kind) query = query.eq('entry', kind);
      if (cursor) {
        // Our own previous page's end (PostgREST's created_at, microseconds included): lines before it in (created_at,
        // id) order. PostgREST has no row comparison; "at or before it, and before it or of a smaller id" is the same
        // set, and its first half bounds the index scan.
        const end = decodeHistoryCursor(cursor);
        if (!end)
          throw new ApiError(
            400,
            JSON.stringify({ code: 'bad_request', message: 'cursor: is not a page of this list' }),
            'cursor: is not a page of this list',
            'bad_request',
          );
        query = query.lte('created_at', end.at).or(`created_at.lt."${end.at}",id.lt.${end.id}`);
      }
      const result = await query
        .order('created_at', { ascending: false })
        .order('id', { ascending: false })
        .limit(HISTORY_PAGE_SIZE + 1)
        .abortSignal(abortable(signal));
      return historyPageOf(rowsOf(result as Result<HistoryRecord[]>));
    },

    async balance(signal) {
      const result = await supabase
        .from('user_public_meta')
        .select('credits')
        .eq('user_id', ownId())
        .abortSignal(abortable(signal))
        .single();
      return rowsOf(result as Result<{ credits: number }>).credits;
    },
  };
}
