import { request } from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acrossPhotos, duplicateOf, PHOTO_CHECK, photoBadge, type PhotoCheck } from '@common/photo-check.ts';
import { rateLimits } from '../../server/db/schema.ts';
import { awkwardPhotos, derivedPhotos, portraitPhoto, PORTRAITS, samplePhoto } from '../helpers/photos.ts';
import { photoVerdict, postPhotoCheck } from '../helpers/photo-checks.ts';
import { startTestServer, type TestClient, type TestServer } from '../helpers/server.ts';

/** The real analyser (face detector and nsfwjs) on real photos and copies derived from them. */

let ts: TestServer;
let client: TestClient;
beforeAll(async () => {
  ts = await startTestServer();
  ({ client } = await ts.signUp());
});
afterAll(async () => {
  await ts?.stop();
});

const check = (bytes: Buffer, opts: { name?: string; query?: string; as?: TestClient } = {}) =>
  postPhotoCheck(opts.as ?? client, bytes, opts);
const verdict = (bytes: Buffer, opts: { name?: string; query?: string } = {}) => photoVerdict(client, bytes, opts);

describe('training photo check', () => {
  it('gives each derived photo the badge of its problem, and spots the same photo twice', async () => {
    const photos = await derivedPhotos();
    const expected: Record<keyof typeof photos, string> = {
      good: 'Good',
      goodMan: 'Good',
      blurred: 'Blurry',
      darkened: 'Too dark',
      brightened: 'Too bright',
      shrunk: 'Too small (at least 512 px)',
      twoFaces: 'More than one person',
      faceTooSmall: 'Face too small',
      duplicate: 'Same as photo 2',
      noFace: 'No face found',
    };
    const names = Object.keys(expected) as (keyof typeof photos)[];
    const checks: PhotoCheck[] = [];
    for (const name of names) checks.push(await verdict(photos[name]));
    const compared = acrossPhotos(checks);
    const badges = Object.fromEntries(names.map((name, i) => [name, photoBadge(checks[i]!, compared[i])]));
    expect(badges).toEqual(expected);
    expect(checks[names.indexOf('good')]).toMatchObject({ problems: [], faces: 1, width: 512, height: 640, detail: null });
    expect(checks[names.indexOf('twoFaces')]).toMatchObject({ faces: 2, hash: null });
    expect(checks[names.indexOf('noFace')]).toMatchObject({ faces: 0, hash: null });
  });

  it('classifies every safe sample photo as allowed (the classifier’s real output)', async () => {
    const photos = [
      ...(await Promise.all(PORTRAITS.map((p) => portraitPhoto(p)))),
      await samplePhoto('fullBody', 480),
      await samplePhoto('webcamMan'),
    ];
    for (const photo of photos) {
      const measures = await ts.rt.vision.check(photo);
      const scores = measures.decoded!.nsfw;
      expect(scores.drawing + scores.hentai + scores.neutral + scores.porn + scores.sexy).toBeCloseTo(1, 3);
      expect(scores.porn + scores.hentai).toBeLessThan(PHOTO_CHECK.nsfwExplicit);
      expect((await verdict(photo)).problems).not.toContain('not-allowed');
    }
  });

  it('judges a smaller copy by the original size the page states', async () => {
    const copy = await sharp(await portraitPhoto('man'))
      .resize({ width: 320 })
      .jpeg()
      .toBuffer();
    expect(photoBadge(await verdict(copy))).toBe('Too small (at least 512 px)');
    expect(await verdict(copy, { query: '?width=1280&height=1600' })).toMatchObject({ problems: [], width: 1280, height: 1600 });
    // A stated size of another shape, or smaller than the copy, is not believed.
    expect(await verdict(copy, { query: '?width=1600&height=1280' })).toMatchObject({ width: 320, height: 400 });
    expect(await verdict(copy, { query: '?width=160&height=200' })).toMatchObject({ width: 320, height: 400 });
    expect(photoBadge(await verdict(copy, { query: '?width=8000&height=10000' }))).toBe('Too large (max 50 MP)');
  });
});

describe('training photo check: bad input gets a clear verdict, never a 500', () => {
  it('judges an EXIF-rotated phone photo as shown', async () => {
    const upright = await portraitPhoto('man');
    // Pixels stored sideways with orientation 8 ("turn a quarter left to show"), as phones save them.
    const { exifRotated } = await awkwardPhotos();
    expect((await sharp(exifRotated).metadata()).width).toBe(800);
    const [asShown, reference] = [await verdict(exifRotated), await verdict(upright)];
    expect(asShown).toMatchObject({ problems: [], faces: 1, width: 640, height: 800 });
    expect(duplicateOf([reference.hash, asShown.hash])).toEqual([null, 1]);
  });

  it('reads CMYK JPEGs and 16-bit PNGs like any photo', async () => {
    const { cmyk, png16 } = await awkwardPhotos();
    expect((await sharp(cmyk).metadata()).space).toBe('cmyk');
    expect((await sharp(png16).metadata()).depth).toBe('ushort');
    for (const file of [cmyk, png16]) expect(await verdict(file)).toMatchObject({ problems: [], faces: 1, width: 512, height: 640 });
  });

  it('says why a damaged file, a HEIC renamed .jpg or a text file cannot be read', async () => {
    const { truncated, heicNamedJpg } = await awkwardPhotos();
    const damaged = await verdict(truncated);
    expect(damaged).toMatchObject({ problems: ['unreadable'], detail: 'The photo is damaged and could not be read.' });
    expect(photoBadge(damaged)).toBe("Can't be read");

    expect((await sharp(heicNamedJpg).metadata()).compression).toBe('hevc');
    const fromIphone = await verdict(heicNamedJpg, { name: 'IMG_0042.jpg' });
    expect(fromIphone).toMatchObject({ problems: ['unreadable'] });
    expect(fromIphone.detail).toMatch(/^HEIC and AVIF photos cannot be used\. Choose JPG, PNG or WEBP/);

    expect(await verdict(Buffer.from('not a photo at all'), { name: 'notes.jpg' })).toMatchObject({
      problems: ['unreadable'],
      detail: 'This file is not a photo.',
    });
  });

  it('checks a 50 MP photo and refuses a larger one without decoding it', async () => {
    const fifty = await sharp({ create: { width: 8660, height: 5773, channels: 3, background: { r: 120, g: 130, b: 140 } } })
      .jpeg()
      .toBuffer();
    expect(await verdict(fifty)).toMatchObject({ problems: ['no-face'], width: 8660, height: 5773 });
    const over = await sharp({ create: { width: 8300, height: 6200, channels: 3, background: { r: 120, g: 130, b: 140 } } })
      .jpeg()
      .toBuffer();
    expect(photoBadge(await verdict(over))).toBe('Too large (max 50 MP)');
  });

  it('refuses a file over 5 MB with 413, an empty form with 400, and answers only signed-in users', async () => {
    // On a connection of its own: the server answers before the body is all sent and closes it.
    const boundary = 'x-check-boundary';
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${ts.url}/api/trainings/check-photo`, {
        method: 'POST',
        agent: false,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: client.cookieHeader(), origin: ts.url },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.jpg"\r\n\r\n`);
      req.end(Buffer.alloc(6 * 1024 * 1024, 1));
    });
    expect(status).toBe(413);
    const empty = await client.fetch('/api/trainings/check-photo', { method: 'POST', body: new FormData() });
    expect(empty.status).toBe(400);
    expect((await check(await portraitPhoto('man'), { as: ts.client() })).status).toBe(401);
  });

  it('is rate-limited per user with a clear message', async () => {
    const { client: busy, userId } = await ts.signUp();
    await ts.rt.db.insert(rateLimits).values({ key: `photo-check:${userId}`, count: 300, windowStart: new Date() });
    const res = await check(await portraitPhoto('man'), { as: busy });
    expect(res.status).toBe(429);
    expect((await res.json()).message).toMatch(/Too many photos checked/);
    expect((await check(await portraitPhoto('man'))).status).toBe(200);
  });
});
