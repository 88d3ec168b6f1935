import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { ExplorePage } from '@common/library.ts';
import { generations } from '../../server/db/schema.ts';
import { mediaUrl } from '../../server/providers/storage/index.ts';
import { admin } from '../helpers/admin.ts';
import { startTestServer } from '../helpers/server.ts';

describe('admin explore command (pglite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'likeness-admin-explore-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  // Eleven admin commands, each a process of its own that opens the database, and two servers: 16 s on a quiet
  // 2-core machine, over the default 30 s with three other test files running beside it.
  it('adds an image file, publishes a generation, features, unfeatures and removes items', { timeout: 120_000 }, async () => {
    // A user with one generation whose image is in storage.
    let ts = await startTestServer({ dataDir });
    const { userId } = await ts.signUp();
    const image = await sharp({ create: { width: 64, height: 80, channels: 3, background: '#a05' } })
      .png()
      .toBuffer();
    await ts.rt.storage.put(`generations/${userId}/g1.png`, image, 'image/png');
    const [generation] = await ts.rt.db
      .insert(generations)
      .values({
        userId,
        prompt: 'a red portrait',
        width: 64,
        height: 80,
        outputFormat: 'png',
        imageUrl: mediaUrl(`generations/${userId}/g1.png`),
        seed: '7',
      })
      .returning();
    await ts.stop();

    const env = { DATA_DIR: dataDir };
    const file = join(dataDir, 'photo.png');
    writeFileSync(file, image);
    const added = await admin(
      env,
      'explore',
      'add',
      file,
      '--prompt',
      'studio headshot',
      '--gender',
      'female',
      '--hair-color',
      'red',
      '--style',
      'headshot',
      '--featured',
    );
    expect(added).toMatchObject({ code: 0 });
    const addedId = /item ([0-9a-f-]{36})/.exec(added.out)![1];

    const published = await admin(env, 'explore', 'publish', generation.id, '--ethnicity', 'mixed');
    expect(published.code).toBe(0);
    const publishedId = /item ([0-9a-f-]{36})/.exec(published.out)![1];
    expect((await admin(env, 'explore', 'publish', generation.id)).err).toContain('already in the explore gallery');

    expect((await admin(env, 'explore', 'add', file, '--prompt', 'x', '--gender', 'robot')).code).toBe(64);
    expect((await admin(env, 'explore', 'add', join(dataDir, 'missing.png'), '--prompt', 'x')).code).toBe(1);
    expect((await admin(env, 'explore', 'add', file)).code).toBe(64);
    expect((await admin(env, 'explore', 'feature', publishedId)).out).toBe(`Explore item ${publishedId} is now featured.`);
    expect((await admin(env, 'explore', 'unfeature', addedId)).code).toBe(0);
    expect((await admin(env, 'explore', 'remove', '00000000-0000-4000-8000-000000000000')).code).toBe(1);

    ts = await startTestServer({ dataDir });
    try {
      const { client } = await ts.signUp();
      const list: ExplorePage = await (await client.get('/api/explore')).json();
      expect(list.total).toBe(2);
      expect(list.items[0]).toMatchObject({
        id: publishedId,
        is_featured: true,
        prompt: 'a red portrait',
        seed: '7',
        ethnicity: 'mixed',
        width: 64,
        height: 80,
      });
      expect(list.items[1]).toMatchObject({ id: addedId, is_featured: false, gender: 'female', hair_color: 'red', style: 'headshot' });
      const original = await client.get(list.items[1].image_url);
      expect(original.status).toBe(200);
      // Shared caches revalidate an Explore image: it can be taken down (a removal, an erasure).
      expect(original.headers.get('cache-control')).toBe('public, no-cache');
      const imageUrl = list.items[1].image_url;
      const thumbUrls = [384, 768].map((width) => imageUrl.replace('/media/', `/media/thumbs/${width}/`));
      for (const url of thumbUrls) expect((await client.get(url)).headers.get('cache-control')).toBe('public, no-cache');
      await ts.stop();
      expect((await admin(env, 'explore', 'remove', addedId)).code).toBe(0);
      ts = await startTestServer({ dataDir });
      const after = await ts.signUp();
      expect((await (await after.client.get('/api/explore')).json()).total).toBe(1);
      expect((await after.client.get(imageUrl)).status).toBe(404);
      // Its thumbnails, made when the grid showed it, went with it.
      for (const url of thumbUrls) expect((await after.client.get(url)).status, url).toBe(404);
    } finally {
      await ts.stop();
    }
  });
});
