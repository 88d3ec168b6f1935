/**
 * Photo shoots in hosted mode: the SPA's own reads of the catalogue and of a person's shoots (supabase-js →
 * PostgREST) on real Postgres with supabase/migrations and their row-level security, through the PostgREST
 * fake. The catalogue is seeded by the server's own code (as a hosted server does at start); shoots are
 * written by the server (as the tables' owner), as in production. A person sees the visible catalogue as the
 * server lists it, their own shoots with their photos, and never anyone else's.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@/backend/api-error';
import { shootCost } from '@common/photo-shoots';
import { generations } from '../../server/db/schema.ts';
import { shootsRepository } from '../../server/repositories/shoots.repository.ts';
import { toPackView } from '../../server/services/shoots.service.ts';
import { startHostedShoots, type HostedPerson, type HostedShoots } from '../helpers/hosted-shoots.ts';
import { ANON } from '../helpers/supabase-db.ts';

describe('hosted photo shoots: packs and shoots read by the SPA (postgres + RLS, PostgREST fake)', () => {
  let world: HostedShoots;
  let db: HostedShoots['db'];
  let clerk: HostedShoots['clerk'];
  let fakes: HostedShoots['fakes'];
  let server: HostedShoots['server'];
  let catalogue: HostedShoots['catalogue'];
  let hiddenPack: string;
  const person = (name: string) => world.person(name);

  beforeAll(async () => {
    world = await startHostedShoots('shoots');
    ({ db, clerk, fakes, server, catalogue } = world);
    hiddenPack = catalogue.packs[1].id;
    await shootsRepository.setHidden(server.db, hiddenPack, true);
  }, 60_000);
  afterAll(async () => {
    await world?.stop();
  });

  /**
   * A shoot of `packIndex`'s pack as the server writes it (shootsRepository.insertShoot), `minutesAgo` old,
   * with its first photo landed and its second failed when `progress` says so.
   */
  async function shoot(owner: HostedPerson, packIndex: number, minutesAgo: number, progress: 'queued' | 'partly' | 'done') {
    const { id, pack, photos } = await world.insertShoot(owner, {
      packIndex,
      createdAt: new Date(Date.now() - minutesAgo * 60_000),
      firstSeed: 1000,
    });
    // As the runner lands a photo: its generation (the photo's id, in the shoot), then the photo.
    const land = async (photo: (typeof photos)[number], imageUrl: string) => {
      await server.db
        .insert(generations)
        .values({ id: photo.id, userId: owner.me.id, prompt: photo.prompt, width: 832, height: 1216, imageUrl, shootId: id });
      await shootsRepository.finishPhoto(server.db, photo.id, { status: 'SUCCEEDED', generationId: photo.id, imageUrl });
    };
    if (progress !== 'queued') {
      await land(photos[0], `/media/generations/${owner.me.id}/${id}-0.jpeg`);
      await shootsRepository.finishPhoto(server.db, photos[1].id, { status: 'FAILED', error: 'refused by the safety checker' });
    }
    if (progress === 'done') {
      for (const p of photos.slice(2)) await land(p, `/media/generations/${owner.me.id}/${p.id}.jpeg`);
      await shootsRepository.endShoot(server.db, id, 'COMPLETED');
    }
    return { id, pack, photos: pack.prompts.length };
  }

  it('the catalogue: every visible pack with its prompts in order, exactly as the server lists it; hidden packs never', async () => {
    const { session } = await person('ann');
    const before = fakes.rest.requests.length;
    const packs = await session.data.photoPacks();
    expect(fakes.rest.requests.slice(before).map((r) => `${r.method} ${decodeURIComponent(r.path)} ${r.status} ${r.role}`)).toEqual([
      'GET /photo_packs?select=id,name,description,category,aspect_ratio,width,height,cover_url,sample_urls,position,photo_pack_prompts(position,template)&order=position.asc,id.asc 200 authenticated',
    ]);
    const listed = (await shootsRepository.listPacks(server.db, { includeHidden: false })).map(toPackView);
    expect(packs).toEqual(listed);
    expect(packs.map((p) => p.id)).toEqual(catalogue.packs.map((p) => p.id).filter((id) => id !== hiddenPack));
    expect(packs.every((p) => p.prompts.length === p.photo_count && p.photo_count >= 8)).toBe(true);
    // The hidden pack's prompts are not readable either, through the embed or on their own.
    const token = await clerk.mint({ sub: 'user_reader' });
    const res = await fetch(`${fakes.url}/rest/v1/photo_pack_prompts?select=pack_id&pack_id=eq.${hiddenPack}`, {
      headers: { apikey: fakes.anonKey, authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
    // Visitors (anon) read the same visible catalogue; nobody but the server writes it.
    expect((await db.asClaims(ANON, 'select id from photo_packs order by position, id')).rows.map((r) => r.id)).toEqual(
      packs.map((p) => p.id),
    );
    const write = await fetch(`${fakes.url}/rest/v1/photo_packs?id=eq.${packs[0].id}`, {
      method: 'PATCH',
      headers: { apikey: fakes.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ hidden: true }),
    });
    expect(write.status).toBe(403);
    expect((await write.json()).code).toBe('42501');
  });

  it("a person's shoots, newest first with their progress, and each with its photos; never another person's", async () => {
    const ann = await person('ann');
    const bob = await person('bob');
    const annOld = await shoot(ann, 0, 30, 'done');
    const annRunning = await shoot(ann, 2, 5, 'partly');
    const bobs = await shoot(bob, 0, 1, 'partly');

    const list = await ann.session.data.shoots({ running: false });
    expect(list.map((s) => s.id)).toEqual([annRunning.id, annOld.id]);
    expect(list[0]).toMatchObject({
      pack_id: annRunning.pack.id,
      pack_name: annRunning.pack.name,
      lora_id: ann.characterId,
      character_name: ann.characterName,
      status: 'RUNNING',
      photo_count: annRunning.photos,
      cost: shootCost(annRunning.photos),
      ready: 1,
      failed: 1,
      finished_at: null,
    });
    expect(list[1]).toMatchObject({ status: 'COMPLETED', ready: annOld.photos - 1, failed: 1 });
    expect(list[1].finished_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    // The same summaries the server's repository gives (counts and order), read under RLS by the SPA.
    const serverList = await shootsRepository.listShoots(server.db, ann.me.id, { limit: 50, teamId: null });
    expect(list.map((s) => [s.id, s.ready, s.failed, s.created_at])).toEqual(
      serverList.map((r) => [r.shoot.id, r.ready, r.failed, r.shoot.createdAt.toISOString()]),
    );
    expect((await ann.session.data.shoots({ running: true })).map((s) => s.id)).toEqual([annRunning.id]);

    const full = await ann.session.data.shoot(annRunning.id);
    expect(full.photos.map((p) => p.position)).toEqual([...Array(annRunning.photos).keys()]);
    expect(full.photos.map((p) => p.prompt)).toEqual(annRunning.pack.prompts);
    expect(full.photos[0]).toMatchObject({
      status: 'SUCCEEDED',
      image_url: `/media/generations/${ann.me.id}/${annRunning.id}-0.jpeg`,
      ahead: null,
    });
    expect(full.photos[0].finished_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(full.photos[1]).toMatchObject({ status: 'FAILED', image_url: null, error: 'refused by the safety checker' });
    expect(full.photos.slice(2).every((p) => p.status === 'QUEUED' && p.image_url === null)).toBe(true);

    // Bob's shoot: not in Ann's lists, and asked for by id it is no row (PostgREST's 406 PGRST116), photos and all:
    // the local API's 404, as are a missing shoot and an id that is no uuid (PostgREST's 400), so the page says so.
    expect(list.some((s) => s.id === bobs.id)).toBe(false);
    for (const id of [bobs.id, randomUUID(), '-'.repeat(36), 'a'.repeat(36), 'nope']) {
      const err = await ann.session.data.shoot(id).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, id).toBeInstanceOf(ApiError);
      expect(err, id).toMatchObject({ status: 404, code: 'not_found', message: 'There is no such photo shoot.' });
    }
    const token = await clerk.mint({ sub: ann.me.clerk_id });
    const photos = await fetch(`${fakes.url}/rest/v1/shoot_photos?select=id&shoot_id=eq.${bobs.id}`, {
      headers: { apikey: fakes.anonKey, authorization: `Bearer ${token}` },
    });
    expect(await photos.json()).toEqual([]);
    // Even a filter that names Bob finds nothing for Ann; Bob sees his own.
    const byUser = await fetch(`${fakes.url}/rest/v1/photo_shoots?select=id&user_id=eq.${bob.me.id}`, {
      headers: { apikey: fakes.anonKey, authorization: `Bearer ${token}` },
    });
    expect(await byUser.json()).toEqual([]);
    expect((await bob.session.data.shoots({ running: false })).map((s) => s.id)).toEqual([bobs.id]);
    expect((await bob.session.data.shoot(bobs.id)).photos).toHaveLength(bobs.photos);
    // Visitors read no shoots at all.
    const anon = await fetch(`${fakes.url}/rest/v1/photo_shoots?select=id`, { headers: { apikey: fakes.anonKey } });
    expect(anon.status).toBe(401);
  });

  it('a photo deleted from My Generations shows as deleted and is not counted ready, as the server has it', async () => {
    const ann = await person('ann');
    const done = await shoot(ann, 1, 3, 'done');
    const before = await ann.session.data.shoot(done.id);
    const first = before.photos[0];
    expect(first).toMatchObject({ status: 'SUCCEEDED', deleted: false, generation_id: first.id });
    // The person deletes it in My Generations (the hosted SPA writes the status through Supabase).
    await ann.session.data.deleteGeneration(first.generation_id!);
    const after = await ann.session.data.shoot(done.id);
    expect(after.photos[0]).toMatchObject({ status: 'SUCCEEDED', deleted: true, image_url: null, generation_id: null });
    expect(after.photos[2]).toMatchObject({ deleted: false, generation_id: after.photos[2].id });
    const summary = (await ann.session.data.shoots({ running: false })).find((s) => s.id === done.id)!;
    const [serverSummary] = (await shootsRepository.listShoots(server.db, ann.me.id, { limit: 50, teamId: null })).filter(
      (r) => r.shoot.id === done.id,
    );
    expect(summary.ready).toBe(done.photos - 2);
    expect(serverSummary.ready).toBe(summary.ready);
  });

  it('a shoot without photos embeds an empty list, as PostgREST answers a one-to-many embed with no rows', async () => {
    const ann = await person('ann');
    const id = randomUUID();
    await db.owner.query(
      `insert into photo_shoots (id, user_id, pack_id, lora_id, pack_name, character_name, status, photo_count, cost) values ($1, $2, $3, null, 'Empty', 'gone', 'CANCELLED', 0, 0)`,
      [id, ann.me.id, catalogue.packs[0].id],
    );
    const token = await clerk.mint({ sub: ann.me.clerk_id });
    const res = await fetch(`${fakes.url}/rest/v1/photo_shoots?select=id,lora_trainings(id),shoot_photos(id)&id=eq.${id}`, {
      headers: { apikey: fakes.anonKey, authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ id, lora_trainings: null, shoot_photos: [] }]);
    expect((await ann.session.data.shoot(id)).photos).toEqual([]);
  });
});
