/**
 * One shoot view (issue 48 item 5): the shoot page reads the same photos in both modes. The local server's
 * GET /api/shoots/<id> (shootsService.get, as the tables' owner) and the hosted SPA's read (supabase-js →
 * PostgREST, as the signed-in person under row-level security) come from one definition, shoot_photo_views, so
 * the hosted page shows each photo's likeness and its queue position too — a position that counts other people's
 * photos, which the person cannot read — equal to what the local server answers for the same rows.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSupabaseSession } from '@/backend/hosted/supabase-session';
import { shootCost } from '@common/photo-shoots';
import { openDatabase, type Database } from '../../server/db/index.ts';
import { generations } from '../../server/db/schema.ts';
import { createLogger } from '../../server/logger.ts';
import { createEventBus, type EventBus } from '../../server/realtime/event-bus.ts';
import { shootsRepository } from '../../server/repositories/shoots.repository.ts';
import { createCreditsService } from '../../server/services/credits.service.ts';
import { readCatalogue, seedCatalogue } from '../../server/services/packs.service.ts';
import { createShootsService, type ShootsService } from '../../server/services/shoots.service.ts';
import { startSupabaseFakes, type SupabaseFakes } from '../fakes/supabase-stack.ts';
import { createClerkTestKeys, type ClerkTestKeys } from '../helpers/clerk.ts';
import { clerkClaims, createSupabaseDatabase, type SupabaseTestDatabase } from '../helpers/supabase-db.ts';
import { sessionUser } from '../support/fake-backend.ts';

describe('one shoot view: hosted reads likeness and queue position equal to the local server (postgres + RLS)', () => {
  let db: SupabaseTestDatabase;
  let clerk: ClerkTestKeys;
  let fakes: SupabaseFakes;
  let server: Database;
  let events: EventBus;
  let shoots: ShootsService;
  const sessions: { close(): void }[] = [];
  const catalogue = readCatalogue();
  const logger = createLogger('silent');

  beforeAll(async () => {
    db = await createSupabaseDatabase();
    clerk = createClerkTestKeys();
    fakes = await startSupabaseFakes({ databaseUrl: db.url, jwtKey: clerk.publicKeyPem });
    // The server's own connection (as the tables' owner) and its shoots service, as local mode runs it.
    server = await openDatabase({ databaseUrl: db.url, dataDir: '/nonexistent', logger });
    await seedCatalogue(server.db, catalogue);
    events = await createEventBus(server, logger);
    const credits = createCreditsService({ db: server.db, events });
    shoots = createShootsService({ db: server.db, credits, events, logger, wake: () => undefined });
  }, 60_000);
  afterAll(async () => {
    for (const s of sessions) s.close();
    await events?.close();
    await server?.close();
    await fakes?.stop();
    await db?.drop();
  });

  async function person(name: string) {
    const clerkId = `user_view_${name}_${randomUUID().slice(0, 8)}`;
    const session = openSupabaseSession(
      { publishableKey: 'pk_test_x', supabaseUrl: fakes.url, supabaseAnonKey: fakes.anonKey, apiUrl: '' },
      () => clerk.mint({ sub: clerkId }),
    );
    sessions.push(session);
    const me = await session.data.syncUser(
      sessionUser({ id: clerkId, fullName: name, primaryEmailAddress: { emailAddress: `${clerkId}@example.com` } }),
    );
    const {
      rows: [character],
    } = await db.owner.query<{ id: string }>(
      `insert into lora_trainings (user_id, character_name, trigger_word, status, lora_file_url, request_id)
       values ($1, $2, 'ohwx', 'COMPLETED', $3, $4) returning id`,
      [me.id, `${name}'s character`, `/media/loras/${me.id}/lora.safetensors`, randomUUID()],
    );
    return { me, session, clerkId, characterId: character.id, characterName: `${name}'s character` };
  }

  /** A shoot of the first pack, all queued, written as the server starts one. */
  async function startShoot(owner: Awaited<ReturnType<typeof person>>) {
    const pack = catalogue.packs[0];
    const id = randomUUID();
    await shootsRepository.insertShoot(
      server.db,
      {
        id,
        userId: owner.me.id,
        packId: pack.id,
        loraId: owner.characterId,
        packName: pack.name,
        characterName: owner.characterName,
        photoCount: pack.prompts.length,
        cost: shootCost(pack.prompts.length),
      },
      pack.prompts.map((prompt, position) => ({
        shootId: id,
        userId: owner.me.id,
        position,
        prompt,
        width: 832,
        height: 1216,
        seed: position,
      })),
    );
    return { id, photos: await shootsRepository.listPhotos(server.db, id) };
  }

  it('every photo of a shoot in progress is the same in both modes: kept image, deleted, likeness, queue position', async () => {
    const ann = await person('ann');
    const bob = await person('bob');
    // Bob's shoot was queued first: his photos start before Ann's at the same position, and Ann cannot read them.
    const bobs = await startShoot(bob);
    const anns = await startShoot(ann);
    const [landed, weak, deletedSince, failed, rendering, waiting] = anns.photos;

    // As the runner lands photos: the generation (the photo's id, in the shoot, with its likeness), then the photo.
    const land = async (photo: (typeof anns.photos)[number], likeness: number | null, verdict: 'strong' | 'weak' | null) => {
      const imageUrl = `/media/generations/${ann.me.id}/${photo.id}.jpeg`;
      await server.db.insert(generations).values({
        id: photo.id,
        userId: ann.me.id,
        prompt: photo.prompt,
        width: 832,
        height: 1216,
        imageUrl,
        shootId: anns.id,
        loraId: ann.characterId,
        likeness,
        likenessVerdict: verdict,
      });
      await shootsRepository.finishPhoto(server.db, photo.id, { status: 'SUCCEEDED', generationId: photo.id, imageUrl });
    };
    await land(landed, 83, 'strong');
    await land(weak, 41, 'weak');
    await land(deletedSince, 77, 'strong');
    await ann.session.data.deleteGeneration(deletedSince.id);
    await shootsRepository.finishPhoto(server.db, failed.id, { status: 'FAILED', error: 'This photo could not be made; refunded.' });
    // One photo rendering now (claimed, started, its lease held): it is not ahead of anyone. One claimed but still
    // waiting for its render slot (no started_at): it is. Bob's first photo is rendering too.
    const lease = { owner: 'instance-a', until: new Date(Date.now() + 3_600_000) };
    await db.owner.query(
      `update shoot_photos set status = 'RUNNING', attempts = 1, lease_owner = $2, lease_expires_at = $3, started_at = case when id = $4 then now() end
       where id = any($1::uuid[])`,
      [[rendering.id, waiting.id, bobs.photos[0].id], lease.owner, lease.until, rendering.id],
    );
    await db.owner.query(`update shoot_photos set started_at = now() where id = $1`, [bobs.photos[0].id]);

    const local = await shoots.get(ann.me.id, anns.id);
    const hosted = await ann.session.data.shoot(anns.id);
    expect(hosted.photos).toEqual(local.photos);

    // And what both show is the product's: likeness of kept photos, none of one deleted since, queue positions
    // that count Bob's photos (which Ann's queries cannot read).
    const byId = new Map(hosted.photos.map((p) => [p.id, p]));
    expect(byId.get(landed.id)).toMatchObject({
      status: 'SUCCEEDED',
      likeness: 83,
      likeness_verdict: 'strong',
      deleted: false,
      ahead: null,
    });
    expect(byId.get(weak.id)).toMatchObject({
      likeness: 41,
      likeness_verdict: 'weak',
      image_url: `/media/generations/${ann.me.id}/${weak.id}.jpeg`,
    });
    expect(byId.get(deletedSince.id)).toMatchObject({
      deleted: true,
      image_url: null,
      generation_id: null,
      likeness: null,
      likeness_verdict: null,
    });
    expect(byId.get(failed.id)).toMatchObject({ status: 'FAILED', ahead: null, likeness: null });
    expect(byId.get(rendering.id)).toMatchObject({ status: 'RUNNING', ahead: null });
    const queued = hosted.photos.filter((p) => p.status === 'QUEUED');
    expect(queued.length).toBeGreaterThan(0);
    // Ahead of Ann's photo at position p: Bob's photos at positions 1..p (his shoot came first; his first is
    // rendering), and Ann's own at 5..p-1 (the one claimed but waiting for its slot, and her queued ones).
    for (const p of queued) expect(p.ahead, `position ${p.position}`).toBe(p.position + (p.position - 5));

    // The view is read under row-level security: Ann's token reads her photos only, never Bob's.
    const mine = await db.asClaims<{ shoot_id: string }>(clerkClaims(ann.clerkId), 'select shoot_id from shoot_photo_views');
    expect(new Set(mine.rows.map((r) => r.shoot_id))).toEqual(new Set([anns.id]));
    const token = await clerk.mint({ sub: ann.clerkId });
    const res = await fetch(`${fakes.url}/rest/v1/shoot_photo_views?select=id&shoot_id=eq.${bobs.id}`, {
      headers: { apikey: fakes.anonKey, authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
  });
});
