import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import S3rver from 's3rver';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StorageProvider } from '../../server/providers/storage/index.ts';
import { createLocalStorage } from '../../server/providers/storage/local.ts';
import { createS3Storage } from '../../server/providers/storage/s3.ts';
import { loadConfig } from '../../server/config.ts';
import { startTestServer } from '../helpers/server.ts';

const BUCKET = 'likeness-test';
const dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'likeness-storage-'));
  dirs.push(dir);
  return dir;
};

let s3rver: S3rver;
let s3Endpoint = '';

beforeAll(async () => {
  s3rver = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: scratch(),
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  const address = await s3rver.run();
  s3Endpoint = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await s3rver?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const providers: [string, () => StorageProvider][] = [
  ['local', () => createLocalStorage(scratch())],
  [
    's3',
    () =>
      createS3Storage({
        bucket: BUCKET,
        region: 'us-east-1',
        endpoint: s3Endpoint,
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        forcePathStyle: true,
      }),
  ],
];

describe.each(providers)('storage contract (%s)', (_name, make) => {
  let storage: StorageProvider;
  beforeAll(() => {
    storage = make();
  });

  it('writes a stream whole (small and multipart-sized), and nothing when the stream fails', async () => {
    for (const size of [1000, 11 * 1024 * 1024]) {
      const body = Buffer.alloc(size, 3);
      const chunks = function* () {
        for (let at = 0; at < size; at += 256 * 1024) yield body.subarray(at, at + 256 * 1024);
      };
      const put = await storage.putStream(`uploads/u1/stream-${size}.zip`, Readable.from(chunks()), 'application/zip');
      expect(put.size).toBe(size);
      // Buffer.equals: a deep toEqual over 11 MB takes minutes.
      expect((await storage.read(`uploads/u1/stream-${size}.zip`))?.equals(body)).toBe(true);
    }
    for (const failAfter of [2, 30]) {
      const failing = Readable.from(
        (function* () {
          for (let i = 0; i < failAfter; i++) yield Buffer.alloc(256 * 1024, 1);
          throw new Error('client went away');
        })(),
      );
      // (s3rver cannot abort a multipart upload, so past one part the error it reports is that refusal.)
      await expect(storage.putStream(`uploads/u1/broken-${failAfter}.zip`, failing, 'application/zip')).rejects.toThrow();
      expect(await storage.exists(`uploads/u1/broken-${failAfter}.zip`)).toBe(false);
    }
  });

  it('puts, gets with type, size and etag, reads and checks existence', async () => {
    const body = Buffer.from('hello image bytes');
    const put = await storage.put('generations/u1/a.jpeg', body, 'image/jpeg');
    expect(put.size).toBe(body.length);

    const got = await storage.get('generations/u1/a.jpeg');
    expect(got).not.toBeNull();
    expect(got!.contentType).toBe('image/jpeg');
    expect(got!.size).toBe(body.length);
    expect(got!.etag).toMatch(/^[\w-]+$/);
    expect(got!.lastModified.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await text(got!.body)).toBe('hello image bytes');

    expect(await storage.read('generations/u1/a.jpeg')).toEqual(body);
    expect(await storage.exists('generations/u1/a.jpeg')).toBe(true);
  });

  it('writes into a folder that is new, and into one emptied and removed since the last write', async () => {
    await storage.put('generations/fresh-user/deep/a.jpeg', Buffer.from('first'), 'image/jpeg');
    expect(await storage.deleteAll('generations/fresh-user/')).toBe(1);
    await storage.put('generations/fresh-user/deep/b.jpeg', Buffer.from('second'), 'image/jpeg');
    expect(await storage.read('generations/fresh-user/deep/b.jpeg')).toEqual(Buffer.from('second'));
    expect(await storage.exists('generations/fresh-user/deep/a.jpeg')).toBe(false);
  });

  it('keeps the same etag while an object is unchanged and a new one when rewritten', async () => {
    await storage.put('thumbs/384/x.webp', Buffer.from('one'), 'image/webp');
    const first = (await storage.get('thumbs/384/x.webp'))!;
    first.body.destroy();
    const again = (await storage.get('thumbs/384/x.webp'))!;
    again.body.destroy();
    expect(again.etag).toBe(first.etag);
    await new Promise((r) => setTimeout(r, 5));
    await storage.put('thumbs/384/x.webp', Buffer.from('two!'), 'image/webp');
    const changed = (await storage.get('thumbs/384/x.webp'))!;
    changed.body.destroy();
    expect(changed.etag).not.toBe(first.etag);
    expect(changed.contentType).toBe('image/webp');
  });

  it('answers null / false for a missing object and deletes idempotently', async () => {
    expect(await storage.get('generations/none/missing.png')).toBeNull();
    expect(await storage.read('generations/none/missing.png')).toBeNull();
    expect(await storage.exists('generations/none/missing.png')).toBe(false);
    await storage.put('uploads/u2/b.png', Buffer.from('x'), 'image/png');
    await storage.delete('uploads/u2/b.png');
    await storage.delete('uploads/u2/b.png');
    expect(await storage.exists('uploads/u2/b.png')).toBe(false);
  });

  it('lists the objects under a prefix with their modification time', async () => {
    const own = make();
    const before = Date.now() - 60_000;
    const keys = Array.from({ length: 3 }, (_, i) => `listing/u${i % 2}/f${i}.jpeg`);
    for (const key of [...keys, 'listing-other/x.jpeg', 'elsewhere/listing/y.jpeg']) await own.put(key, Buffer.from(key), 'image/jpeg');
    const listed = [];
    for await (const object of own.list('listing/')) listed.push(object);
    expect(listed.map((o) => o.key).sort()).toEqual([...keys].sort());
    for (const o of listed) expect(o.lastModified.getTime()).toBeGreaterThan(before);
    const none = [];
    for await (const object of own.list('nothing-here/')) none.push(object);
    expect(none).toEqual([]);
  });

  it('refuses unsafe keys', async () => {
    await expect(storage.put('../escape.png', Buffer.from('x'), 'image/png')).rejects.toThrow(/unsafe/i);
    await expect(storage.get('/abs/key.png')).rejects.toThrow(/unsafe/i);
  });

  it('deletes everything under a folder, counting it, and nothing beside it', async () => {
    for (const key of ['loras/u7/a.json', 'loras/u7/deep/b.safetensors', 'loras/u70/c.json', 'loras/u7.json'])
      await storage.put(key, Buffer.from(key), 'application/json');
    expect(await storage.deleteAll('loras/u7/')).toBe(2);
    expect(await storage.exists('loras/u7/a.json')).toBe(false);
    expect(await storage.exists('loras/u7/deep/b.safetensors')).toBe(false);
    expect(await storage.exists('loras/u70/c.json')).toBe(true);
    expect(await storage.exists('loras/u7.json')).toBe(true);
    expect(await storage.deleteAll('loras/u7/')).toBe(0);
    expect(await storage.deleteAll('never/was/')).toBe(0);
    await expect(storage.deleteAll('loras/u70')).rejects.toThrow(/unsafe/i);
    await expect(storage.deleteAll('../')).rejects.toThrow(/unsafe/i);
  });
});

describe('local storage: spare files', () => {
  /** The spares waiting in a root (the folder's dot file is the empty file they are copied from). */
  const spareNames = (root: string) => readdirSync(join(root, '.spare')).filter((name) => !name.startsWith('.'));
  const spareInodes = (root: string) => new Set(spareNames(root).map((name) => statSync(join(root, '.spare', name)).ino));
  const sparesReady = (root: string) => vi.waitFor(() => expect(spareNames(root)).toHaveLength(16), { timeout: 5000 });

  it('writes an object into a file made ahead of need, and makes more', async () => {
    const root = scratch();
    const storage = createLocalStorage(root);
    await sparesReady(root);
    const spares = spareInodes(root);
    const body = Buffer.alloc(200_000, 5);
    await storage.put('generations/u1/a.jpeg', body, 'image/jpeg');
    await storage.put('generations/u1/b.jpeg', Buffer.from('second'), 'image/jpeg');
    // The stored files are spares moved into place, whole: no file was created while the request waited.
    expect(spares.has(statSync(join(root, 'generations/u1/a.jpeg')).ino)).toBe(true);
    expect(spares.has(statSync(join(root, 'generations/u1/b.jpeg')).ino)).toBe(true);
    expect((await storage.read('generations/u1/a.jpeg'))?.equals(body)).toBe(true);
    expect((await storage.read('generations/u1/b.jpeg'))?.toString()).toBe('second');
    expect(readdirSync(join(root, 'generations/u1')).sort()).toEqual(['a.jpeg', 'b.jpeg']);
    // Taking them below half leaves the pool to refill from the thread pool.
    for (let i = 0; i < 10; i++) await storage.put(`generations/u1/c${i}.jpeg`, Buffer.from(`c${i}`), 'image/jpeg');
    await sparesReady(root);
    // Spares are no objects: a listing of the root does not show them.
    const keys: string[] = [];
    for await (const object of storage.list('generations/')) keys.push(object.key);
    expect(keys).toHaveLength(12);
  });

  it('keeps up with puts that come once every turn of a busy event loop', async () => {
    const root = scratch();
    const storage = createLocalStorage(root);
    await sparesReady(root);
    let fromSpares = 0;
    for (let i = 0; i < 100; i++) {
      // A server under load: each turn of the loop spends its time on requests, then takes the thread pool's results.
      const busyUntil = performance.now() + 2;
      while (performance.now() < busyUntil);
      const waiting = spareInodes(root);
      await storage.put(`generations/u5/${i}.jpeg`, Buffer.from(String(i)), 'image/jpeg');
      if (waiting.has(statSync(join(root, `generations/u5/${i}.jpeg`)).ino)) fromSpares++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Made one after another, the spares ran out after the first 16 or so and a put in two created its own file.
    expect(fromSpares).toBeGreaterThanOrEqual(90);
  });

  it('still stores whole when the spares were taken by another process, and in a folder that is new', async () => {
    const root = scratch();
    const storage = createLocalStorage(root);
    await sparesReady(root);
    for (const name of readdirSync(join(root, '.spare'))) rmSync(join(root, '.spare', name));
    await storage.put('uploads/u2/a.zip', Buffer.from('taken'), 'application/zip');
    expect((await storage.read('uploads/u2/a.zip'))?.toString()).toBe('taken');
    await storage.put('uploads/u3/new-folder.zip', Buffer.from('new'), 'application/zip');
    expect((await storage.read('uploads/u3/new-folder.zip'))?.toString()).toBe('new');
    expect(readdirSync(join(root, 'uploads/u3'))).toEqual(['new-folder.zip']);
    // The empty file the spares are copied from went with them: later puts' refills make it again.
    await vi.waitFor(
      async () => {
        await storage.put('uploads/u2/again.zip', Buffer.from('again'), 'application/zip');
        expect(spareNames(root).length).toBeGreaterThanOrEqual(8);
      },
      { timeout: 5000 },
    );
  });

  it('uses the spares a stopped process left', async () => {
    const root = scratch();
    mkdirSync(join(root, '.spare'));
    for (let i = 0; i < 3; i++) writeFileSync(join(root, '.spare', `left-${i}`), '');
    const left = spareInodes(root);
    const storage = createLocalStorage(root);
    await sparesReady(root);
    const used = [];
    for (let i = 0; i < 16; i++) {
      await storage.put(`generations/u4/${i}.jpeg`, Buffer.from(String(i)), 'image/jpeg');
      used.push(statSync(join(root, `generations/u4/${i}.jpeg`)).ino);
    }
    expect(used.filter((ino) => left.has(ino))).toHaveLength(3);
  });
});

describe('storage configuration', () => {
  it('reads the S3 variables and requires both halves of a key pair', () => {
    const cfg = loadConfig({ S3_BUCKET: 'b', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_FORCE_PATH_STYLE: 'true' });
    expect(cfg).toMatchObject({ S3_BUCKET: 'b', S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: true, INFERENCE_CONCURRENCY: 4 });
    expect(() => loadConfig({ S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k' })).toThrow(/S3_SECRET_ACCESS_KEY/);
  });
});

describe('media delivery from S3', () => {
  it('serves, revalidates and thumbnails objects kept in the bucket', async () => {
    const ts = await startTestServer({
      env: {
        S3_BUCKET: BUCKET,
        S3_ENDPOINT: s3Endpoint,
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
        S3_FORCE_PATH_STYLE: 'true',
      },
    });
    try {
      expect(ts.rt.storage.name).toBe('s3');
      const key = `explore/${Date.now()}.png`;
      const png = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#c04020' } })
        .png()
        .toBuffer();
      await ts.rt.storage.put(key, png, 'image/png');

      const res = await fetch(`${ts.url}/media/${key}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await res.arrayBuffer())).toEqual(png);
      const etag = res.headers.get('etag')!;
      expect((await fetch(`${ts.url}/media/${key}`, { headers: { 'if-none-match': etag } })).status).toBe(304);

      const thumb = await fetch(`${ts.url}/media/thumbs/384/${key}`);
      expect(thumb.headers.get('content-type')).toBe('image/webp');
      expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).width).toBe(384);
      expect(await ts.rt.storage.exists(`thumbs/384/${key}.webp`)).toBe(true);
    } finally {
      await ts.stop();
    }
  });
});
