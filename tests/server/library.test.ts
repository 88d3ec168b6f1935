import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import sharp from 'sharp';
import type { GenerationView } from '@common/generation.ts';
import {
  GENERATION_UNDO_SECONDS,
  restoreRefused,
  SELECTION_GONE,
  type ExploreFilterOptions,
  type ExplorePage,
  type LibraryPage,
} from '@common/library.ts';
import type { RealtimeEvent } from '@common/events.ts';
import { exploreGallery, generations, loraTrainings } from '../../server/db/schema.ts';
import { seedCatalogue, seedExploreGallery, SEED_SIZE } from '../../server/services/explore-seed.ts';
import type { ImageGenerator } from '../../server/providers/inference/index.ts';
import { keyFromMediaUrl } from '../../server/providers/storage/index.ts';
import { startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';

const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const patch = (client: TestClient, id: string, body: unknown) =>
  client.fetch(`/api/library/generations/${id}`, { method: 'PATCH', ...json(body) });
const del = (client: TestClient, id: string) => client.fetch(`/api/library/generations/${id}`, { method: 'DELETE' });
const restore = (client: TestClient, id: string) => client.fetch(`/api/library/generations/${id}/restore`, { method: 'POST' });
const selection = (client: TestClient, action: string, ids: string[]) => client.post('/api/library/selection', { action, ids });

/** Inserts `n` ACTIVE generations for a user, one second apart (index 0 oldest); returns their ids oldest first. */
async function insertGenerations(ts: TestServer, userId: string, n: number, extra: Partial<typeof generations.$inferInsert> = {}) {
  const base = Date.now() - n * 1000;
  const rows = await ts.rt.db
    .insert(generations)
    .values(
      Array.from({ length: n }, (_, i) => ({
        userId,
        prompt: `prompt ${i}`,
        width: 1024,
        height: 768,
        imageUrl: `/media/generations/${userId}/${randomUUID()}.jpeg`,
        seed: String(i),
        numInferenceSteps: 28,
        guidanceScale: 3.5,
        createdAt: new Date(base + i * 1000),
        ...extra,
      })),
    )
    .returning({ id: generations.id });
  return rows.map((r) => r.id);
}

async function page(client: TestClient, query: string): Promise<LibraryPage> {
  const res = await client.get(`/api/library/generations${query}`);
  expect(res.status).toBe(200);
  return res.json();
}

describe.each(testDatabases())('library and explore (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database });
  });
  afterAll(() => ts?.stop());

  it('lists only the caller’s ACTIVE generations, newest first, 40 a page with the exact total', async () => {
    const owner = await ts.signUp();
    const other = await ts.signUp();
    const ids = await insertGenerations(ts, owner.userId, 85);
    await insertGenerations(ts, other.userId, 3);
    await insertGenerations(ts, owner.userId, 2, { status: 'DELETED' });

    const first = await page(owner.client, '');
    expect(first).toMatchObject({ page: 1, pageSize: 40, total: 85, pageCount: 3 });
    expect(first.items).toHaveLength(40);
    expect(first.items[0].id).toBe(ids[84]);
    expect(first.items[0]).toMatchObject({
      params: { prompt: 'prompt 84', image_size: { width: 1024, height: 768 }, seed: '84' },
      isFavorited: false,
      lora_trainings: null,
    });
    const third = await page(owner.client, '?page=3');
    expect(third.items.map((g) => g.id)).toEqual(ids.slice(0, 5).reverse());
    const all = [...first.items, ...(await page(owner.client, '?page=2')).items, ...third.items].map((g) => g.id);
    expect(new Set(all).size).toBe(85);
    expect((await page(owner.client, '?page=4')).items).toEqual([]);
    expect((await page(other.client, '')).total).toBe(3);
  });

  it('joins the character a generation used', async () => {
    const owner = await ts.signUp();
    const [training] = await ts.rt.db
      .insert(loraTrainings)
      .values({
        userId: owner.userId,
        characterName: 'Ana',
        triggerWord: 'anaxy',
        status: 'COMPLETED',
        loraFileUrl: '/media/loras/x/ana.bin',
      })
      .returning();
    await insertGenerations(ts, owner.userId, 1, { loraId: training.id, loraScale: 0.8 });
    const [item] = (await page(owner.client, '')).items;
    expect(item.lora_trainings).toEqual({
      id: training.id,
      character_name: 'Ana',
      trigger_word: 'anaxy',
      lora_file_url: '/media/loras/x/ana.bin',
    });
    expect(item.params.loras).toEqual([{ path: '/media/loras/x/ana.bin', scale: 0.8 }]);
  });

  it('favourites on and off; Favorites lists only favourites with their count', async () => {
    const { client, userId } = await ts.signUp();
    const [a, b] = await insertGenerations(ts, userId, 3);
    const on = await patch(client, a, { is_favorite: true });
    expect(on.status).toBe(200);
    expect(((await on.json()) as GenerationView).isFavorited).toBe(true);
    await patch(client, b, { is_favorite: true });
    expect(await page(client, '?favorites=true')).toMatchObject({ total: 2 });
    await patch(client, a, { is_favorite: false });
    const favorites = await page(client, '?favorites=true');
    expect(favorites.total).toBe(1);
    expect(favorites.items.map((g) => g.id)).toEqual([b]);
    expect((await page(client, '?favorites=false')).total).toBe(3);
  });

  it('soft-deletes: DELETED in the table, gone from every list, 404 the second time', async () => {
    const { client, userId } = await ts.signUp();
    const [id] = await insertGenerations(ts, userId, 2);
    await patch(client, id, { is_favorite: true });
    expect((await del(client, id)).status).toBe(204);
    const [row] = await ts.rt.db.select({ status: generations.status }).from(generations).where(eq(generations.id, id));
    expect(row.status).toBe('DELETED');
    expect((await page(client, '')).items.map((g) => g.id)).not.toContain(id);
    expect((await page(client, '?favorites=true')).total).toBe(0);
    expect((await (await client.get('/api/generations?limit=6')).json()).items.map((g: GenerationView) => g.id)).not.toContain(id);
    expect((await del(client, id)).status).toBe(404);
    expect((await patch(client, id, { is_favorite: false })).status).toBe(404);
  });

  describe('Undo of a delete', () => {
    const statusOf = async (id: string) => (await ts.rt.db.select().from(generations).where(eq(generations.id, id)))[0];
    /** Moves a delete back in time, as if it had happened `seconds` ago. */
    const deletedAgo = (id: string, seconds: number) =>
      ts.rt.db
        .update(generations)
        .set({ deletedAt: sql`now() - make_interval(secs => ${seconds})` })
        .where(eq(generations.id, id));
    const refused = (count: number) => ({ code: 'restore_refused', message: restoreRefused(count), requestId: expect.any(String) });

    it('brings a deleted image back within the window, in its place with its favourite, and tells the other tabs; a second Undo changes nothing', async () => {
      const { client, userId } = await ts.signUp();
      const ids = await insertGenerations(ts, userId, 3);
      // Subscribed before the first change: an event reaches subscribers through the database's NOTIFY, so one
      // sent just before subscribing can still arrive after it (a loaded machine showed it).
      const events: RealtimeEvent[] = [];
      const unsubscribe = ts.rt.events.subscribe(userId, { onEvent: (e) => events.push(e as RealtimeEvent), onDisconnect() {} });
      try {
        await patch(client, ids[1], { is_favorite: true });
        expect((await del(client, ids[1])).status).toBe(204);
        expect(await statusOf(ids[1])).toMatchObject({ status: 'DELETED', deletedAt: expect.any(Date) });
        const res = await restore(client, ids[1]);
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ id: ids[1], isFavorited: true, params: { prompt: 'prompt 1' } });
        expect(await statusOf(ids[1])).toMatchObject({ status: 'ACTIVE', deletedAt: null, filesRemovedAt: null });
        expect((await page(client, '')).items.map((g) => g.id)).toEqual([...ids].reverse());
        expect((await page(client, '?favorites=true')).items.map((g) => g.id)).toEqual([ids[1]]);
        // Twice (a retried request): still there, and no second event (the favourite after it is the next one).
        expect((await restore(client, ids[1])).status).toBe(200);
        await patch(client, ids[0], { is_favorite: true });
        await expect
          .poll(() => events.filter((e) => e.type === 'generation'), { timeout: 10_000 })
          .toEqual([
            { type: 'generation', action: 'updated', id: ids[1] },
            { type: 'generation', action: 'deleted', id: ids[1] },
            { type: 'generation', action: 'restored', id: ids[1] },
            { type: 'generation', action: 'updated', id: ids[0] },
          ]);
      } finally {
        unsubscribe();
      }
    });

    it('restores a delete the purge has not stamped yet (hosted mode sets only the status)', async () => {
      const { client, userId } = await ts.signUp();
      const [id] = await insertGenerations(ts, userId, 1, { status: 'DELETED' });
      expect((await restore(client, id)).status).toBe(200);
      expect(await statusOf(id)).toMatchObject({ status: 'ACTIVE', deletedAt: null });
    });

    it('refuses once the window has passed or the files are removed, and changes nothing', async () => {
      const { client, userId } = await ts.signUp();
      const [late, purged, fresh] = await insertGenerations(ts, userId, 3);
      for (const id of [late, purged, fresh]) expect((await del(client, id)).status).toBe(204);

      await deletedAgo(late, GENERATION_UNDO_SECONDS + 1);
      const tooLate = await restore(client, late);
      expect(tooLate.status).toBe(410);
      expect(await tooLate.json()).toEqual(refused(1));
      expect(await statusOf(late)).toMatchObject({ status: 'DELETED' });

      // Within the window by its time, but the files are gone (marked as the purge marks them).
      await ts.rt.db
        .update(generations)
        .set({ filesRemovedAt: sql`now()` })
        .where(eq(generations.id, purged));
      expect(await (await restore(client, purged)).json()).toEqual(refused(1));
      expect(await statusOf(purged)).toMatchObject({ status: 'DELETED' });

      // The purge itself: past the window, its pass removes the files, and Undo is refused after it.
      await deletedAgo(fresh, GENERATION_UNDO_SECONDS + 1);
      await ts.rt.deletedGenerationsPurge.release();
      await ts.rt.deletedGenerationsPurge.runNow();
      expect(await statusOf(fresh)).toMatchObject({ status: 'DELETED', filesRemovedAt: expect.any(Date) });
      expect((await restore(client, fresh)).status).toBe(410);
      expect((await page(client, '')).total).toBe(0);
    });

    it("never restores another user's image, or one that does not exist (404 like a missing one)", async () => {
      const owner = await ts.signUp();
      const intruder = await ts.signUp();
      const [id] = await insertGenerations(ts, owner.userId, 1);
      expect((await del(owner.client, id)).status).toBe(204);
      for (const target of [id, randomUUID(), 'not-a-uuid']) {
        const res = await restore(intruder.client, target);
        expect(res.status, target).toBe(404);
        expect(await res.json()).toEqual({ code: 'not_found', message: 'No such generation.', requestId: expect.any(String) });
      }
      const theirs = await selection(intruder.client, 'restore', [id]);
      expect(theirs.status).toBe(404);
      expect((await theirs.json()).message).toBe(SELECTION_GONE);
      expect(await statusOf(id)).toMatchObject({ status: 'DELETED' });
      expect((await page(intruder.client, '')).total).toBe(0);
      // The owner still can.
      expect((await restore(owner.client, id)).status).toBe(200);
      // And an ACTIVE image of someone else is not "already restored" for the intruder either.
      expect((await restore(intruder.client, id)).status).toBe(404);
    });

    it("a selection's Delete is undone all or nothing: every image back, or none when one is someone else's or too late", async () => {
      const { client, userId } = await ts.signUp();
      const other = await ts.signUp();
      const ids = await insertGenerations(ts, userId, 4);
      const [theirs] = await insertGenerations(ts, other.userId, 1);
      expect(await (await selection(client, 'delete', ids.slice(0, 3))).json()).toEqual({ changed: 3 });
      // The selection's delete starts the window too.
      for (const id of ids.slice(0, 3)) expect(await statusOf(id)).toMatchObject({ status: 'DELETED', deletedAt: expect.any(Date) });

      expect((await selection(client, 'restore', [...ids.slice(0, 3), theirs])).status).toBe(404);
      await deletedAgo(ids[2], GENERATION_UNDO_SECONDS + 1);
      const partly = await selection(client, 'restore', ids.slice(0, 3));
      expect(partly.status).toBe(410);
      expect(await partly.json()).toEqual(refused(3));
      expect((await page(client, '')).total).toBe(1);

      const back = await selection(client, 'restore', ids.slice(0, 2));
      expect(await back.json()).toEqual({ changed: 2 });
      expect((await page(client, '')).items.map((g) => g.id)).toEqual([ids[3], ids[1], ids[0]]);
      // Again, with one already back among them: nothing more to do, and no error.
      expect(await (await selection(client, 'restore', ids.slice(0, 2))).json()).toEqual({ changed: 0 });
    });
  });

  it("never lets a user read, favourite, delete or download another user's generation (404 like a missing one)", async () => {
    const owner = await ts.signUp();
    const intruder = await ts.signUp();
    const [id] = await insertGenerations(ts, owner.userId, 1);
    const missing = randomUUID();
    for (const target of [id, missing, 'not-a-uuid']) {
      const fav = await patch(intruder.client, target, { is_favorite: true });
      expect(fav.status).toBe(404);
      expect(await fav.json()).toEqual({ code: 'not_found', message: 'No such generation.', requestId: expect.any(String) });
      const gone = await del(intruder.client, target);
      expect(gone.status).toBe(404);
      expect(await gone.json()).toEqual({ code: 'not_found', message: 'No such generation.', requestId: expect.any(String) });
    }
    expect((await intruder.client.get(`/api/download/${id}`)).status).toBe(404);
    expect((await page(intruder.client, '')).total).toBe(0);
    const [row] = (await page(owner.client, '')).items;
    expect(row).toMatchObject({ id, isFavorited: false });
  });

  it('requires sign-in on every endpoint', async () => {
    const anonymous = ts.client();
    for (const [method, path] of [
      ['GET', '/api/library/generations'],
      ['PATCH', `/api/library/generations/${randomUUID()}`],
      ['DELETE', `/api/library/generations/${randomUUID()}`],
      ['POST', `/api/library/generations/${randomUUID()}/restore`],
      ['GET', '/api/explore'],
      ['GET', '/api/explore/filters'],
      ['GET', '/api/explore/featured'],
    ]) {
      expect(
        (await anonymous.fetch(path, { method, ...(method === 'PATCH' ? json({ is_favorite: true }) : {}) })).status,
        `${method} ${path}`,
      ).toBe(401);
    }
  });

  it('answers 400 with a clear message to bad pages, flags, bodies and filter values', async () => {
    const { client, userId } = await ts.signUp();
    const [id] = await insertGenerations(ts, userId, 1);
    const cases: [string, string][] = [
      ['/api/library/generations?page=0', 'page: must be a whole number from 1 to 10000'],
      ['/api/library/generations?page=-1', 'page: must be a whole number from 1 to 10000'],
      ['/api/library/generations?page=1.5', 'page: must be a whole number from 1 to 10000'],
      ['/api/library/generations?page=abc', 'page: must be a whole number from 1 to 10000'],
      ['/api/library/generations?page=10001', 'page: must be a whole number from 1 to 10000'],
      ['/api/library/generations?favorites=yes', 'favorites: must be true or false'],
      ['/api/explore?page=x', 'page: must be a whole number from 1 to 10000'],
      ['/api/explore?gender=robot', 'gender: must be one of female, male, other'],
      ['/api/explore?hair_color=green', 'hair_color: must be one of black, blonde, brown, gray, red, white, other'],
      ['/api/explore?style=%27%20or%201%3D1', 'style: must be one of cinematic, editorial, fashion, headshot, lifestyle, portrait, street'],
      [
        '/api/explore?ethnicity=martian',
        'ethnicity: must be one of african, east-asian, hispanic, middle-eastern, south-asian, white, mixed',
      ],
    ];
    for (const [path, message] of cases) {
      const res = await client.get(path);
      expect(res.status, path).toBe(400);
      expect(await res.json(), path).toEqual({ code: 'invalid_input', message, requestId: expect.any(String) });
    }
    const badBody = await patch(client, id, { is_favorite: 'yes' });
    expect(badBody.status).toBe(400);
    expect(await badBody.json()).toEqual({
      code: 'invalid_input',
      message: 'is_favorite: must be true or false',
      requestId: expect.any(String),
    });
    const notJson = await client.fetch(`/api/library/generations/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBe(400);
  });

  it('explore: filters, featured first then newest, exact count, distinct sorted options, featured limit 12', async () => {
    await ts.rt.db.delete(exploreGallery);
    const now = Date.now();
    const rows = Array.from({ length: 50 }, (_, i) => ({
      imageUrl: `/media/explore/${randomUUID()}.jpeg`,
      prompt: `explore ${i}`,
      width: 768,
      height: 960,
      gender: i % 2 ? 'female' : 'male',
      hairColor: ['red', 'black', 'blonde'][i % 3],
      ethnicity: i % 5 === 0 ? null : 'hispanic',
      style: i % 4 === 0 ? 'street' : 'portrait',
      isFeatured: i % 3 === 0,
      createdAt: new Date(now - i * 1000),
    }));
    await ts.rt.db.insert(exploreGallery).values(rows);
    const { client } = await ts.signUp();

    const all: ExplorePage = await (await client.get('/api/explore')).json();
    expect(all).toMatchObject({ total: 50, pageCount: 2, page: 1 });
    expect(all.items.slice(0, 17).every((item) => item.is_featured)).toBe(true);
    expect(all.items.slice(17).some((item) => item.is_featured)).toBe(false);
    expect(all.items.slice(0, 3).map((i) => i.prompt)).toEqual(['explore 0', 'explore 3', 'explore 6']);
    expect(all.items[17].prompt).toBe('explore 1');

    const filtered: ExplorePage = await (await client.get('/api/explore?gender=female&hair_color=red&style=portrait')).json();
    const expected = rows.filter((r) => r.gender === 'female' && r.hairColor === 'red' && r.style === 'portrait');
    expect(filtered.total).toBe(expected.length);
    expect(filtered.items.every((i) => i.gender === 'female' && i.hair_color === 'red' && i.style === 'portrait')).toBe(true);
    expect((await (await client.get('/api/explore?ethnicity=east-asian')).json()).total).toBe(0);
    expect((await (await client.get('/api/explore?page=2')).json()).items).toHaveLength(10);

    const options: ExploreFilterOptions = await (await client.get('/api/explore/filters')).json();
    expect(options).toEqual({
      gender: ['female', 'male'],
      hair_color: ['black', 'blonde', 'red'],
      ethnicity: ['hispanic'],
      style: ['portrait', 'street'],
    });
    const featured = await (await client.get('/api/explore/featured')).json();
    expect(featured.items).toHaveLength(12);
    expect(featured.items.every((i: { is_featured: boolean }) => i.is_featured)).toBe(true);
  });

  it('seeds the starter gallery once, with every attribute value and some featured items', async () => {
    await ts.rt.db.delete(exploreGallery);
    const tiny = await sharp({ create: { width: 8, height: 10, channels: 3, background: '#888' } })
      .jpeg()
      .toBuffer();
    let renders = 0;
    const generator: ImageGenerator = {
      name: 'builtin',
      async generate(input) {
        renders++;
        return { images: [{ data: tiny, width: 8, height: 10, contentType: 'image/jpeg', nsfw: false }], seed: input.seed };
      },
    };
    const deps = { db: ts.rt.db, storage: ts.rt.storage, generator, logger: ts.rt.logger };
    expect(await seedExploreGallery(deps)).toBe(SEED_SIZE);
    expect(await seedExploreGallery(deps)).toBe(0);
    expect(renders).toBe(SEED_SIZE);
    const { client } = await ts.signUp();
    const list: ExplorePage = await (await client.get('/api/explore')).json();
    expect(list.total).toBeGreaterThanOrEqual(48);
    const featured = seedCatalogue().filter((i) => i.featured);
    expect(featured.length).toBeGreaterThanOrEqual(6);
    expect(new Set(featured.map((i) => i.style)).size).toBe(featured.length);
    expect(list.items.slice(0, featured.length).every((i) => i.is_featured)).toBe(true);
    const options: ExploreFilterOptions = await (await client.get('/api/explore/filters')).json();
    expect(options.gender).toEqual(['female', 'male', 'other']);
    expect(options.hair_color).toHaveLength(7);
    expect(options.ethnicity).toHaveLength(7);
    expect(options.style).toHaveLength(7);
    const image = await client.get(list.items[0].image_url);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/jpeg');
  });

  it("re-renders an earlier version's starter images in place, keeping the operator's curation, and touches nothing else", async () => {
    const { db, storage } = ts.rt;
    await db.delete(exploreGallery);
    await storage.delete('explore/seed-v2.complete');
    const old = await sharp({ create: { width: 8, height: 10, channels: 3, background: '#777' } })
      .jpeg()
      .toBuffer();
    const v1Key = (id: string) => `explore/seed-v1/${id}.jpeg`;
    // An install that completed v1 (the silhouettes); the operator then removed its first item and
    // unfeatured a featured one, added an item of their own, and a user has a generation.
    const [removed, ...kept] = seedCatalogue();
    for (const item of kept) await storage.put(v1Key(item.id), old, 'image/jpeg');
    await storage.put(`thumbs/384/${v1Key(kept[0]!.id)}.webp`, old, 'image/webp');
    await db.insert(exploreGallery).values(
      kept.map((item, i) => ({
        id: item.id,
        imageUrl: `/media/${v1Key(item.id)}`,
        prompt: 'a grey silhouette',
        width: 768,
        height: 960,
        style: item.style,
        gender: item.gender,
        ethnicity: item.ethnicity,
        hairColor: item.hairColor,
        isFeatured: item.featured,
        createdAt: new Date(Date.now() - i * 60_000),
      })),
    );
    const unfeatured = kept.find((item) => item.featured)!;
    await db.update(exploreGallery).set({ isFeatured: false }).where(eq(exploreGallery.id, unfeatured.id));
    await storage.put('explore/seed-v1.complete', Buffer.from('{"version":"v1"}'), 'application/json');
    const own = await ts.rt.explore.add(old, { prompt: 'an operator’s own picture', style: 'street' });
    const user = await ts.signUp();
    const [generationId] = await insertGenerations(ts, user.userId, 1);
    const [generationBefore] = await db.select().from(generations).where(eq(generations.id, generationId!));

    const fresh = await sharp({ create: { width: 8, height: 10, channels: 3, background: '#c8202a' } })
      .jpeg()
      .toBuffer();
    const prompts: string[] = [];
    const generator: ImageGenerator = {
      name: 'builtin',
      async generate(input) {
        prompts.push(input.prompt);
        return { images: [{ data: fresh, width: 8, height: 10, contentType: 'image/jpeg', nsfw: false }], seed: input.seed };
      },
    };
    const deps = { db, storage, generator, logger: ts.rt.logger };
    expect(await seedExploreGallery(deps)).toBe(SEED_SIZE - 1);
    expect(prompts).toEqual(kept.map((item) => item.prompt));
    expect(await seedExploreGallery(deps)).toBe(0);

    const rows = await db.select().from(exploreGallery);
    expect(rows.find((r) => r.id === removed!.id)).toBeUndefined();
    for (const item of kept) {
      const row = rows.find((r) => r.id === item.id)!;
      expect(row).toMatchObject({
        imageUrl: `/media/explore/seed-v2/${item.id}.jpeg`,
        prompt: item.prompt,
        isFeatured: item.id === unfeatured.id ? false : item.featured,
      });
      expect((await storage.read(`explore/seed-v2/${item.id}.jpeg`))!.equals(fresh)).toBe(true);
      expect(await storage.exists(v1Key(item.id))).toBe(false);
    }
    expect(await storage.exists(`thumbs/384/${v1Key(kept[0]!.id)}.webp`)).toBe(false);
    expect(rows.find((r) => r.id === own.id)).toMatchObject({ prompt: 'an operator’s own picture', imageUrl: own.image_url });
    expect(await storage.exists(keyFromMediaUrl(own.image_url)!)).toBe(true);
    expect((await db.select().from(generations).where(eq(generations.id, generationId!)))[0]).toEqual(generationBefore);
  });
});
