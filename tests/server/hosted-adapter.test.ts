/**
 * The hosted SPA's data and live adapter (src/backend/hosted/supabase-session.ts: supabase-js as the SPA
 * configures it) against the offline Supabase stack (tests/fakes/supabase-stack.ts: the PostgREST subset
 * and the Realtime endpoint) over the real PostgreSQL with supabase/migrations and row-level security. The
 * tokens are Clerk-shaped session tokens signed in the test (tests/helpers/clerk.ts). Every query the
 * adapter sends must be one the fake knows (it answers 501 otherwise), so a changed query fails here.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GENERATION_UNDO_SECONDS, restoreRefused } from '@common/library';
import { LIMITS } from '@common/product';
import { CHARACTER_RESTORE_REFUSED, CHARACTER_UNDO_SECONDS } from '@common/training';
import type { Me, SessionUser } from '@/backend/port';
import { ApiError } from '@/backend/api-error';
import { openSupabaseSession } from '@/backend/hosted/supabase-session';
import { startSupabaseFakes, type SupabaseFakes } from '../fakes/supabase-stack.ts';
import { createClerkTestKeys, hostedFetch, TEST_SPA_ORIGIN, type ClerkTestKeys } from '../helpers/clerk.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createSupabaseDatabase, type SupabaseTestDatabase } from '../helpers/supabase-db.ts';
import { sessionUser } from '../support/fake-backend.ts';

const API_URL = 'https://api.likeness.test';

/** The Clerk user of `clerkId` as the SPA reads it (product §3). */
const sessionUserFor = (clerkId: string, overrides: Partial<SessionUser> = {}) =>
  sessionUser({
    id: clerkId,
    imageUrl: 'https://img.clerk.com/ana.png',
    fullName: 'Ana Lima',
    primaryEmailAddress: { emailAddress: 'ana@example.com' },
    createdAt: '2026-01-02T03:04:05.000Z',
    ...overrides,
  });

/** How long to wait for a check to pass: realtime deliveries arrive on their own time. */
const REALTIME = { timeout: 10_000, interval: 50 };

describe('hosted adapter against the Supabase fakes (postgres + RLS)', () => {
  let db: SupabaseTestDatabase;
  let clerk: ClerkTestKeys;
  let fakes: SupabaseFakes;
  const sessions: { close(): void }[] = [];

  beforeAll(async () => {
    db = await createSupabaseDatabase();
    clerk = createClerkTestKeys();
    fakes = await startSupabaseFakes({ databaseUrl: db.url, jwtKey: clerk.publicKeyPem });
  }, 60_000);

  afterEach(() => {
    for (const s of sessions.splice(0)) s.close();
  });

  afterAll(async () => {
    await fakes?.stop();
    await db?.drop();
  });

  /** The adapter for one signed-in person, as the SPA opens it for a Clerk session. */
  function open(clerkId: string, getToken: () => Promise<string | null> = () => clerk.mint({ sub: clerkId }), tokenRefreshMs?: number) {
    const config = { publishableKey: 'pk_test_x', supabaseUrl: fakes.url, supabaseAnonKey: fakes.anonKey, apiUrl: API_URL };
    const session = openSupabaseSession(config, getToken, { tokenRefreshMs });
    sessions.push(session);
    return session;
  }

  /** A signed-in person whose users row the adapter's sync created. */
  async function person(name: string) {
    const clerkId = `user_${name}_${randomUUID().slice(0, 8)}`;
    const session = open(clerkId);
    const me = await session.data.syncUser(
      sessionUserFor(clerkId, { fullName: name, primaryEmailAddress: { emailAddress: `${name}@example.com` } }),
    );
    // The new user's own changes are delivered before a test subscribes, or under load one could reach its
    // channel after SUBSCRIBED and be counted as the change under test.
    await fakes.realtime.settled();
    return { clerkId, me, session };
  }

  const q = (text: string, values: unknown[] = []) => db.owner.query(text, values);

  async function addGeneration(userId: string, opts: { minutesAgo: number; favorite?: boolean; status?: string; loraId?: string | null }) {
    const { rows } = await q(
      `insert into generations (user_id, prompt, width, height, image_url, lora_id, is_favorite, status, seed, created_at)
       values ($1, 'a prompt', 1024, 576, $2, $3, $4, $5, '42', now() - make_interval(mins => $6)) returning id`,
      [
        userId,
        `/media/generations/${userId}/${randomUUID()}.jpeg`,
        opts.loraId ?? null,
        opts.favorite ?? false,
        opts.status ?? 'ACTIVE',
        opts.minutesAgo,
      ],
    );
    return rows[0].id as string;
  }

  async function addTraining(userId: string, status: string, minutesAgo: number, loraUrl: string | null = null) {
    const { rows } = await q(
      `insert into lora_trainings (user_id, character_name, trigger_word, status, lora_file_url, request_id, created_at)
       values ($1, $2, 'anal', $3, $4, $5, now() - make_interval(mins => $6)) returning id`,
      [userId, `Character ${status}`, status, loraUrl, randomUUID(), minutesAgo],
    );
    return rows[0].id as string;
  }

  describe('user sync (product §4)', () => {
    it('creates the users row with 0 credits, then refreshes email and name on the next sign-in', async () => {
      const clerkId = `user_new_${randomUUID().slice(0, 8)}`;
      const first = await open(clerkId).data.syncUser(sessionUserFor(clerkId));
      expect(first).toMatchObject<Partial<Me>>({
        clerk_id: clerkId,
        email: 'ana@example.com',
        full_name: 'Ana Lima',
        credits: 0,
        subscription_status: null,
        image_url: 'https://img.clerk.com/ana.png',
        joined_at: '2026-01-02T03:04:05.000Z',
      });

      const again = await open(clerkId).data.syncUser(
        sessionUserFor(clerkId, { fullName: 'Ana L.', primaryEmailAddress: { emailAddress: 'ana@new.example' } }),
      );
      expect(again).toMatchObject({ id: first.id, email: 'ana@new.example', full_name: 'Ana L.', credits: 0 });
      expect(new Date(again.updated_at) >= new Date(first.updated_at)).toBe(true);
      const { rows } = await q('select count(*)::int as n from users where clerk_id = $1', [clerkId]);
      expect(rows[0].n).toBe(1);
    });

    it('asks exactly what product §4 says: select by clerk_id (.single()), then insert or update', async () => {
      const clerkId = `user_shape_${randomUUID().slice(0, 8)}`;
      const before = fakes.rest.requests.length;
      await open(clerkId).data.syncUser(sessionUserFor(clerkId));
      const asked = fakes.rest.requests.slice(before).map((r) => `${r.method} ${r.path.split('?')[0]} ${r.status}`);
      // The lookup's "no row" (406, PGRST116) is the one error the sync tolerates.
      expect(asked).toEqual(['GET /users 406', 'POST /users 201']);
    });

    it('updates the row our server created between its lookup and its insert, instead of failing', async () => {
      const clerkId = `user_race_${randomUUID().slice(0, 8)}`;
      const before = fakes.rest.requests.length;
      let created = false;
      // supabase-js asks for a token before each request: once the lookup has been answered, the server creates
      // the row, as Clerk's user.created webhook or the person's first API call does.
      const session = open(clerkId, async () => {
        if (!created && fakes.rest.requests.slice(before).some((r) => r.method === 'GET' && r.path.startsWith('/users'))) {
          created = true;
          await q(`insert into users (clerk_id, email, full_name, credits) values ($1, null, null, 0)`, [clerkId]);
        }
        return clerk.mint({ sub: clerkId });
      });
      const me = await session.data.syncUser(sessionUserFor(clerkId));
      expect(me).toMatchObject({ clerk_id: clerkId, email: 'ana@example.com', full_name: 'Ana Lima', credits: 0 });
      expect(fakes.rest.requests.slice(before).map((r) => `${r.method} ${r.path.split('?')[0]} ${r.status}`)).toEqual([
        'GET /users 406',
        'POST /users 409',
        'PATCH /users 200',
      ]);
      const { rows } = await q('select count(*)::int as n from users where clerk_id = $1', [clerkId]);
      expect(rows[0].n).toBe(1);
    });

    it('a failure to get a token is an error, never an anonymous request', async () => {
      const clerkId = `user_notoken_${randomUUID().slice(0, 8)}`;
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const before = fakes.rest.requests.length;
      await expect(open(clerkId, async () => null).data.syncUser(sessionUserFor(clerkId))).rejects.toThrow(
        'Failed to get authentication token',
      );
      expect(fakes.rest.requests.slice(before)).toEqual([]);
      // supabase-js asks for the realtime token as the client is made, and says so when there is none.
      expect(warn).toHaveBeenCalledWith(
        'Failed to set initial Realtime auth token:',
        expect.objectContaining({ message: 'Failed to get authentication token' }),
      );
      warn.mockRestore();
    });

    it('an expired token is refused (401 PGRST303), not answered as anon with empty data', async () => {
      const { clerkId } = await person('expired');
      const stale = open(clerkId, () => clerk.mint({ sub: clerkId }, { expiresIn: -120 }));
      const err = await stale.data.syncUser(sessionUserFor(clerkId)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 401, code: 'PGRST303' });
    });
  });

  describe('generations (product §7)', () => {
    it('a page of ACTIVE generations, newest first, with the exact total; favourites; the character joined', async () => {
      const { me, session } = await person('gen');
      const other = await person('other');
      const character = await addTraining(me.id, 'COMPLETED', 500, '/media/loras/ana.safetensors');
      const ids: string[] = [];
      for (let i = 0; i < 43; i++)
        ids.push(await addGeneration(me.id, { minutesAgo: i, favorite: i % 10 === 0, loraId: i === 0 ? character : null }));
      await addGeneration(me.id, { minutesAgo: 1000, status: 'DELETED' });
      await addGeneration(other.me.id, { minutesAgo: 0 });

      const first = await session.data.generationsPage({ page: 1, favorites: false });
      expect(first).toMatchObject({ page: 1, pageSize: LIMITS.pageSize, total: 43, pageCount: 2 });
      expect(first.items.map((g) => g.id)).toEqual(ids.slice(0, 40));
      expect(first.items[0].lora_trainings).toEqual({
        id: character,
        character_name: 'Character COMPLETED',
        trigger_word: 'anal',
        lora_file_url: '/media/loras/ana.safetensors',
      });
      expect(first.items[0].params.loras).toEqual([{ path: '/media/loras/ana.safetensors', scale: 1 }]);
      expect(first.items[0].params).toMatchObject({ seed: '42', image_size: { width: 1024, height: 576 } });
      // Images are served by our server: the SPA on another origin gets their full address.
      expect(first.items[0].result.images[0].url).toMatch(new RegExp(`^${API_URL}/media/generations/`));

      const second = await session.data.generationsPage({ page: 2, favorites: false });
      expect(second.items.map((g) => g.id)).toEqual(ids.slice(40));

      const favourites = await session.data.generationsPage({ page: 1, favorites: true });
      expect(favourites.total).toBe(5);
      expect(favourites.items.every((g) => g.isFavorited)).toBe(true);

      const recent = await session.data.recentGenerations(LIMITS.recentGenerations);
      expect(recent.map((g) => g.id)).toEqual(ids.slice(0, LIMITS.recentGenerations));
    });

    it('toggles a favourite and soft-deletes its own generations only', async () => {
      const { me, session } = await person('fav');
      const other = await person('notmine');
      const mine = await addGeneration(me.id, { minutesAgo: 1 });
      const theirs = await addGeneration(other.me.id, { minutesAgo: 1 });

      expect((await session.data.setFavorite(mine, true)).isFavorited).toBe(true);
      expect((await session.data.setFavorite(mine, false)).isFavorited).toBe(false);
      await session.data.deleteGeneration(mine);
      expect((await q('select status from generations where id = $1', [mine])).rows[0].status).toBe('DELETED');
      expect((await session.data.generationsPage({ page: 1, favorites: false })).total).toBe(0);

      await expect(session.data.setFavorite(theirs, true)).rejects.toMatchObject({ code: 'PGRST116' });
      await expect(session.data.deleteGeneration(theirs)).rejects.toMatchObject({ code: 'PGRST116' });
      expect((await q('select status, is_favorite from generations where id = $1', [theirs])).rows[0]).toEqual({
        status: 'ACTIVE',
        is_favorite: false,
      });
    });
  });

  describe('Undo of a delete: deleted through PostgREST, restored by our server', () => {
    let server: TestServer;
    beforeAll(async () => {
      // Our server on the same database, in Clerk mode, as the hosted deployment runs it.
      server = await startTestServer({ databaseUrl: db.url, env: { CLERK_JWT_KEY: clerk.publicKeyPem, ALLOWED_ORIGINS: TEST_SPA_ORIGIN } });
    }, 120_000);
    afterAll(() => server?.stop());

    const restore = async (clerkId: string, id: string) =>
      hostedFetch(server.url, await clerk.mint({ sub: clerkId }), `/api/library/generations/${id}/restore`, { method: 'POST' });

    it('brings the image back for its owner only, within the window, and Realtime tells the SPA', async () => {
      const { clerkId, me, session } = await person('undo');
      const other = await person('undoother');
      const id = await addGeneration(me.id, { minutesAgo: 1 });
      await fakes.realtime.settled(); // as in person(): this insert is not the change under test
      const changed = vi.fn();
      const stop = session.live.watchChanges('generations', changed);
      await vi.waitFor(() => expect(changed).toHaveBeenCalledTimes(1), REALTIME); // SUBSCRIBED

      await session.data.deleteGeneration(id);
      expect((await session.data.generationsPage({ page: 1, favorites: false })).total).toBe(0);
      // Someone else's token: the same 404 as for an image that does not exist; nothing changes.
      const theirs = await restore(other.clerkId, id);
      expect(theirs.status).toBe(404);
      expect((await q('select status from generations where id = $1', [id])).rows[0].status).toBe('DELETED');

      await fakes.realtime.settled();
      const before = changed.mock.calls.length;
      const res = await restore(clerkId, id);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id });
      expect((await q('select status, deleted_at from generations where id = $1', [id])).rows[0]).toEqual({
        status: 'ACTIVE',
        deleted_at: null,
      });
      await fakes.realtime.settled();
      await vi.waitFor(() => expect(changed.mock.calls.length).toBeGreaterThan(before), REALTIME);
      expect((await session.data.generationsPage({ page: 1, favorites: false })).items.map((g) => g.id)).toEqual([id]);

      // Deleted again and left past the window: refused, and it stays deleted.
      await session.data.deleteGeneration(id);
      await q(`update generations set deleted_at = now() - make_interval(secs => $2) where id = $1`, [id, GENERATION_UNDO_SECONDS + 1]);
      const late = await restore(clerkId, id);
      expect(late.status).toBe(410);
      expect((await late.json()).message).toBe(restoreRefused(1));
      expect((await session.data.generationsPage({ page: 1, favorites: false })).total).toBe(0);
      stop();
    });

    it('deletes a character through our server and brings it back for its owner only, within the window; Realtime tells the SPA', async () => {
      const { clerkId, me, session } = await person('undochar');
      const other = await person('undocharother');
      const older = await addTraining(me.id, 'COMPLETED', 20, '/media/loras/older.safetensors');
      const id = await addTraining(me.id, 'COMPLETED', 10, `/media/loras/${me.id}/undo.safetensors`);
      await fakes.realtime.settled(); // as in person(): these inserts are not the change under test
      const call = async (who: string, path: string, method: string) =>
        hostedFetch(server.url, await clerk.mint({ sub: who }), path, { method });
      const changed = vi.fn();
      const stop = session.live.watchChanges('trainings', changed);
      await vi.waitFor(() => expect(changed).toHaveBeenCalledTimes(1), REALTIME); // SUBSCRIBED

      expect((await call(clerkId, `/api/trainings/${id}`, 'DELETE')).status).toBe(204);
      expect((await session.data.trainings()).map((t) => t.id)).toEqual([older]);
      expect((await session.data.characters()).map((c) => c.id)).toEqual([older]);
      const theirs = await call(other.clerkId, `/api/trainings/${id}/restore`, 'POST');
      expect(theirs.status).toBe(404);

      await fakes.realtime.settled();
      const before = changed.mock.calls.length;
      const res = await call(clerkId, `/api/trainings/${id}/restore`, 'POST');
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id, lora_file_url: `/media/loras/${me.id}/undo.safetensors` });
      await fakes.realtime.settled();
      await vi.waitFor(() => expect(changed.mock.calls.length).toBeGreaterThan(before), REALTIME);
      // Back where it was, in Previous Trainings and in the character pickers.
      expect((await session.data.trainings()).map((t) => t.id)).toEqual([id, older]);
      expect((await session.data.characters()).map((c) => c.id)).toEqual([id, older]);

      // Deleted again and left past the window: refused, and it stays deleted.
      expect((await call(clerkId, `/api/trainings/${id}`, 'DELETE')).status).toBe(204);
      await q(`update lora_trainings set deleted_at = now() - make_interval(secs => $2) where id = $1`, [id, CHARACTER_UNDO_SECONDS + 1]);
      const late = await call(clerkId, `/api/trainings/${id}/restore`, 'POST');
      expect(late.status).toBe(410);
      expect((await late.json()).message).toBe(CHARACTER_RESTORE_REFUSED);
      expect((await session.data.characters()).map((c) => c.id)).toEqual([older]);
      stop();
    });
  });

  describe('trainings (product §7)', () => {
    it('lists the user’s trainings newest first, and as characters only the COMPLETED ones with a LoRA file', async () => {
      const { me, session } = await person('train');
      const old = await addTraining(me.id, 'COMPLETED', 300, '/media/loras/old.safetensors');
      const noFile = await addTraining(me.id, 'COMPLETED', 250, null);
      const failed = await addTraining(me.id, 'FAILED', 200);
      const recent = await addTraining(me.id, 'COMPLETED', 100, '/media/loras/new.safetensors');
      const running = await addTraining(me.id, 'IN_PROGRESS', 10);
      await addTraining((await person('stranger')).me.id, 'COMPLETED', 1, '/media/loras/theirs.safetensors');

      const trainings = await session.data.trainings();
      expect(trainings.map((t) => t.id)).toEqual([running, recent, failed, noFile, old]);
      expect(trainings[0]).toMatchObject({
        status: 'IN_PROGRESS',
        trigger_word: 'anal',
        gender: 'other',
        hair_color: 'other',
        lora_file_url: null,
      });

      const characters = await session.data.characters();
      expect(characters).toEqual([
        { id: recent, character_name: 'Character COMPLETED', trigger_word: 'anal', lora_file_url: '/media/loras/new.safetensors' },
        { id: old, character_name: 'Character COMPLETED', trigger_word: 'anal', lora_file_url: '/media/loras/old.safetensors' },
      ]);
    });
  });

  describe('explore gallery (product §7)', () => {
    beforeAll(async () => {
      await q('delete from explore_gallery');
      for (let i = 0; i < 50; i++) {
        await q(
          `insert into explore_gallery (image_url, prompt, width, height, style, gender, ethnicity, hair_color, is_featured, created_at)
           values ($1, 'p', 512, 512, $2, $3, $4, $5, $6, now() - make_interval(mins => $7))`,
          [
            `/media/explore/${i}.jpeg`,
            i % 2 ? 'cinematic' : 'portrait',
            i % 3 ? 'female' : 'male',
            i === 7 ? null : 'hispanic',
            i % 2 ? 'black' : 'brown',
            i % 4 === 0,
            i,
          ],
        );
      }
    });

    it('featured first then newest, a page with the exact total, equality filters', async () => {
      const { session } = await person('explorer');
      const page1 = await session.data.explorePage({}, 1);
      expect(page1).toMatchObject({ total: 50, pageCount: 2 });
      const featured = page1.items.filter((e) => e.is_featured);
      expect(featured).toHaveLength(13);
      expect(page1.items.slice(0, 13).every((e) => e.is_featured)).toBe(true);
      const times = (items: { created_at: string }[]) => items.map((e) => Date.parse(e.created_at));
      expect(times(featured)).toEqual([...times(featured)].sort((x, y) => y - x));
      expect(page1.items[0].image_url).toBe(`${API_URL}/media/explore/0.jpeg`);

      const filtered = await session.data.explorePage({ gender: 'male', style: 'portrait' }, 1);
      expect(filtered.items.length).toBeGreaterThan(0);
      expect(filtered.total).toBe(filtered.items.length);
      expect(filtered.items.every((e) => e.gender === 'male' && e.style === 'portrait')).toBe(true);
    });

    it('the filter values: distinct and sorted; featured items: at most 12, newest first', async () => {
      const { session } = await person('filters');
      expect(await session.data.exploreFilterOptions()).toEqual({
        gender: ['female', 'male'],
        hair_color: ['black', 'brown'],
        ethnicity: ['hispanic'],
        style: ['cinematic', 'portrait'],
      });
      const featured = await session.data.exploreFeatured();
      expect(featured).toHaveLength(LIMITS.featuredLimit);
      expect(featured.every((e) => e.is_featured)).toBe(true);
      expect(featured[0].image_url).toBe(`${API_URL}/media/explore/0.jpeg`);
    });
  });

  describe('realtime (product §4)', () => {
    it('the balance: read once subscribed, then again after each change of user_public_meta; the channel goes on unsubscribe', async () => {
      const { me, session } = await person('live');
      const seen = vi.fn();
      const stop = session.live.watchBalance(seen);
      await vi.waitFor(() => expect(seen).toHaveBeenCalledWith(0), REALTIME);
      await q('update user_public_meta set credits = 1500 where user_id = $1', [me.id]);
      await vi.waitFor(() => expect(seen).toHaveBeenLastCalledWith(1500), REALTIME);
      expect(fakes.realtime.channels().some((c) => c.topic.startsWith('realtime:user_public_meta:'))).toBe(true);

      stop();
      await vi.waitFor(
        () =>
          expect(
            fakes.realtime.channels().filter((c) => c.topic.startsWith('realtime:user_public_meta:') && c.sub === me.clerk_id),
          ).toEqual([]),
        REALTIME,
      );
    });

    it('any change on lora_trainings is a signal to reload; others’ changes do not reach this user', async () => {
      const { me, session } = await person('trainlive');
      const other = await person('trainother');
      const changed = vi.fn();
      const stop = session.live.watchChanges('trainings', changed);
      await vi.waitFor(() => expect(changed).toHaveBeenCalledTimes(1), REALTIME); // SUBSCRIBED
      await addTraining(other.me.id, 'IN_PROGRESS', 0);
      const mine = await addTraining(me.id, 'IN_PROGRESS', 0);
      await fakes.realtime.settled();
      await vi.waitFor(() => expect(changed).toHaveBeenCalledTimes(2), REALTIME);
      await q(`update lora_trainings set status = 'COMPLETED' where id = $1`, [mine]);
      await fakes.realtime.settled();
      await vi.waitFor(() => expect(changed).toHaveBeenCalledTimes(3), REALTIME);
      stop();
    });

    it('a character deleted on the server leaves both lists, and the deletion reaches the SPA as a change', async () => {
      const { me, session } = await person('traingone');
      const kept = await addTraining(me.id, 'COMPLETED', 20, '/media/loras/kept.safetensors');
      const gone = await addTraining(me.id, 'COMPLETED', 10, '/media/loras/gone.safetensors');
      await fakes.realtime.settled(); // as in person(): these inserts are not the change under test
      const changed = vi.fn();
      const stop = session.live.watchChanges('trainings', changed);
      await vi.waitFor(() => expect(changed).toHaveBeenCalledTimes(1), REALTIME); // SUBSCRIBED
      // What trainingsRepository.markDeleted writes.
      await q(`update lora_trainings set deleted_at = now(), lora_file_url = null, result = null, upload_url = null where id = $1`, [gone]);
      await fakes.realtime.settled();
      await vi.waitFor(() => expect(changed).toHaveBeenCalledTimes(2), REALTIME);
      expect((await session.data.trainings()).map((t) => t.id)).toEqual([kept]);
      expect((await session.data.characters()).map((c) => c.id)).toEqual([kept]);
      stop();
    });

    it('a refreshed session token reaches the joined channel (the ~55 s refresh, shortened here)', async () => {
      const clerkId = `user_refresh_${randomUUID().slice(0, 8)}`;
      let issued = 0;
      // Each token differs (Clerk's carry a new iat/exp); the adapter pushes only a changed one.
      const session = open(clerkId, () => clerk.mint({ sub: clerkId, n: ++issued }), 300);
      await session.data.syncUser(sessionUserFor(clerkId));
      const stop = session.live.watchBalance(() => {});
      // realtime-js itself sends a new token once after the join and then with its 25 s heartbeat; more
      // updates within a second or two come from the adapter's refresh timer.
      await vi.waitFor(
        () => expect(fakes.realtime.channels().find((c) => c.sub === clerkId)?.accessTokenUpdates).toBeGreaterThanOrEqual(3),
        REALTIME,
      );
      stop();
    });

    it('after a network drop the channel rejoins once, and the rejoin asks for a refetch', async () => {
      const { me, session } = await person('drop');
      const seen = vi.fn();
      const stop = session.live.watchBalance(seen);
      await vi.waitFor(() => expect(seen).toHaveBeenCalledTimes(1), REALTIME);
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      fakes.realtime.dropAll();
      await vi.waitFor(() => expect(seen).toHaveBeenCalledTimes(2), { ...REALTIME, timeout: 20_000 });
      expect(warn).toHaveBeenCalledWith('Realtime user_public_meta: CHANNEL_ERROR', expect.any(Error));
      warn.mockRestore();
      // One channel again (not two); under load realtime-js may still be settling its rejoin when the refetch lands.
      await vi.waitFor(() => expect(fakes.realtime.channels().filter((c) => c.sub === me.clerk_id)).toHaveLength(1), REALTIME);
      stop();
    }, 30_000);
  });
});
