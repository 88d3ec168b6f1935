import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { generations, loraTrainings, uploads } from '../../server/db/schema.ts';
import { keyFromMediaUrl } from '../../server/providers/storage/index.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import { samplePhoto } from '../helpers/photos.ts';
import { createScratchDatabase, startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';
import { FAST_TRAINING, trainingArchive, trainingEnded } from '../helpers/training.ts';
import { uploadFile } from '../helpers/uploads.ts';

/** Retention (product §1): originals go after UPLOAD_RETENTION_DAYS, once, on one instance. */

const DAY_MS = 24 * 60 * 60 * 1000;

const generateBody = (loras: { path: string; scale: number }[]) =>
  generationRequestBody({ prompt: 'a portrait of danap in a park', loras, seed: 7 });

/** Moves a row's upload and expiry back, as if it had been made `days` ago. */
async function age(ts: TestServer, url: string, days: number) {
  const at = new Date(Date.now() - days * DAY_MS);
  await ts.rt.db
    .update(uploads)
    .set({ createdAt: at, expiresAt: new Date(at.getTime() + 30 * DAY_MS) })
    .where(eq(uploads.url, url));
}

describe.each(testDatabases())('retention of originals (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database, env: FAST_TRAINING });
  });
  afterAll(async () => {
    await ts?.stop();
  });

  it('deletes photos and archives older than 30 days once, keeps newer ones, and their trainings still generate', async () => {
    const { client } = await ts.signUp({ credits: 520 });
    const photo = await samplePhoto('smilingWoman');
    const oldPhoto = await uploadFile(client, photo, 'old.jpg', 'image/jpeg');
    const newPhoto = await uploadFile(client, photo, 'new.jpg', 'image/jpeg');
    const archive = await uploadFile(client, await trainingArchive(4), 'training_images.zip', 'application/zip');

    // A character trained from the archive, completed before the archive expires.
    const submit = await client.post('/api/image/submit-lora-training', {
      images_data_url: archive,
      trigger_word: 'danap',
      character_name: 'Dana',
    });
    expect(submit.status, await submit.clone().text()).toBe(200);
    const { request_id } = await submit.json();
    const done = await trainingEnded(client, request_id);
    expect(done.status).toBe('COMPLETED');

    await age(ts, oldPhoto, 31);
    await age(ts, archive, 31);
    await age(ts, newPhoto, 29);
    await ts.rt.retention.release();
    await ts.rt.retention.runNow();
    expect(ts.rt.retention.lastReport()).toMatchObject({ uploads: 2 });

    const left = await ts.rt.db
      .select()
      .from(uploads)
      .where(inArray(uploads.url, [oldPhoto, newPhoto, archive]));
    expect(left.map((r) => r.url)).toEqual([newPhoto]);
    expect(await ts.rt.storage.exists(keyFromMediaUrl(oldPhoto)!)).toBe(false);
    expect(await ts.rt.storage.exists(keyFromMediaUrl(archive)!)).toBe(false);
    expect(await ts.rt.storage.exists(keyFromMediaUrl(newPhoto)!)).toBe(true);
    expect((await client.get(oldPhoto)).status).toBe(404);
    expect((await client.post('/api/image/fast-caption', { image_url: oldPhoto })).status).toBe(403);

    // Nothing is deleted twice: the next sweep finds nothing to do.
    await ts.rt.retention.release();
    await ts.rt.retention.runNow();
    expect(ts.rt.retention.lastReport()).toMatchObject({ uploads: 0 });

    // The character made from the deleted photos still generates, and still differs from no character.
    const withCharacter = await client.post('/api/image/generate-image', generateBody([{ path: done.lora_file_url!, scale: 1 }]));
    expect(withCharacter.status, await withCharacter.clone().text()).toBe(200);
    const without = await client.post('/api/image/generate-image', generateBody([]));
    const bytes = async (res: Response) => Buffer.from(await (await client.get((await res.json()).images[0].url)).arrayBuffer());
    expect((await bytes(withCharacter)).equals(await bytes(without))).toBe(false);
  });

  it('keeps an expired archive that a running training still reads', async () => {
    const { client, userId } = await ts.signUp();
    const archive = await uploadFile(client, await trainingArchive(4), 'training_images.zip', 'application/zip');
    await age(ts, archive, 40);
    const [row] = await ts.rt.db
      .insert(loraTrainings)
      .values({
        userId,
        characterName: 'Slow',
        status: 'IN_PROGRESS',
        uploadUrl: archive,
        provider: 'fal',
        nextRunAt: new Date(Date.now() + DAY_MS),
      })
      .returning();
    await ts.rt.retention.release();
    await ts.rt.retention.runNow();
    expect(await ts.rt.storage.exists(keyFromMediaUrl(archive)!)).toBe(true);
    await ts.rt.db.update(loraTrainings).set({ status: 'FAILED' }).where(eq(loraTrainings.id, row.id));
    await ts.rt.retention.release();
    await ts.rt.retention.runNow();
    expect(await ts.rt.storage.exists(keyFromMediaUrl(archive)!)).toBe(false);
  });

  it('removes files that never got their row once the grace period is over, and thumbnails of gone images', async () => {
    const { client, userId } = await ts.signUp();
    const kept = await uploadFile(client, await samplePhoto('man'), 'kept.jpg', 'image/jpeg');
    const stray = `uploads/${userId}/${randomUUID()}.jpeg`;
    const fresh = `uploads/${userId}/${randomUUID()}.jpeg`;
    const strayGeneration = `generations/${userId}/${randomUUID()}.jpeg`;
    const strayThumb = `thumbs/384/generations/${userId}/${randomUUID()}.jpeg.webp`;
    // A shoot photo whose likeness re-take was kept: its file is named after the re-take, and its row is there.
    const retakeId = randomUUID();
    const retake = `generations/${userId}/${retakeId}-retake.jpeg`;
    await ts.rt.db.insert(generations).values({ id: retakeId, userId, prompt: 'p', width: 64, height: 64, imageUrl: `/media/${retake}` });
    for (const key of [stray, fresh, strayGeneration, strayThumb, retake]) await ts.rt.storage.put(key, Buffer.from('x'), 'image/jpeg');
    // Local storage keeps the modification time: two days ago is past the one-day grace.
    const old = new Date(Date.now() - 2 * DAY_MS);
    for (const key of [stray, strayGeneration, strayThumb, retake, keyFromMediaUrl(kept)!])
      utimesSync(join(ts.dataDir, 'files', key), old, old);
    await ts.rt.retention.release();
    await ts.rt.retention.runNow();
    expect(ts.rt.retention.lastReport()?.orphans).toBeGreaterThanOrEqual(3);
    expect(await ts.rt.storage.exists(stray)).toBe(false);
    expect(await ts.rt.storage.exists(strayGeneration)).toBe(false);
    expect(await ts.rt.storage.exists(strayThumb)).toBe(false);
    expect(await ts.rt.storage.exists(fresh)).toBe(true);
    expect(await ts.rt.storage.exists(keyFromMediaUrl(kept)!)).toBe(true);
    expect(await ts.rt.storage.exists(retake)).toBe(true);
  });
});

describe('retention of generated images', () => {
  it('keeps generations unless GENERATION_RETENTION_DAYS is set, then deletes older ones with their thumbnails', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'likeness-retention-'));
    const make = async (client: TestClient) => {
      const res = await client.post('/api/image/generate-image', generateBody([]));
      expect(res.status).toBe(200);
      const url: string = (await res.json()).images[0].url;
      expect((await client.get(url.replace('/media/', '/media/thumbs/384/'))).status).toBe(200);
      return url;
    };
    try {
      const first = await startTestServer({ dataDir });
      const { client } = await first.signUp({ credits: 30 });
      const oldUrl = await make(client);
      const newUrl = await make(client);
      await first.rt.db
        .update(generations)
        .set({ createdAt: new Date(Date.now() - 31 * DAY_MS) })
        .where(eq(generations.imageUrl, oldUrl));
      await first.rt.retention.release();
      await first.rt.retention.runNow();
      expect(first.rt.retention.lastReport()).toMatchObject({ generations: 0 });
      expect(await first.rt.storage.exists(keyFromMediaUrl(oldUrl)!)).toBe(true);
      await first.stop();

      const second = await startTestServer({ dataDir, env: { GENERATION_RETENTION_DAYS: '30' } });
      try {
        await second.rt.retention.release();
        await second.rt.retention.runNow();
        // First marked deleted: an update the owner's open tabs hear (no list shows it, its image is refused).
        expect(second.rt.retention.lastReport()).toMatchObject({ generations: 0 });
        const marked = await second.rt.db.select().from(generations).where(eq(generations.imageUrl, oldUrl));
        expect(marked).toMatchObject([{ status: 'DELETED' }]);
        // A sweep a minute or more later removes it, files first.
        await second.rt.db
          .update(generations)
          .set({ deletedAt: new Date(Date.now() - 61_000) })
          .where(eq(generations.imageUrl, oldUrl));
        await second.rt.retention.release();
        await second.rt.retention.runNow();
        expect(second.rt.retention.lastReport()).toMatchObject({ generations: 1 });
        const rows = await second.rt.db.select({ url: generations.imageUrl }).from(generations);
        expect(rows.map((r) => r.url)).toEqual([newUrl]);
        expect(await second.rt.storage.exists(keyFromMediaUrl(oldUrl)!)).toBe(false);
        expect(await second.rt.storage.exists(`thumbs/384/${keyFromMediaUrl(oldUrl)!}.webp`)).toBe(false);
        expect(await second.rt.storage.exists(keyFromMediaUrl(newUrl)!)).toBe(true);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a generation retention shorter than the 30 days the plans promise', () => {
    expect(() => loadConfig({ GENERATION_RETENTION_DAYS: '7' })).toThrow(/GENERATION_RETENTION_DAYS: must be at least 30/);
    expect(loadConfig({ GENERATION_RETENTION_DAYS: '' }).GENERATION_RETENTION_DAYS).toBeUndefined();
    expect(loadConfig({}).UPLOAD_RETENTION_DAYS).toBe(30);
  });
});

describe('retention across instances (postgres)', () => {
  it('two instances sweeping at once delete each expired file and row exactly once', async () => {
    const scratch = await createScratchDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'likeness-retention-two-'));
    const start = () => startTestServer({ database: 'postgres', databaseUrl: scratch.url, dataDir });
    const [a, b] = [await start(), await start()];
    try {
      const { client } = await a.signUp();
      const photo = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#336699' } })
        .jpeg()
        .toBuffer();
      const urls: string[] = [];
      for (let i = 0; i < 24; i++) urls.push(await uploadFile(client, photo, `p${i}.jpg`, 'image/jpeg'));
      for (const url of urls) await age(a, url, 31);

      const deletions = new Map<string, number>();
      for (const rt of [a.rt, b.rt]) {
        const remove = rt.storage.delete.bind(rt.storage);
        rt.storage.delete = async (key) => {
          deletions.set(key, (deletions.get(key) ?? 0) + 1);
          await remove(key);
        };
      }
      await Promise.all([a.rt.retention.release(), b.rt.retention.release()]);
      await Promise.all([a.rt.retention.runNow(), b.rt.retention.runNow(), a.rt.retention.runNow(), b.rt.retention.runNow()]);

      expect([...deletions.keys()].sort()).toEqual(urls.map((url) => keyFromMediaUrl(url)!).sort());
      expect([...deletions.values()].every((n) => n === 1)).toBe(true);
      expect((a.rt.retention.lastReport()?.uploads ?? 0) + (b.rt.retention.lastReport()?.uploads ?? 0)).toBe(24);
      expect(await a.rt.db.select().from(uploads).where(inArray(uploads.url, urls))).toEqual([]);
    } finally {
      await a.stop();
      await b.stop();
      await scratch.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
