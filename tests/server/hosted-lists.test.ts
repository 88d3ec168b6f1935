/**
 * Hosted lists on real Postgres with supabase/migrations and row-level security, through the
 * PostgREST fake (which, like Supabase, returns at most 1,000 rows a read):
 * - the Explore filter options come from the explore_filter_options view: complete at 100,000 rows, in one
 *   short read, and fast;
 * - My Generations, Favorites and Explore page the same way on the server (its repositories, Drizzle) and in
 *   the hosted SPA (its adapter, supabase-js), with rows that share a timestamp: one order, no row twice,
 *   none missing.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXPLORE_VOCABULARY, LISTS } from '@common/library';
import { LIMITS } from '@common/product';
import { exploreRepository } from '../../server/repositories/explore.repository.ts';
import { libraryRepository } from '../../server/repositories/library.repository.ts';
import { ANON } from '../helpers/supabase-db.ts';

const EXPLORE_ROWS = 100_000;
const sorted = (values: readonly string[]) => [...values].sort();
import { useHostedStack } from '../helpers/hosted-stack.ts';

describe('hosted lists at scale and in one order (postgres + RLS, PostgREST fake)', () => {
  const stack = useHostedStack('Lists');

  describe('Explore filter options from the database, at 100,000 rows', () => {
    beforeAll(async () => {
      await stack.db.owner.query('delete from explore_gallery');
      // Every value of the vocabulary but the rarest ones, cycling; then one row each for values that appear
      // only once, far past the first 1,000 rows a read returns.
      const common = {
        gender: ['female', 'male'],
        hair_color: EXPLORE_VOCABULARY.hair_color.slice(0, 6),
        ethnicity: EXPLORE_VOCABULARY.ethnicity.slice(0, 6),
        style: EXPLORE_VOCABULARY.style.slice(0, 6),
      };
      await stack.db.owner.query(
        `insert into explore_gallery (image_url, prompt, width, height, gender, hair_color, ethnicity, style, created_at)
         select '/media/explore/' || i || '.jpeg', 'prompt ' || i, 512, 512,
                ($1::text[])[1 + i % cardinality($1::text[])], ($2::text[])[1 + i % cardinality($2::text[])],
                case when i % 97 = 0 then null else ($3::text[])[1 + i % cardinality($3::text[])] end, ($4::text[])[1 + i % cardinality($4::text[])],
                now() - make_interval(secs => i)
           from generate_series(1, $5::int - 1) i`,
        [common.gender, common.hair_color, common.ethnicity, common.style, EXPLORE_ROWS],
      );
      await stack.db.owner.query(
        `insert into explore_gallery (image_url, prompt, width, height, gender, hair_color, ethnicity, style, created_at)
         values ('/media/explore/rare.jpeg', 'rare', 512, 512, 'other', 'other', 'mixed', 'street', now() - interval '1 year')`,
      );
      await stack.db.owner.query('analyze explore_gallery');
    }, 120_000);

    it('are complete for visitors and signed-in people, in one read of one row', async () => {
      expect((await stack.db.owner.query('select count(*)::int as n from explore_gallery')).rows[0].n).toBe(EXPLORE_ROWS);
      const { session } = await stack.signedIn();
      const before = stack.fakes.rest.requests.length;
      const options = await session.data.exploreFilterOptions();
      expect(options).toEqual({
        gender: sorted(EXPLORE_VOCABULARY.gender),
        hair_color: sorted(EXPLORE_VOCABULARY.hair_color),
        ethnicity: sorted(EXPLORE_VOCABULARY.ethnicity),
        style: sorted(EXPLORE_VOCABULARY.style),
      });
      const asked = stack.fakes.rest.requests.slice(before);
      expect(asked.map((r) => `${r.method} ${decodeURIComponent(r.path)} ${r.status}`)).toEqual([
        'GET /explore_filter_options?select=gender,hair_color,ethnicity,style 200',
      ]);
      // Visitors (anon) read the same lists.
      expect((await stack.db.asClaims(ANON, 'select gender, hair_color, ethnicity, style from explore_filter_options')).rows).toEqual([
        options,
      ]);
      // The server's Explore reads the same view.
      expect(await exploreRepository.filterOptions(stack.server.db)).toEqual(options);
    });

    it('would be incomplete read from the table: Supabase returns 1,000 rows of 100,000 (what the adapter used to do)', async () => {
      const res = await fetch(`${stack.fakes.url}/rest/v1/explore_gallery?select=gender,hair_color,ethnicity,style`, {
        headers: { apikey: stack.fakes.anonKey, authorization: `Bearer ${await stack.clerk.mint({ sub: 'user_reader' })}` },
      });
      const rows = (await res.json()) as { gender: string }[];
      expect(rows).toHaveLength(1000);
      expect(rows.some((r) => r.gender === 'other')).toBe(false);
    });

    it('answers in under 20 ms at 100,000 rows (Postgres execution time, median of 7, as the anon role)', async () => {
      const times: number[] = [];
      for (let i = 0; i < 7; i++) {
        const plan = await stack.db.withClaims(
          ANON,
          (client) => client.query('explain (analyze, format json) select * from explore_filter_options'),
          { readOnly: true },
        );
        times.push((plan.rows[0]['QUERY PLAN'] as [{ 'Execution Time': number }])[0]['Execution Time']);
      }
      const median = [...times].sort((x, y) => x - y)[3];
      console.info(
        `explore_filter_options over ${EXPLORE_ROWS} rows: median ${median.toFixed(2)} ms (runs: ${times.map((t) => t.toFixed(2)).join(', ')})`,
      );
      expect(median).toBeLessThan(20);
    });
  });

  describe('one order on both sides, with rows that share a timestamp', () => {
    beforeAll(async () => {
      // The order must come from the queries, not from whichever index a plan happens to walk (the list
      // indexes end with id too): without them Postgres sorts, and ties come in whatever order it holds them.
      await stack.db.owner.query(
        'drop index generations_user_active_created_idx, generations_user_favorite_created_idx, explore_gallery_order_idx',
      );
    });

    /** Every page's ids, 1 to the last, as `read` answers them. */
    async function pages(total: number, read: (page: number) => Promise<{ id: string }[]>): Promise<string[][]> {
      const all: string[][] = [];
      for (let page = 1; page <= Math.ceil(total / LIMITS.pageSize); page++) all.push((await read(page)).map((r) => r.id));
      return all;
    }
    /** Descending by each column of the list's order (booleans true first), as Postgres sorts them. */
    const inListOrder = <R extends Record<string, unknown>>(rows: R[], order: readonly { column: string }[]) =>
      [...rows].sort((x, y) => {
        for (const { column } of order) {
          const [a, b] = [x[column], y[column]].map((v) => (v instanceof Date ? v.toISOString() : String(v)));
          if (a !== b) return a < b ? 1 : -1;
        }
        return 0;
      });
    const chunks = (ids: string[]) =>
      Array.from({ length: Math.ceil(ids.length / LIMITS.pageSize) }, (_, i) => ids.slice(i * LIMITS.pageSize, (i + 1) * LIMITS.pageSize));

    it('My Generations and Favorites: the server’s repository and the hosted adapter give the same pages', async () => {
      const { me, session } = await stack.signedIn();
      // 95 generations in 10 timestamps (so every page boundary falls inside a group), inserted in random
      // order so that neither insertion nor physical order matches the id order.
      const verdicts = ['strong', 'weak', 'no_face', null] as const;
      const rows = Array.from({ length: 95 }, (_, i) => ({
        id: randomUUID(),
        group: i % 10,
        favorite: i % 3 === 0,
        verdict: verdicts[i % 4],
      }));
      rows.sort(() => Math.random() - 0.5);
      for (const r of rows) {
        await stack.db.owner.query(
          `insert into generations (id, user_id, prompt, width, height, image_url, is_favorite, likeness_verdict, likeness, created_at) values ($1, $2, 'p', 512, 512, $3, $4, $6, $7, timestamptz '2026-11-01T00:00:00Z' - make_interval(mins => $5))`,
          [r.id, me.id, `/media/generations/${me.id}/${r.id}.jpeg`, r.favorite, r.group, r.verdict, r.verdict ? 50 : null],
        );
      }
      // My Generations, Favorites, and My Generations' 'Weak likeness' filter (weak or no face).
      for (const [favorites, weak] of [
        [false, false],
        [true, false],
        [false, true],
      ] as const) {
        const { rows: stored } = await stack.db.owner.query(
          `select id, created_at from generations where user_id = $1 and status = 'ACTIVE' ${favorites ? 'and is_favorite' : ''} ${weak ? `and likeness_verdict in ('weak', 'no_face')` : ''}`,
          [me.id],
        );
        const expected = chunks(inListOrder(stored, (favorites ? LISTS.favorites : LISTS.myGenerations).order).map((r) => r.id as string));
        const hosted = await pages(
          stored.length,
          async (page) => (await session.data.generationsPage({ page, favorites, weakLikeness: weak })).items,
        );
        const onServer = await pages(stored.length, async (page) =>
          (await libraryRepository.listPage(stack.server.db, me.id, favorites, page, weak, null)).map((r) => r.generation),
        );
        const what = favorites ? 'favorites' : weak ? 'weak likeness' : 'my generations';
        expect(hosted, `${what} (hosted)`).toEqual(expected);
        expect(onServer, `${what} (server)`).toEqual(expected);
        expect(new Set(hosted.flat()).size).toBe(stored.length);
        // What the adapter asks PostgREST for is the common definition, term by term.
        const asked = stack.fakes.rest.requests.filter((r) => r.path.startsWith('/generations?')).at(-1)!;
        expect(new URL(asked.path, 'http://x').searchParams.get('order')).toBe('created_at.desc,id.desc');
      }
    });

    it('Explore, with and without filters: the same pages on both sides', async () => {
      await stack.db.owner.query('delete from explore_gallery');
      const rows = Array.from({ length: 130 }, (_, i) => ({
        id: randomUUID(),
        group: i % 6,
        featured: i % 11 === 0,
        gender: i % 2 ? 'female' : 'male',
      }));
      rows.sort(() => Math.random() - 0.5);
      for (const r of rows) {
        await stack.db.owner.query(
          `insert into explore_gallery (id, image_url, prompt, width, height, gender, is_featured, created_at) values ($1, $2, 'p', 512, 512, $3, $4, timestamptz '2026-11-01T00:00:00Z' - make_interval(mins => $5))`,
          [r.id, `/media/explore/${r.id}.jpeg`, r.gender, r.featured, r.group],
        );
      }
      const { session } = await stack.signedIn();
      for (const filters of [{}, { gender: 'female' }]) {
        const { rows: stored } = await stack.db.owner.query(
          `select id, is_featured, created_at from explore_gallery ${'gender' in filters ? `where gender = 'female'` : ''}`,
        );
        const expected = chunks(inListOrder(stored, LISTS.explore.order).map((r) => r.id as string));
        const hosted = await pages(stored.length, async (page) => (await session.data.explorePage(filters, page)).items);
        expect(hosted, JSON.stringify(filters)).toEqual(expected);
        for (const few of [false, true]) {
          const onServer = await pages(stored.length, (page) => exploreRepository.listPage(stack.server.db, filters, page, few));
          expect(onServer, `${JSON.stringify(filters)} few=${few}`).toEqual(expected);
        }
      }
      const featured = inListOrder(
        (await stack.db.owner.query('select id, created_at from explore_gallery where is_featured')).rows,
        LISTS.exploreFeatured.order,
      ).map((r) => r.id);
      expect((await session.data.exploreFeatured()).map((e) => e.id)).toEqual(featured.slice(0, LIMITS.featuredLimit));
      expect((await exploreRepository.featured(stack.server.db, LIMITS.featuredLimit)).map((e) => e.id)).toEqual(
        featured.slice(0, LIMITS.featuredLimit),
      );
    });
  });
});
