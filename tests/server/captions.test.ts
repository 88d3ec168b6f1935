import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { eq } from 'drizzle-orm';
import { uploads } from '../../server/db/schema.ts';
import { purgeExpiredUploads } from '../../server/services/uploads.service.ts';
import { createFalCaptioner } from '../../server/providers/inference/fal-captioner.ts';
import { createFalCaptionFake, type FalCaptionFake } from '../fakes/fal-captions.ts';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.ts';
import { samplePhoto } from '../helpers/photos.ts';
import { startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';

function form(bytes: Buffer | string, fileName: string, type = 'application/octet-stream'): FormData {
  const fd = new FormData();
  fd.append('file', new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], { type }), fileName);
  return fd;
}

async function upload(client: TestClient, bytes: Buffer | string, fileName = 'photo.jpg') {
  return client.fetch('/api/upload', { method: 'POST', body: form(bytes, fileName, 'image/jpeg') });
}

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
function streamUpload(ts: TestServer, client: TestClient, head: Buffer, total: number): Promise<{ status: number; written: number }> {
  const boundary = 'x-test-boundary';
  const url = new URL(ts.url);
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
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
        answered = true;
        res.resume();
        resolve({ status: res.statusCode ?? 0, written });
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
        written += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end(`\r\n--${boundary}--\r\n`);
    };
    pump();
  });
}

const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

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
    const res = await client.fetch('/api/upload', { method: 'POST', body: form('just some text, not a picture', 'holiday.png', 'image/png') });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'unsupported_type', message: 'Invalid file type (JPG, PNG, WEBP only).' });
    expect(await ts.rt.db.select().from(uploads).where(eq(uploads.userId, userId))).toHaveLength(0);
  });

  it('accepts the training archive as a zip, kind training-archive', async () => {
    const { client } = await ts.signUp();
    const zipHead = Buffer.from([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0, 8, 0, 0, 0]);
    const res = await client.fetch('/api/upload', { method: 'POST', body: form(Buffer.concat([zipHead, Buffer.alloc(6 * 1024 * 1024)]), 'training_images.zip', 'application/zip') });
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

  it('purges expired originals from storage and marks them deleted', async () => {
    const { client } = await ts.signUp({ credits: 2 });
    const url = await uploadPhoto(client);
    const [row] = await ts.rt.db.select().from(uploads).where(eq(uploads.url, url));
    await ts.rt.db.update(uploads).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(uploads.id, row.id));
    expect(await purgeExpiredUploads(ts.rt)).toBeGreaterThanOrEqual(1);
    expect(await ts.rt.storage.exists(row.storageKey)).toBe(false);
    const [after] = await ts.rt.db.select().from(uploads).where(eq(uploads.id, row.id));
    expect(after.deletedAt).toBeInstanceOf(Date);
    // An expired upload is no longer the caller's to caption.
    expect((await client.post('/api/image/fast-caption', { image_url: url })).status).toBe(403);
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

    expect(fal.submitted.map((s) => s.endpoint)).toEqual(['fal-ai/florence-2-large/caption', 'fal-ai/florence-2-large/more-detailed-caption']);
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
    const refunds = await ts.rt.db.query.creditLedger.findMany({ where: (t, { and, eq }) => and(eq(t.userId, userId), eq(t.kind, 'refund')) });
    expect(refunds).toHaveLength(1);
    expect(refunds[0].delta).toBe(2);
  });
});
