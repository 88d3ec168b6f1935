import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RealtimeEvent } from '@common/events.ts';
import { exploreGallery, generationJobs, generations, loraTrainings } from '../../server/db/schema.ts';
import { ProviderError, type GenerateInput, type GenerateOutput, type ImageGenerator } from '../../server/providers/inference/index.ts';
import { refundAbandonedJobs } from '../../server/services/paid-jobs.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import { startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';

type Mode = 'ok' | 'fail' | 'timeout' | 'nsfw' | 'url' | 'url-broken';

/**
 * A generator that paints a noisy image of the requested size, and can be told to fail, time out, flag
 * NSFW, or answer with a link (served by `imageHost`) the way a hosted provider does.
 */
function createTestGenerator() {
  const state = {
    mode: 'ok' as Mode,
    delayMs: 0,
    calls: [] as GenerateInput[],
    inFlight: 0,
    maxInFlight: 0,
    imageHost: '',
  };
  const generator: ImageGenerator = {
    name: 'builtin',
    async generate(input): Promise<GenerateOutput> {
      state.calls.push(input);
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      try {
        if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
        if (state.mode === 'fail') throw new ProviderError('upstream exploded', 'failed', 500);
        if (state.mode === 'timeout') throw new ProviderError('deadline passed', 'timeout');
        const { width, height } = input.imageSize;
        const contentType = input.outputFormat === 'png' ? 'image/png' : 'image/jpeg';
        if (state.mode === 'url' || state.mode === 'url-broken') {
          const path = state.mode === 'url' ? `/img/${width}x${height}.${input.outputFormat}` : '/missing';
          return { images: [{ url: state.imageHost + path, width, height, contentType, nsfw: false }], seed: input.seed };
        }
        return {
          images: [{ data: await paint(width, height, input.outputFormat), width, height, contentType, nsfw: state.mode === 'nsfw' }],
          seed: input.seed,
          providerRequestId: `req-${state.calls.length}`,
        };
      } finally {
        state.inFlight--;
      }
    },
  };
  return { generator, state };
}

function paint(width: number, height: number, format: 'jpeg' | 'png') {
  const img = sharp({ create: { width, height, channels: 3, background: '#4a7bb0', noise: { type: 'gaussian', mean: 120, sigma: 40 } } });
  return (format === 'png' ? img.png() : img.jpeg({ quality: 85 })).toBuffer();
}

const request = (overrides: Record<string, unknown> = {}) =>
  generationRequestBody({ image_size: { width: 1024, height: 576 }, ...overrides });

describe.each(testDatabases())('generate image (%s)', (database) => {
  let ts: TestServer;
  let imageHost: Server;
  const { generator, state } = createTestGenerator();

  beforeAll(async () => {
    imageHost = createServer((req, res) => {
      const m = /^\/img\/(\d+)x(\d+)\.(jpeg|png)$/.exec(req.url ?? '');
      if (!m) return void res.writeHead(404).end();
      void paint(Number(m[1]), Number(m[2]), m[3] as 'jpeg' | 'png').then((data) => {
        res.writeHead(200, { 'content-type': `image/${m[3]}` }).end(data);
      });
    });
    await new Promise<void>((r) => imageHost.listen(0, '127.0.0.1', r));
    state.imageHost = `http://127.0.0.1:${(imageHost.address() as AddressInfo).port}`;
    ts = await startTestServer({ database, runtime: { generator }, env: { INFERENCE_CONCURRENCY: '2' } });
  });
  afterAll(async () => {
    await ts?.stop();
    imageHost?.close();
  });
  beforeEach(() => {
    Object.assign(state, { mode: 'ok', delayMs: 0, calls: [], inFlight: 0, maxInFlight: 0 });
  });

  async function expectBalance(userId: string, credits: number) {
    expect(await ts.rt.credits.balance(userId)).toBe(credits);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(credits);
  }

  async function jobsOf(userId: string) {
    return ts.rt.db.select().from(generationJobs).where(eq(generationJobs.userId, userId));
  }

  async function completedTraining(userId: string, status: 'COMPLETED' | 'IN_PROGRESS' = 'COMPLETED') {
    const path = `/media/loras/${userId}/${randomUUID()}.safetensors`;
    const [row] = await ts.rt.db
      .insert(loraTrainings)
      .values({ userId, characterName: 'Mara', triggerWord: 'mara', status, loraFileUrl: path })
      .returning();
    return row;
  }

  it('generates, debits 10, stores the image, saves the generation and pushes it', async () => {
    const { client, userId } = await ts.signUp({ credits: 30 });
    const events: RealtimeEvent[] = [];
    const unsubscribe = ts.rt.events.subscribe(userId, { onEvent: (e) => events.push(e as RealtimeEvent), onDisconnect() {} });

    const res = await client.post('/api/image/generate-image', request({ seed: 42 }));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      prompt: 'a lighthouse on a cliff at dusk',
      seed: 42,
      images: [{ width: 1024, height: 576, content_type: 'image/jpeg' }],
    });
    expect(body.images).toHaveLength(1);
    expect(body.images[0].url).toMatch(new RegExp(`^/media/generations/${userId}/[0-9a-f-]{36}\\.jpeg$`));
    expect(body.generation).toMatchObject({
      id: expect.any(String),
      result: { images: body.images, prompt: body.prompt, style: null },
      params: { seed: '42', image_size: { width: 1024, height: 576 }, num_inference_steps: 28, guidance_scale: 3.5, loras: [] },
      isFavorited: false,
      lora_trainings: null,
    });
    expect(state.calls[0]).toMatchObject({ seed: 42, imageSize: { width: 1024, height: 576 }, outputFormat: 'jpeg' });

    const [row] = await ts.rt.db.select().from(generations).where(eq(generations.id, body.generation.id));
    expect(row).toMatchObject({ userId, status: 'ACTIVE', seed: '42', imageUrl: body.images[0].url, outputFormat: 'jpeg' });
    expect((await jobsOf(userId)).map((j) => [j.status, j.generationId])).toEqual([['SUCCEEDED', row.id]]);
    await expectBalance(userId, 20);

    const image = await client.get(body.images[0].url);
    expect(image.headers.get('content-type')).toBe('image/jpeg');
    expect((await sharp(Buffer.from(await image.arrayBuffer())).metadata()).width).toBe(1024);

    await new Promise((r) => setTimeout(r, 50));
    unsubscribe();
    expect(events).toContainEqual({ type: 'generation', action: 'created', id: row.id });
    expect(events).toContainEqual({ type: 'credits', credits: 20 });
  });

  it('draws a random seed below 2147483647 when none is given, and honours png', async () => {
    const { client } = await ts.signUp({ credits: 10 });
    const res = await client.post('/api/image/generate-image', request({ seed: undefined, output_format: 'png' }));
    const body = await res.json();
    expect(Number.isInteger(body.seed) && body.seed >= 0 && body.seed < 2147483647).toBe(true);
    expect(body.images[0]).toMatchObject({ content_type: 'image/png' });
    expect(body.images[0].url).toMatch(/\.png$/);
  });

  it('copies a provider-hosted image into storage', async () => {
    const { client, userId } = await ts.signUp({ credits: 10 });
    state.mode = 'url';
    const res = await client.post('/api/image/generate-image', request());
    expect(res.status).toBe(200);
    const { images } = await res.json();
    expect(images[0].url).toMatch(/^\/media\/generations\//);
    expect(await ts.rt.storage.exists(images[0].url.slice('/media/'.length))).toBe(true);
    await expectBalance(userId, 0);
  });

  it.each([
    ['prompt', { prompt: '   ' }],
    ['prompt', { prompt: undefined }],
    ['prompt', { prompt: 'x'.repeat(2001) }],
    ['image_size.width', { image_size: { width: 500, height: 1024 } }],
    ['image_size.height', { image_size: { width: 1024, height: 2056 } }],
    ['image_size.width', { image_size: { width: 1025, height: 1024 } }],
    ['image_size', { image_size: undefined }],
    ['loras.0.scale', { loras: [{ path: '/media/x', scale: 1.6 }] }],
    [
      'loras',
      {
        loras: [
          { path: '/media/x', scale: 1 },
          { path: '/media/y', scale: 1 },
        ],
      },
    ],
    ['seed', { seed: 2147483647 }],
    ['seed', { seed: -3 }],
    ['seed', { seed: '12' }],
    ['num_inference_steps', { num_inference_steps: 0 }],
    ['num_inference_steps', { num_inference_steps: 51 }],
    ['guidance_scale', { guidance_scale: 0.5 }],
    ['guidance_scale', { guidance_scale: 21 }],
    ['output_format', { output_format: 'gif' }],
    ['num_images', { num_images: 'one' }],
  ])('rejects a bad %s with a 400 naming it and charges nothing (case %#)', async (field, overrides) => {
    const { client, userId } = await ts.signUp({ credits: 10 });
    const res = await client.post('/api/image/generate-image', request(overrides));
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe('invalid_input');
    expect(body.message.startsWith(`${field}:`)).toBe(true);
    expect(state.calls).toHaveLength(0);
    await expectBalance(userId, 10);
  });

  it('rejects malformed JSON and anonymous callers', async () => {
    const { client } = await ts.signUp({ credits: 10 });
    const bad = await client.fetch('/api/image/generate-image', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(bad.status).toBe(400);
    const anon = await ts.client().post('/api/image/generate-image', request());
    expect(anon.status).toBe(401);
    expect(state.calls).toHaveLength(0);
  });

  it("uses the caller's completed character, and refuses another user's or an unfinished one with 403", async () => {
    const owner = await ts.signUp({ credits: 20 });
    const other = await ts.signUp({ credits: 20 });
    const training = await completedTraining(owner.userId);
    const unfinished = await completedTraining(owner.userId, 'IN_PROGRESS');

    const stolen = await other.client.post('/api/image/generate-image', request({ loras: [{ path: training.loraFileUrl, scale: 1 }] }));
    expect(stolen.status).toBe(403);
    expect((await stolen.json()).code).toBe('lora_not_allowed');
    const early = await owner.client.post('/api/image/generate-image', request({ loras: [{ path: unfinished.loraFileUrl, scale: 1 }] }));
    expect(early.status).toBe(403);
    expect(state.calls).toHaveLength(0);
    await expectBalance(other.userId, 20);
    await expectBalance(owner.userId, 20);

    const ok = await owner.client.post('/api/image/generate-image', request({ loras: [{ path: training.loraFileUrl, scale: 0.75 }] }));
    expect(ok.status).toBe(200);
    const { generation } = await ok.json();
    expect(generation.lora_trainings).toEqual({
      id: training.id,
      character_name: 'Mara',
      trigger_word: 'mara',
      lora_file_url: training.loraFileUrl,
    });
    expect(generation.params.loras).toEqual([{ path: training.loraFileUrl, scale: 0.75 }]);
    const [row] = await ts.rt.db.select().from(generations).where(eq(generations.id, generation.id));
    expect(row).toMatchObject({ loraId: training.id, loraScale: 0.75 });

    const characters = await (await owner.client.get('/api/characters')).json();
    expect(characters.items).toEqual([
      expect.objectContaining({ id: training.id, character_name: 'Mara', lora_file_url: training.loraFileUrl }),
    ]);
    expect((await (await other.client.get('/api/characters')).json()).items).toEqual([]);
  });

  it('answers 402 with insufficient credits and never calls the provider', async () => {
    const { client, userId } = await ts.signUp({ credits: 9 });
    const res = await client.post('/api/image/generate-image', request());
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ code: 'insufficient_credits', message: 'This needs 10 credits; you have 9.' });
    expect(state.calls).toHaveLength(0);
    expect(await jobsOf(userId)).toEqual([]);
    await expectBalance(userId, 9);
  });

  it.each([
    ['fail', 502, 'generation_failed'],
    ['timeout', 504, 'generation_timeout'],
    ['url-broken', 502, 'generation_failed'],
    ['nsfw', 422, 'nsfw_content'],
  ] as const)('refunds exactly once when the provider ends in %s', async (mode, status, code) => {
    const { client, userId } = await ts.signUp({ credits: 10 });
    state.mode = mode;
    const res = await client.post('/api/image/generate-image', request());
    expect(res.status).toBe(status);
    const body = await res.json();
    expect(body.code).toBe(code);
    expect(body.message).toContain('refunded');
    await expectBalance(userId, 10);
    const [job] = await jobsOf(userId);
    expect(job.status).toBe('FAILED');
    expect(await ts.rt.db.select().from(generations).where(eq(generations.userId, userId))).toEqual([]);
    const ledger = await ts.rt.db.query.creditLedger.findMany({ where: (t, { eq: is }) => is(t.userId, userId) });
    expect(ledger.map((l) => l.kind).sort()).toEqual(['debit', 'grant', 'refund']);
    // A second refund attempt (the sweep of abandoned jobs, say) changes nothing.
    await ts.rt.db.update(generationJobs).set({ leaseExpiresAt: null }).where(eq(generationJobs.userId, userId));
    expect(await refundAbandonedJobs(ts.rt)).toBe(0);
    await expectBalance(userId, 10);
  });

  it('does not store an NSFW image', async () => {
    const { client, userId } = await ts.signUp({ credits: 10 });
    state.mode = 'nsfw';
    await client.post('/api/image/generate-image', request());
    const [job] = await jobsOf(userId);
    expect(await ts.rt.storage.exists(`generations/${userId}/${job.id}.jpeg`)).toBe(false);
    expect(await ts.rt.db.select().from(generations).where(eq(generations.userId, userId))).toEqual([]);
  });

  it('runs one user’s concurrent requests one at a time: 25 credits → two succeed, balance 5', async () => {
    const { client, userId } = await ts.signUp({ credits: 25 });
    state.delayMs = 30;
    const results = await Promise.all([1, 2, 3].map(() => client.post('/api/image/generate-image', request())));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 402]);
    expect(state.maxInFlight).toBe(1);
    expect(state.calls).toHaveLength(2);
    await expectBalance(userId, 5);
    const ledger = await ts.rt.db.query.creditLedger.findMany({ where: (t, { eq: is }) => is(t.userId, userId) });
    expect(ledger.every((l) => l.balanceAfter >= 0)).toBe(true);
  });

  it('bounds provider calls across users by INFERENCE_CONCURRENCY', async () => {
    const users = await Promise.all([1, 2, 3, 4].map(() => ts.signUp({ credits: 10 })));
    state.delayMs = 40;
    const results = await Promise.all(users.map((u) => u.client.post('/api/image/generate-image', request())));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(state.maxInFlight).toBe(2);
  });

  /** A PENDING job of the user, debited, leased to `owner` for `leaseSeconds` (negative: already run out). */
  async function pendingJob(userId: string, owner: string, leaseSeconds: number) {
    const jobId = randomUUID();
    await ts.rt.db.transaction(async (tx) => {
      await ts.rt.credits.debit(userId, 10, 'Image generation', `generation:${jobId}`, tx);
      await tx.insert(generationJobs).values({
        id: jobId,
        userId,
        input: request(),
        provider: 'builtin',
        leaseOwner: owner,
        leaseExpiresAt: sql`now() + make_interval(secs => ${leaseSeconds})`,
      });
    });
    return jobId;
  }

  it('refunds a generation whose lease ran out (its instance died), once', async () => {
    const { userId } = await ts.signUp({ credits: 10 });
    const jobId = await pendingJob(userId, randomUUID(), 60);
    await expectBalance(userId, 0);
    // Its lease still runs: the instance may be working on it.
    expect(await refundAbandonedJobs(ts.rt)).toBe(0);
    await ts.rt.db
      .update(generationJobs)
      .set({ leaseExpiresAt: sql`now() - interval '1 second'` })
      .where(eq(generationJobs.id, jobId));
    expect(await refundAbandonedJobs(ts.rt)).toBe(1);
    await expectBalance(userId, 10);
    const [job] = await jobsOf(userId);
    expect(job.status).toBe('FAILED');
    expect(await refundAbandonedJobs(ts.rt)).toBe(0);
    await expectBalance(userId, 10);
  });

  it("starts a user's next generation at once when their running job belongs to an instance that is gone", async () => {
    const { client, userId } = await ts.signUp({ credits: 20 });
    // Leased for another minute, to an instance id that no running instance holds.
    await pendingJob(userId, randomUUID(), 60);
    const res = await client.post('/api/image/generate-image', request());
    expect(res.status).toBe(200);
    expect(state.calls).toHaveLength(1);
  });

  it("waits for the user's job held by a running instance, then generates", async () => {
    const { client, userId } = await ts.signUp({ credits: 20 });
    const jobId = await pendingJob(userId, ts.rt.database.instanceId, 60);
    let answered = false;
    const pending = client.post('/api/image/generate-image', request()).then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 800));
    expect(answered).toBe(false);
    expect(state.calls).toHaveLength(0);
    await ts.rt.db.update(generationJobs).set({ status: 'SUCCEEDED' }).where(eq(generationJobs.id, jobId));
    expect((await pending).status).toBe(200);
    expect(state.calls).toHaveLength(1);
  });

  it('lists recent ACTIVE generations newest first', async () => {
    const { client } = await ts.signUp({ credits: 30 });
    const ids: string[] = [];
    for (const prompt of ['first', 'second', 'third']) {
      ids.push((await (await client.post('/api/image/generate-image', request({ prompt }))).json()).generation.id);
    }
    await ts.rt.db.update(generations).set({ status: 'DELETED' }).where(eq(generations.id, ids[1]));
    const res = await client.get('/api/generations?limit=6');
    expect(res.status).toBe(200);
    const { items } = await res.json();
    expect(items.map((g: { id: string }) => g.id)).toEqual([ids[2], ids[0]]);
    expect(items[0].result.prompt).toBe('third');
    expect((await client.get('/api/generations?limit=0')).status).toBe(400);
  });

  describe('media delivery', () => {
    let owner: { client: TestClient; userId: string };
    let other: { client: TestClient; userId: string };
    let generated: { id: string; url: string };

    beforeAll(async () => {
      owner = await ts.signUp({ credits: 10 });
      other = await ts.signUp();
      const body = await (await owner.client.post('/api/image/generate-image', request())).json();
      generated = { id: body.generation.id, url: body.images[0].url };
    });

    it('serves images revalidated on every view (deleted means gone), an ETag, its type and nosniff; 304 on a match', async () => {
      const res = await fetch(ts.url + generated.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      expect(res.headers.get('cache-control')).toBe('public, no-cache');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const etag = res.headers.get('etag')!;
      expect(etag).toMatch(/^".+"$/);
      const size = (await res.arrayBuffer()).byteLength;
      expect(Number(res.headers.get('content-length'))).toBe(size);

      const again = await fetch(ts.url + generated.url, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect((await again.arrayBuffer()).byteLength).toBe(0);
      const head = await fetch(ts.url + generated.url, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(Number(head.headers.get('content-length'))).toBe(size);
      const stale = await fetch(ts.url + generated.url, { headers: { 'if-none-match': '"other"' } });
      expect(stale.status).toBe(200);
      await stale.arrayBuffer();
    });

    it('answers 404 for a missing or malformed key', async () => {
      expect((await fetch(`${ts.url}/media/generations/${owner.userId}/${randomUUID()}.jpeg`)).status).toBe(404);
      expect((await fetch(`${ts.url}/media/generations/%2e%2e/secret`)).status).toBe(404);
    });

    it('renders a smaller WebP thumbnail once and serves it from storage after', async () => {
      const thumbPath = generated.url.replace('/media/', '/media/thumbs/384/');
      const res = await fetch(ts.url + thumbPath);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/webp');
      expect(res.headers.get('cache-control')).toBe('public, no-cache');
      const thumb = Buffer.from(await res.arrayBuffer());
      const meta = await sharp(thumb).metadata();
      expect(meta).toMatchObject({ format: 'webp', width: 384, height: 216 });
      const full = (await (await fetch(ts.url + generated.url)).arrayBuffer()).byteLength;
      expect(thumb.length).toBeLessThan(full / 4);
      const cachedKey = `thumbs/384/${generated.url.slice('/media/'.length)}.webp`;
      expect(await ts.rt.storage.exists(cachedKey)).toBe(true);

      const etag = res.headers.get('etag')!;
      expect((await fetch(ts.url + thumbPath, { headers: { 'if-none-match': etag } })).status).toBe(304);
      expect((await fetch(ts.url + generated.url.replace('/media/', '/media/thumbs/500/'))).status).toBe(404);
    });

    it('keeps uploads private to their owner', async () => {
      const key = `uploads/${owner.userId}/photo.png`;
      await ts.rt.storage.put(key, await paint(64, 64, 'png'), 'image/png');
      const mine = await owner.client.get(`/media/${key}`);
      expect(mine.status).toBe(200);
      expect(mine.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
      await mine.arrayBuffer();
      expect((await other.client.get(`/media/${key}`)).status).toBe(404);
      expect((await fetch(`${ts.url}/media/${key}`)).status).toBe(404);
      expect((await other.client.get(`/media/thumbs/384/${key}`)).status).toBe(404);
      expect((await owner.client.get(`/media/thumbs/384/${key}`)).status).toBe(200);
    });

    it('downloads as likeness-<timestamp>.jpeg for the owner, or an explore item for anyone signed in', async () => {
      const res = await owner.client.get(`/api/download/${generated.id}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      const disposition = res.headers.get('content-disposition')!;
      const stamp = Number(/^attachment; filename="likeness-(\d+)\.jpeg"$/.exec(disposition)?.[1]);
      expect(Math.abs(stamp - Date.now())).toBeLessThan(60_000);
      await res.arrayBuffer();

      expect((await other.client.get(`/api/download/${generated.id}`)).status).toBe(404);
      expect((await ts.client().get(`/api/download/${generated.id}`)).status).toBe(401);
      expect((await owner.client.get('/api/download/not-a-uuid')).status).toBe(404);

      const [item] = await ts.rt.db
        .insert(exploreGallery)
        .values({ imageUrl: generated.url, prompt: 'shared', width: 1024, height: 576 })
        .returning();
      const shared = await other.client.get(`/api/download/${item.id}?source=explore`);
      expect(shared.status).toBe(200);
      expect(shared.headers.get('content-disposition')).toMatch(/^attachment; filename="likeness-\d+\.jpeg"$/);
      await shared.arrayBuffer();
    });
  });
});

describe('generate image on two instances (postgres)', () => {
  it("runs one user's requests one at a time across instances", async () => {
    const { generator, state } = createTestGenerator();
    state.delayMs = 150;
    const a = await startTestServer({ database: 'postgres', runtime: { generator } });
    const b = await startTestServer({ databaseUrl: a.rt.config.DATABASE_URL, runtime: { generator } });
    try {
      const { client, userId } = await a.signUp({ credits: 20 });
      // The same browser session, sent to the other instance.
      const onB = b.client().fetch('/api/image/generate-image', {
        method: 'POST',
        headers: { cookie: client.cookieHeader(), 'content-type': 'application/json' },
        body: JSON.stringify(request()),
      });
      const results = await Promise.all([client.post('/api/image/generate-image', request()), onB]);
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      expect(state.maxInFlight).toBe(1);
      expect(await a.rt.credits.balance(userId)).toBe(0);
      expect(await a.rt.credits.ledgerSum(userId)).toBe(0);
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});

describe('generate image across restarts (pglite)', () => {
  it('refunds a job left PENDING when the server stopped', async () => {
    const { generator } = createTestGenerator();
    const dataDir = mkdtempSync(join(tmpdir(), 'likeness-restart-'));
    const first = await startTestServer({ dataDir, runtime: { generator } });
    const { userId } = await first.signUp({ credits: 10 });
    const jobId = randomUUID();
    await first.rt.db.transaction(async (tx) => {
      await first.rt.credits.debit(userId, 10, 'Image generation', `generation:${jobId}`, tx);
      // Leased for a long while: the process that held it is gone, and on PGlite the next one frees it at start.
      await tx.insert(generationJobs).values({
        id: jobId,
        userId,
        input: request(),
        provider: 'builtin',
        leaseOwner: first.rt.database.instanceId,
        leaseExpiresAt: new Date(Date.now() + 3600_000),
      });
    });
    await first.stop();
    const second = await startTestServer({ dataDir, runtime: { generator } });
    try {
      expect(await second.rt.credits.balance(userId)).toBe(10);
      const [job] = await second.rt.db.select().from(generationJobs).where(eq(generationJobs.id, jobId));
      expect(job.status).toBe('FAILED');
    } finally {
      await second.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe.each(testDatabases())('a generation whose job recovery ended meanwhile (%s)', (database) => {
  it('is not saved, keeps the one refund recovery gave, and says it took too long', async () => {
    let ts: TestServer | undefined;
    const image = await paint(64, 64, 'jpeg');
    // While the provider works, the job's lease runs out and the sweep of abandoned jobs refunds it.
    const generator: ImageGenerator = {
      name: 'builtin',
      async generate(input) {
        await ts!.rt.db.update(generationJobs).set({ leaseExpiresAt: null }).where(eq(generationJobs.status, 'PENDING'));
        expect(await refundAbandonedJobs(ts!.rt)).toBe(1);
        return { images: [{ data: image, width: 64, height: 64, contentType: 'image/jpeg', nsfw: false }], seed: input.seed };
      },
    };
    ts = await startTestServer({ database, runtime: { generator } });
    try {
      const { client, userId } = await ts.signUp({ credits: 10 });
      const res = await client.post('/api/image/generate-image', request());
      expect(res.status).toBe(504);
      expect((await res.json()).code).toBe('generation_timeout');
      expect(await ts.rt.credits.balance(userId)).toBe(10);
      const ledger = await ts.rt.db.query.creditLedger.findMany({ where: (t, { eq: is }) => is(t.userId, userId) });
      expect(ledger.map((l) => l.kind).sort()).toEqual(['debit', 'grant', 'refund']);
      expect(await ts.rt.db.select().from(generations).where(eq(generations.userId, userId))).toEqual([]);
      const [job] = await ts.rt.db.select().from(generationJobs).where(eq(generationJobs.userId, userId));
      expect(job).toMatchObject({ status: 'FAILED', generationId: null });
    } finally {
      await ts.stop();
    }
  });
});

describe.each(testDatabases())('a generation whose account is erased meanwhile (%s)', (database) => {
  it('is not saved, keeps no file, refunds nothing to the closed account, and says the account was deleted', async () => {
    let ts: TestServer | undefined;
    const image = await paint(64, 64, 'jpeg');
    let erased: string | undefined;
    // While the provider works, the person deletes their account.
    const generator: ImageGenerator = {
      name: 'builtin',
      async generate(input) {
        await ts!.rt.erasure.erase(erased!);
        return { images: [{ data: image, width: 64, height: 64, contentType: 'image/jpeg', nsfw: false }], seed: input.seed };
      },
    };
    ts = await startTestServer({ database, runtime: { generator } });
    try {
      const { client, userId } = await ts.signUp({ credits: 10 });
      erased = userId;
      const res = await client.post('/api/image/generate-image', request());
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'account_deleted', message: 'This account has been deleted.' });
      expect(await ts.rt.db.select().from(generations).where(eq(generations.userId, userId))).toEqual([]);
      const files = readdirSync(join(ts.dataDir, 'files'), { recursive: true, withFileTypes: true });
      expect(files.filter((f) => f.isFile() && join(f.parentPath, f.name).includes(userId))).toEqual([]);
      expect(await ts.rt.credits.ledgerSum(userId)).toBe(0);
      expect(await ts.rt.credits.balance(userId)).toBe(0);
    } finally {
      await ts.stop();
    }
  });
});
