import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { eq, sql } from 'drizzle-orm';
import { generationJobs, uploads } from '../../server/db/schema.ts';
import { refundAbandonedJobs } from '../../server/services/paid-jobs.ts';
import { keyFromMediaUrl } from '../../server/providers/storage/index.ts';
import { createFalCaptioner } from '../../server/providers/inference/fal-captioner.ts';
import { createFalCaptionFake, type FalCaptionFake } from '../fakes/fal-captions.ts';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.ts';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { LIMITS } from '@common/product.ts';
import { pngHeader, samplePhoto } from '../helpers/photos.ts';
import { sharedTestVision, startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';
import { postUpload } from '../helpers/uploads.ts';
import { waitFor } from '../helpers/wait.ts';
import { withExplicitVerdict } from '../helpers/vision.ts';

const upload = (client: TestClient, bytes: Buffer | string, fileName = 'photo.jpg') => postUpload(client, bytes, fileName, 'image/jpeg');

async function uploadPhoto(client: TestClient): Promise<string> {
  const res = await upload(client, await samplePhoto('smilingWoman'));
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(body).toEqual({ success: true, url: expect.stringMatching(/^\/media\/uploads\/[0-9a-f-]+\/[0-9a-f-]+\.jpeg$/) });
  return body.url;
}

/**
 * Streams a multipart upload of `total` bytes over a raw socket, stopping as soon as the server answers.
 * Returns the status and how many bytes had been written by then.
 */
function streamUpload(
  ts: TestServer,
  client: TestClient,
  head: Buffer,
  total: number,
  opts: { pauseAfterBytes?: number } = {},
): Promise<{ status: number; written: number; finish: () => Promise<number> }> {
  const boundary = 'x-test-boundary';
  const url = new URL(ts.url);
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    let finishing: ((status: number) => void) | undefined;
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/api/upload',
        method: 'POST',
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'transfer-encoding': 'chunked',
          cookie: client.cookieHeader(),
          origin: ts.url,
        },
      },
      (res) => {
        if (finishing) return void res.on('end', () => finishing!(res.statusCode ?? 0)).resume();
        answered = true;
        res.resume();
        resolve({ status: res.statusCode ?? 0, written, finish: async () => res.statusCode ?? 0 });
        req.destroy();
      },
    );
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`);
    req.write(head);
    written += head.length;
    const chunk = Buffer.alloc(64 * 1024, 7);
    const pump = () => {
      while (!answered && written < total) {
        if (opts.pauseAfterBytes !== undefined && written >= opts.pauseAfterBytes) {
          // Hold the upload open until the caller says finish; then it completes normally.
          opts.pauseAfterBytes = undefined;
          return resolve({
            status: 0,
            written,
            finish: () =>
              new Promise<number>((done) => {
                finishing = done;
                answered = true;
                req.end(`\r\n--${boundary}--\r\n`);
              }),
          });
        }
        written += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end(`\r\n--${boundary}--\r\n`);
    };
    pump();
  });
}

const PNG_HEAD = pngHeader(2000, 2000);

describe.each(testDatabases())('uploads and captions with the builtin analyser (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database });
  });
  afterAll(() => ts?.stop());

  it('stores an upload under the caller, typed from its bytes, kept 30 days', async () => {
    const { client, userId } = await ts.signUp();
    const photo = await samplePhoto('smilingWoman');
    // Named .png, but the bytes are a JPEG: the bytes win.
    const res = await upload(client, photo, 'named-wrong.png');
    expect(res.status).toBe(200);
    const { url } = await res.json();
    const [row] = await ts.rt.db.select().from(uploads).where(eq(uploads.url, url));
    expect(row).toMatchObject({ userId, contentType: 'image/jpeg', sizeBytes: photo.length, kind: 'image' });
    expect(row.storageKey).toMatch(new RegExp(`^uploads/${userId}/[0-9a-f-]+\\.jpeg$`));
    const days = (row.expiresAt.getTime() - row.createdAt.getTime()) / 86_400_000;
    expect(days).toBeCloseTo(30, 1);
    expect(await ts.rt.storage.read(row.storageKey)).toEqual(photo);
  });

  it('refuses anonymous uploads', async () => {
    const res = await upload(ts.client(), await samplePhoto('man'));
    expect(res.status).toBe(401);
  });

  it('refuses a text file named .png with 400', async () => {
    const { client, userId } = await ts.signUp();
    const res = await postUpload(client, 'just some text, not a picture', 'holiday.png', 'image/png');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'unsupported_type', message: 'Invalid file type (JPG, PNG, WEBP only).' });
    expect(await ts.rt.db.select().from(uploads).where(eq(uploads.userId, userId))).toHaveLength(0);
  });

  /** Everything stored for a user (and any temp file left beside it). */
  const filesOf = (userId: string) => readdir(join(ts.dataDir, 'files', 'uploads', userId)).catch(() => [] as string[]);

  it('refuses an image whose header breaks the pixel budget or cannot be read, before storing anything', async () => {
    const { client, userId } = await ts.signUp();
    const photo = await samplePhoto('man');
    const cases: [Buffer, string][] = [
      // A 60-byte PNG whose header claims 30000×30000 (900 megapixels).
      [Buffer.concat([pngHeader(30_000, 30_000), Buffer.alloc(27)]), 'File is too large (max 50 megapixels).'],
      [Buffer.concat([pngHeader(7072, 7072), Buffer.alloc(100)]), 'File is too large (max 50 megapixels).'],
      [Buffer.concat([pngHeader(0, 10), Buffer.alloc(100)]), 'Invalid file type (JPG, PNG, WEBP only).'],
      // A JPEG start followed by rubbish, and a JPEG cut off before its frame header.
      [Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(500, 0x41)]), 'Invalid file type (JPG, PNG, WEBP only).'],
      [photo.subarray(0, 20), 'Invalid file type (JPG, PNG, WEBP only).'],
    ];
    for (const [bytes, message] of cases) {
      const res = await upload(client, bytes, 'photo.png');
      expect(res.status).toBe(400);
      expect((await res.json()).message).toBe(message);
    }
    expect(await ts.rt.db.select().from(uploads).where(eq(uploads.userId, userId))).toHaveLength(0);
    expect(await filesOf(userId)).toEqual([]);
    // Within the budget, the same route takes it.
    expect((await upload(client, Buffer.concat([pngHeader(7071, 7071), Buffer.alloc(100)]), 'big.png')).status).toBe(200);
  });

  it('bounds uploads in flight per user with a clear 429', async () => {
    const { client, userId } = await ts.signUp();
    // Three uploads that keep streaming until the test is done with them.
    const slow = Array.from({ length: 3 }, () => streamUpload(ts, client, PNG_HEAD, 4 * 1024 * 1024, { pauseAfterBytes: 256 * 1024 }));
    await new Promise((r) => setTimeout(r, 300));
    const fourth = await upload(client, await samplePhoto('man'));
    expect(fourth.status).toBe(429);
    expect((await fourth.json()).message).toBe('You have too many uploads in progress. Please wait for them to finish, then try again.');
    // Another user is not affected.
    expect((await upload((await ts.signUp()).client, await samplePhoto('man'))).status).toBe(200);
    for (const s of slow) expect(await (await s).finish()).toBe(200);
    expect(await ts.rt.db.select().from(uploads).where(eq(uploads.userId, userId))).toHaveLength(3);
  });

  /** An earlier archive that leaves the user `bytes` of their quota. */
  const leaveRoom = (userId: string, bytes: number) =>
    ts.rt.db.insert(uploads).values({
      userId,
      storageKey: `uploads/${userId}/earlier.zip`,
      url: `/media/uploads/${userId}/${randomUUID()}.zip`,
      contentType: 'application/zip',
      sizeBytes: LIMITS.uploadQuotaBytes - bytes,
      kind: 'training-archive',
      expiresAt: new Date(Date.now() + 86_400_000),
    });

  it('refuses uploads past the account’s storage quota, and the part that would overflow it', async () => {
    const { client, userId } = await ts.signUp();
    const photo = await samplePhoto('man');
    await leaveRoom(userId, photo.length - 10);
    const over = await upload(client, photo);
    expect(over.status).toBe(413);
    expect((await over.json()).message).toMatch(/^Your uploads have reached this account's 1 GB storage limit\./);
    expect(await filesOf(userId)).toEqual([]);
    expect((await upload(client, photo.subarray(0, photo.length - 100))).status).toBe(200);
    expect((await upload(client, photo)).status).toBe(413);
  });

  it('holds the quota under parallel uploads: they are counted one after another as each is admitted', async () => {
    const { client, userId } = await ts.signUp();
    const photo = await samplePhoto('man');
    // Room for one and a half photos: every one of three parallel uploads fits what was free when it began.
    await leaveRoom(userId, Math.floor(photo.length * 1.5));
    const answers = await Promise.all([1, 2, 3].map(() => upload(client, photo)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 413, 413]);
    const [{ bytes }] = await ts.rt.db
      .select({ bytes: sql<string>`sum(${uploads.sizeBytes})` })
      .from(uploads)
      .where(eq(uploads.userId, userId));
    expect(Number(bytes)).toBeLessThanOrEqual(LIMITS.uploadQuotaBytes);
    // The refused ones left no file behind.
    expect(await filesOf(userId)).toHaveLength(1);
  });

  it('answers 422 to a caption of an image whose pixels are broken, and charges nothing', async () => {
    const { client, userId } = await ts.signUp({ credits: 5 });
    const photo = await samplePhoto('smilingWoman', 600);
    // The header is whole, so the uploader takes it; the picture data is cut off half way.
    const res = await upload(client, photo.subarray(0, Math.floor(photo.length / 2)));
    expect(res.status).toBe(200);
    const { url } = await res.json();
    for (const path of ['/api/image/fast-caption', '/api/image/detail-caption']) {
      const caption = await client.post(path, { image_url: url });
      expect(caption.status).toBe(422);
      expect(await caption.json()).toMatchObject({ code: 'unreadable_image' });
    }
    expect(await ts.rt.credits.balance(userId)).toBe(5);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(5);
  });

  it('accepts the training archive as a zip, kind training-archive', async () => {
    const { client } = await ts.signUp();
    const zipHead = Buffer.from([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0, 8, 0, 0, 0]);
    const res = await postUpload(client, Buffer.concat([zipHead, Buffer.alloc(6 * 1024 * 1024)]), 'training_images.zip', 'application/zip');
    expect(res.status).toBe(200);
    const { url } = await res.json();
    const [row] = await ts.rt.db.select().from(uploads).where(eq(uploads.url, url));
    expect(row).toMatchObject({ kind: 'training-archive', contentType: 'application/zip' });
  });

  it('answers 413 to an oversize image while it is still streaming, without reading it all', async () => {
    const { client, userId } = await ts.signUp();
    const total = 40 * 1024 * 1024;
    const { status, written } = await streamUpload(ts, client, PNG_HEAD, total);
    expect(status).toBe(413);
    // The answer came while the client was still sending: far less than the body had been written.
    expect(written).toBeGreaterThan(5 * 1024 * 1024);
    expect(written).toBeLessThan(total / 2);
    expect(await ts.rt.db.select().from(uploads).where(eq(uploads.userId, userId))).toHaveLength(0);
  });

  it('answers 403 to a caption of an image that is not one of the caller own uploads', async () => {
    const owner = await ts.signUp({ credits: 5 });
    const url = await uploadPhoto(owner.client);
    const other = await ts.signUp({ credits: 5 });
    for (const image_url of [url, `${ts.url}${url}`, 'https://example.com/cat.jpg', '/media/generations/x/y.jpeg']) {
      const res = await other.client.post('/api/image/fast-caption', { image_url });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ code: 'not_your_upload' });
    }
    expect(await ts.rt.credits.balance(other.userId)).toBe(5);
  });

  it('charges 1 credit for Fast and 2 for Detailed, and describes the photo', async () => {
    const { client, userId } = await ts.signUp({ credits: 5 });
    const url = await uploadPhoto(client);
    const fast = await client.post('/api/image/fast-caption', { image_url: url });
    expect(fast.status).toBe(200);
    const { results: fastText } = await fast.json();
    expect(fastText).toMatch(/close-up portrait photo of a smiling woman/);
    expect(await ts.rt.credits.balance(userId)).toBe(4);

    // An absolute URL of the same upload is the same upload.
    const detailed = await client.post('/api/image/detail-caption', { image_url: `${ts.url}${url}` });
    expect(detailed.status).toBe(200);
    const { results: detailedText } = await detailed.json();
    expect(detailedText.split('. ').length).toBeGreaterThanOrEqual(4);
    expect(await ts.rt.credits.balance(userId)).toBe(2);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(2);
  });

  it('answers 402 when credits are short and takes nothing', async () => {
    const { client, userId } = await ts.signUp({ credits: 1 });
    const url = await uploadPhoto(client);
    const res = await client.post('/api/image/detail-caption', { image_url: url });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ code: 'insufficient_credits' });
    expect(await ts.rt.credits.balance(userId)).toBe(1);
  });
});

describe('prompt extraction refuses NSFW images (classifier verdict injected)', () => {
  it('answers 422 before charging, deletes the image, and still captions a safe one', async () => {
    const flagged = await samplePhoto('man');
    const ts = await startTestServer({
      runtime: { vision: withExplicitVerdict(sharedTestVision(), (image) => Buffer.compare(Buffer.from(image), flagged) === 0) },
    });
    try {
      const { client, userId } = await ts.signUp({ credits: 2 });
      const res = await upload(client, flagged);
      const { url } = await res.json();
      const refused = await client.post('/api/image/detail-caption', { image_url: url });
      expect(refused.status).toBe(422);
      expect(await refused.json()).toEqual({
        code: 'image_not_allowed',
        message: 'This image is not allowed: NSFW content is prohibited. Nothing was charged.',
        requestId: refused.headers.get('x-request-id'),
      });
      expect(await ts.rt.credits.ledgerSum(userId)).toBe(2);
      expect(await ts.rt.db.select().from(uploads).where(eq(uploads.url, url))).toEqual([]);
      expect(await ts.rt.storage.exists(keyFromMediaUrl(url)!)).toBe(false);
      expect((await client.get(url)).status).toBe(404);

      const safe = await client.post('/api/image/detail-caption', { image_url: await uploadPhoto(client) });
      expect(safe.status).toBe(200);
      expect(await ts.rt.credits.ledgerSum(userId)).toBe(0);
    } finally {
      await ts.stop();
    }
  });
});

describe('captions through fal.ai (fake fal on loopback)', () => {
  let fal: FalCaptionFake;
  let fakeFal: FakeFal;
  let ts: TestServer;
  beforeAll(async () => {
    fal = createFalCaptionFake({ key: 'fal-test-key' });
    fakeFal = await startFakeFal({ key: 'fal-test-key', handlers: [fal.handle] });
    ts = await startTestServer({
      runtime: { captioner: createFalCaptioner({ credentials: 'fal-test-key', fetch: fakeFal.fetch, pollIntervalMs: 10 }) },
    });
  });
  afterAll(async () => {
    await ts?.stop();
    await fakeFal?.stop();
  });

  it('uploads the bytes to fal storage, then runs Florence-2 caption and more-detailed-caption', async () => {
    const { client, userId } = await ts.signUp({ credits: 3 });
    const url = await uploadPhoto(client);
    const photo = await samplePhoto('smilingWoman');

    const fast = await client.post('/api/image/fast-caption', { image_url: url });
    expect(fast.status).toBe(200);
    expect((await fast.json()).results).toBe(`A photo (${photo.length} bytes of image/jpeg).`);
    const detailed = await client.post('/api/image/detail-caption', { image_url: url });
    expect(detailed.status).toBe(200);
    expect((await detailed.json()).results).toMatch(/^The image shows a detailed scene/);

    expect(fal.submitted.map((s) => s.endpoint)).toEqual([
      'fal-ai/florence-2-large/caption',
      'fal-ai/florence-2-large/more-detailed-caption',
    ]);
    const sent = fal.uploads.get((fal.submitted[0].input as { image_url: string }).image_url);
    expect(sent?.bytes).toEqual(photo);
    expect(await ts.rt.credits.balance(userId)).toBe(0);
  });

  it('refunds exactly once when the model fails', async () => {
    const { client, userId } = await ts.signUp({ credits: 2 });
    const url = await uploadPhoto(client);
    fal.failNext(500, 'model crashed');
    const res = await client.post('/api/image/detail-caption', { image_url: url });
    expect(res.status).toBe(502);
    expect((await res.json()).message).toMatch(/credits were refunded/);
    expect(await ts.rt.credits.balance(userId)).toBe(2);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(2);
    const refunds = await ts.rt.db.query.creditLedger.findMany({
      where: (t, { and, eq }) => and(eq(t.userId, userId), eq(t.kind, 'refund')),
    });
    expect(refunds).toHaveLength(1);
    expect(refunds[0].delta).toBe(2);
    expect((await ts.rt.db.select().from(generationJobs).where(eq(generationJobs.userId, userId))).map((j) => [j.kind, j.status])).toEqual([
      ['caption', 'FAILED'],
    ]);
  });
});

describe('an extraction whose instance dies', () => {
  let ts: TestServer;
  let release: (caption: string) => void = () => {};
  beforeAll(async () => {
    ts = await startTestServer({
      runtime: { captioner: { name: 'builtin', caption: () => new Promise<string>((resolve) => (release = resolve)) } },
    });
  });
  afterAll(() => ts?.stop());

  it('is refunded once its lease runs out, once, and a late answer changes nothing', async () => {
    const { client, userId } = await ts.signUp({ credits: 2 });
    const url = await uploadPhoto(client);
    const pending = client.post('/api/image/detail-caption', { image_url: url });
    const job = await waitFor(
      'the caption job',
      async () => (await ts.rt.db.select().from(generationJobs).where(eq(generationJobs.userId, userId)))[0],
      10_000,
    );
    expect(job).toMatchObject({ kind: 'caption', cost: 2, status: 'PENDING' });
    expect(await ts.rt.credits.balance(userId)).toBe(0);

    // The instance running it is taken for dead: its lease runs out, and a sweep refunds it.
    await ts.rt.db
      .update(generationJobs)
      .set({ leaseExpiresAt: sql`now() - interval '1 second'` })
      .where(eq(generationJobs.id, job.id));
    expect(await refundAbandonedJobs(ts.rt)).toBe(1);
    expect(await refundAbandonedJobs(ts.rt)).toBe(0);
    expect(await ts.rt.credits.balance(userId)).toBe(2);

    release('a caption that comes too late');
    const res = await pending;
    expect(res.status).toBe(504);
    expect((await res.json()).message).toMatch(/credits were refunded/);
    expect(await ts.rt.credits.balance(userId)).toBe(2);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(2);
  });
});
