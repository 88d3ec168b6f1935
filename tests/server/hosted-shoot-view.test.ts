/**
 * One shoot view (issue 48 item 5): the shoot page reads the same photos in both modes. The local server's
 * GET /api/shoots/<id> (shootsService.get, as the tables' owner) and the hosted SPA's read (supabase-js →
 * PostgREST, as the signed-in person under row-level security) come from one definition, shoot_photo_views, so
 * the hosted page shows each photo's likeness and its queue position too — a position that counts other people's
 * photos, which the person cannot read — equal to what the local server answers for the same rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generations } from '../../server/db/schema.ts';
import { createLogger } from '../../server/logger.ts';
import { createEventBus, type EventBus } from '../../server/realtime/event-bus.ts';
import { shootsRepository } from '../../server/repositories/shoots.repository.ts';
import { createCreditsService } from '../../server/services/credits.service.ts';
import { createShootsService, type ShootsService } from '../../server/services/shoots.service.ts';
import { startHostedShoots, type HostedShoots } from '../helpers/hosted-shoots.ts';
import { clerkClaims } from '../helpers/supabase-db.ts';

describe('one shoot view: hosted reads likeness and queue position equal to the local server (postgres + RLS)', () => {
  let world: HostedShoots;
  let events: EventBus;
  let shoots: ShootsService;
  const logger = createLogger('silent');

  beforeAll(async () => {
    world = await startHostedShoots('view');
    // The server's shoots service, as local mode runs it.
    events = await createEventBus(world.server, logger);
    const credits = createCreditsService({ db: world.server.db, events });
    shoots = createShootsService({ db: world.server.db, credits, events, logger, wake: () => undefined });
  }, 60_000);
  afterAll(async () => {
    await events?.close();
    await world?.stop();
  });

  it('every photo of a shoot in progress is the same in both modes: kept image, deleted, likeness, queue position', async () => {
    const { db, server, clerk, fakes } = world;
    const ann = await world.person('ann');
    const bob = await world.person('bob');
    // Bob's shoot was queued first: his photos start before Ann's at the same position, and Ann cannot read them.
    const bobs = await world.insertShoot(bob);
    const anns = await world.insertShoot(ann);
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
