import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditLedger, generationJobs, generations, loraTrainings } from '../../server/db/schema.ts';
import { renderImage } from '../../server/providers/inference/builtin-generator.ts';
import { createFalFinisher } from '../../server/providers/inference/fal-finisher.ts';
import { createFalGenerator } from '../../server/providers/inference/fal-generator.ts';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import { startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';

/**
 * Finishing a result: upscale 2×/4× and edit with a prompt, through the real HTTP API, on the
 * built-in engine for real and on fal through the project's fal fake.
 */

async function expectBalance(ts: TestServer, userId: string, credits: number) {
  expect(await ts.rt.credits.balance(userId)).toBe(credits);
  expect(await ts.rt.credits.ledgerSum(userId)).toBe(credits);
}

async function generate(client: TestClient, overrides: Record<string, unknown> = {}) {
  const res = await client.post('/api/image/generate-image', generationRequestBody({ seed: 7, ...overrides }));
  expect(res.status).toBe(200);
  return (await res.json()).generation as { id: string; result: { images: { url: string }[] } };
}

async function imageOf(client: TestClient, url: string) {
  const res = await client.get(url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Mean absolute difference per channel of two images (resized to the first one's size). */
async function difference(a: Buffer, b: Buffer): Promise<number> {
  const { data: pa, info } = await sharp(a).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const pb = await sharp(b).removeAlpha().resize(info.width, info.height, { fit: 'fill' }).raw().toBuffer();
  let sum = 0;
  for (let i = 0; i < pa.length; i++) sum += Math.abs(pa[i] - pb[i]);
  return sum / pa.length;
}

const editBody = (sourceId: string, overrides: Record<string, unknown> = {}) =>
  generationRequestBody({
    prompt: 'the same person in a red jacket on a beach',
    seed: 11,
    source_id: sourceId,
    strength: 0.6,
    ...overrides,
  });

describe.each(testDatabases())('finishing a result, built-in engine (%s)', (database) => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ database });
  });
  afterAll(async () => {
    await ts?.stop();
  });

  it('upscales 2×: 5 credits, a new linked generation twice the size, real Lanczos pixels, full-size download', async () => {
    const { client, userId } = await ts.signUp({ credits: 15 });
    const source = await generate(client);
    await expectBalance(ts, userId, 5);

    const res = await client.post('/api/image/upscale', { generation_id: source.id, factor: 2 });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.images[0]).toMatchObject({ width: 1024, height: 1024, content_type: 'image/jpeg' });
    expect(body.generation).toMatchObject({
      params: { prompt: 'a lighthouse on a cliff at dusk', image_size: { width: 1024, height: 1024 }, seed: '7' },
      source: { id: source.id, kind: 'upscale', factor: 2, strength: null },
    });
    await expectBalance(ts, userId, 0);

    const bytes = await imageOf(client, body.images[0].url);
    expect(await sharp(bytes).metadata()).toMatchObject({ width: 1024, height: 1024 });
    // A resampled copy of the source: close to it, not a new picture.
    expect(await difference(bytes, await imageOf(client, source.result.images[0].url))).toBeLessThan(8);

    const download = await client.get(`/api/download/${body.generation.id}`);
    expect(download.status).toBe(200);
    expect((await sharp(Buffer.from(await download.arrayBuffer())).metadata()).width).toBe(1024);

    const list = await (await client.get('/api/library/generations?page=1')).json();
    expect(list.items.map((g: { id: string }) => g.id)).toEqual([body.generation.id, source.id]);
    expect(list.items[0].source).toEqual({ id: source.id, kind: 'upscale', factor: 2, strength: null });
    expect(list.items[1].source).toBeNull();
  });

  it('upscales 4× for 10 credits up to 4096 px, and refuses an upscale of that upscale past 4096 px without charging', async () => {
    const { client, userId } = await ts.signUp({ credits: 30 });
    const source = await generate(client, { image_size: { width: 1024, height: 576 } });
    const up = await client.post('/api/image/upscale', { generation_id: source.id, factor: 4 });
    expect(up.status).toBe(200);
    const upscaled = (await up.json()).generation;
    expect(upscaled.params.image_size).toEqual({ width: 4096, height: 2304 });
    await expectBalance(ts, userId, 10);

    const again = await client.post('/api/image/upscale', { generation_id: upscaled.id, factor: 2 });
    expect(again.status).toBe(422);
    expect(await again.json()).toMatchObject({
      code: 'upscale_too_large',
      message: 'Upscale 2× would make this 4096×2304 image 8192×4608 px; the long side can be at most 4096 px.',
    });
    await expectBalance(ts, userId, 10);
  });

  it('edits from the source at the strength: 10 credits, the new prompt, a visible blend linked to its source', async () => {
    const { client, userId } = await ts.signUp({ credits: 40 });
    const source = await generate(client);
    const sourceBytes = await imageOf(client, source.result.images[0].url);

    const light = await client.post('/api/image/edit', editBody(source.id, { strength: 0.2 }));
    expect(light.status).toBe(200);
    const lightBody = await light.json();
    expect(lightBody.generation).toMatchObject({
      params: { prompt: 'the same person in a red jacket on a beach', seed: '11', image_size: { width: 512, height: 512 } },
      source: { id: source.id, kind: 'edit', factor: null, strength: 0.2 },
    });
    const strong = await (await client.post('/api/image/edit', editBody(source.id, { strength: 0.95 }))).json();
    await expectBalance(ts, userId, 10);

    // Strength is how far the result moves from the source.
    const near = await difference(await imageOf(client, lightBody.images[0].url), sourceBytes);
    const far = await difference(await imageOf(client, strong.images[0].url), sourceBytes);
    expect(near).toBeGreaterThan(0.5);
    expect(far).toBeGreaterThan(near * 2);
  });

  it('edits with a character only when it is one of the caller’s completed trainings', async () => {
    const { client, userId } = await ts.signUp({ credits: 20 });
    const source = await generate(client);
    const res = await client.post(
      '/api/image/edit',
      editBody(source.id, { loras: [{ path: '/media/loras/someone-else.safetensors', scale: 1 }] }),
    );
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('lora_not_allowed');
    await expectBalance(ts, userId, 10);
  });

  it('only the owner’s ACTIVE generations: others’ ids, deleted and unknown ones answer 404 and charge nothing', async () => {
    const owner = await ts.signUp({ credits: 10 });
    const source = await generate(owner.client);
    const other = await ts.signUp({ credits: 30 });
    for (const res of [
      await other.client.post('/api/image/upscale', { generation_id: source.id, factor: 2 }),
      await other.client.post('/api/image/edit', editBody(source.id)),
      await other.client.post('/api/image/upscale', { generation_id: randomUUID(), factor: 2 }),
    ]) {
      expect(res.status).toBe(404);
      expect((await res.json()).message).toBe('That image is not one of your generations, or it was deleted.');
    }
    await expectBalance(ts, other.userId, 30);

    await owner.client.fetch(`/api/library/generations/${source.id}`, { method: 'DELETE' });
    await ts.rt.credits.grant(owner.userId, 10, 'test grant', `test:${randomUUID()}`);
    const deleted = await owner.client.post('/api/image/upscale', { generation_id: source.id, factor: 2 });
    expect(deleted.status).toBe(404);
    const deletedEdit = await owner.client.post('/api/image/edit', editBody(source.id));
    expect(deletedEdit.status).toBe(404);
    await expectBalance(ts, owner.userId, 10);
  });

  it('GET /api/library/generations/:id answers the owner’s generation with its source link, and 404 to anyone else', async () => {
    const owner = await ts.signUp({ credits: 15 });
    const source = await generate(owner.client);
    const up = (await (await owner.client.post('/api/image/upscale', { generation_id: source.id, factor: 2 })).json()).generation;
    const mine = await owner.client.get(`/api/library/generations/${up.id}`);
    expect(mine.status).toBe(200);
    expect((await mine.json()).source).toEqual({ id: source.id, kind: 'upscale', factor: 2, strength: null });
    const other = await ts.signUp();
    expect((await other.client.get(`/api/library/generations/${up.id}`)).status).toBe(404);
    expect((await owner.client.get('/api/library/generations/not-a-uuid')).status).toBe(404);
  });

  it('says so when the source image is missing from storage, and refunds it at once', async () => {
    const { client, userId } = await ts.signUp({ credits: 20 });
    const source = await generate(client);
    await ts.rt.storage.delete(source.result.images[0].url.slice('/media/'.length));
    for (const [path, body, action, cost] of [
      ['/api/image/upscale', { generation_id: source.id, factor: 2 }, 'upscaled', 5],
      ['/api/image/edit', editBody(source.id), 'edited', 10],
    ] as const) {
      const res = await client.post(path, body);
      expect(res.status).toBe(410);
      expect(await res.json()).toMatchObject({
        code: 'source_missing',
        message: `The original file of this image is no longer stored, so it cannot be ${action}. Your ${cost} credits were refunded.`,
      });
    }
    await expectBalance(ts, userId, 10);
    const jobs = await ts.rt.db.select().from(generationJobs).where(eq(generationJobs.userId, userId));
    expect(jobs.map((j) => j.status).sort()).toEqual(['FAILED', 'FAILED', 'SUCCEEDED']);
  });

  it.each([
    ['strength', '/api/image/edit', { strength: 0.1 }, 'strength: must be at least 0.2'],
    ['strength', '/api/image/edit', { strength: 0.96 }, 'strength: must be at most 0.95'],
    ['strength', '/api/image/edit', { strength: 'half' }, 'strength: must be a number'],
    ['source_id', '/api/image/edit', { source_id: 'not-an-id' }, 'source_id: must be the id of one of your generations'],
    ['factor', '/api/image/upscale', { factor: 3 }, 'factor: must be 2 or 4'],
    ['generation_id', '/api/image/upscale', { generation_id: '../etc' }, 'generation_id: must be the id of one of your generations'],
  ])('rejects a bad %s with a 400 and charges nothing (case %#)', async (_field, path, overrides, message) => {
    const { client, userId } = await ts.signUp({ credits: 20 });
    const source = await generate(client);
    const body = path === '/api/image/edit' ? editBody(source.id, overrides) : { generation_id: source.id, factor: 2, ...overrides };
    const res = await client.post(path, body);
    expect(res.status).toBe(400);
    expect((await res.json()).message).toBe(message);
    await expectBalance(ts, userId, 10);
  });

  it('refuses an upscale the balance cannot pay for (402), leaving the balance', async () => {
    const { client, userId } = await ts.signUp({ credits: 15 });
    const source = await generate(client);
    const res = await client.post('/api/image/upscale', { generation_id: source.id, factor: 4 });
    expect(res.status).toBe(402);
    expect((await res.json()).message).toBe('This needs 10 credits; you have 5.');
    await expectBalance(ts, userId, 5);
  });

  it('refuses a source that is not the caller’s, deleted or too large before the balance, writing nothing', async () => {
    const { client, userId } = await ts.signUp({ credits: 10 });
    const mine = await generate(client);
    const stranger = await ts.signUp({ credits: 20 });
    const theirs = await generate(stranger.client);
    const deleted = await generate(stranger.client);
    await ts.rt.db.update(generations).set({ status: 'DELETED' }).where(eq(generations.id, deleted.id));
    const written = async () => ({
      ledger: (await ts.rt.db.select().from(creditLedger).where(eq(creditLedger.userId, userId))).length,
      jobs: (await ts.rt.db.select().from(generationJobs).where(eq(generationJobs.userId, userId))).length,
    });
    const before = await written();

    // With nothing left to pay with, the source's refusal still comes first.
    expect((await client.post('/api/image/upscale', { generation_id: theirs.id, factor: 2 })).status).toBe(404);
    expect((await client.post('/api/image/edit', editBody(theirs.id))).status).toBe(404);
    expect((await stranger.client.post('/api/image/upscale', { generation_id: deleted.id, factor: 2 })).status).toBe(404);
    expect((await client.post('/api/image/upscale', { generation_id: randomUUID(), factor: 2 })).status).toBe(404);
    await ts.rt.db.update(generations).set({ width: 2048, height: 2048 }).where(eq(generations.id, mine.id));
    const tooLarge = await client.post('/api/image/upscale', { generation_id: mine.id, factor: 4 });
    expect(tooLarge.status).toBe(422);
    expect(await tooLarge.json()).toMatchObject({ code: 'upscale_too_large' });
    expect((await client.post('/api/image/upscale', { generation_id: mine.id, factor: 2 })).status).toBe(402);
    expect(await written()).toEqual(before);
    await expectBalance(ts, userId, 0);
  });

  it('a double click on Upscale charges once: both requests get the same new generation', async () => {
    const { client, userId } = await ts.signUp({ credits: 20 });
    const source = await generate(client);
    const [a, b] = await Promise.all([
      client.post('/api/image/upscale', { generation_id: source.id, factor: 2 }),
      client.post('/api/image/upscale', { generation_id: source.id, factor: 2 }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const [ga, gb] = [(await a.json()).generation.id, (await b.json()).generation.id];
    expect(ga).toBe(gb);
    await expectBalance(ts, userId, 5);
    const rows = await ts.rt.db.select().from(generations).where(eq(generations.sourceId, source.id));
    expect(rows).toHaveLength(1);
  });
});

describe('finishing a result on fal (the fal fake)', () => {
  let fal: FakeFal;
  let ts: TestServer;
  beforeAll(async () => {
    fal = await startFakeFal({ latencyMs: 10 });
    const conn = { credentials: fal.key, fetch: fal.fetch, pollIntervalMs: 10, timeoutMs: 10_000 };
    ts = await startTestServer({ runtime: { generator: createFalGenerator(conn), finisher: createFalFinisher(conn) } });
  });
  afterAll(async () => {
    await ts?.stop();
    await fal?.stop();
  });

  const submitted = (endpoint: string) => [...fal.requests.values()].filter((r) => r.endpointId === endpoint);

  it('upscales with fal-ai/clarity-upscaler: source uploaded, low creativity and high resemblance, result copied to our storage', async () => {
    const { client, userId } = await ts.signUp({ credits: 20 });
    const source = await generate(client);
    const res = await client.post('/api/image/upscale', { generation_id: source.id, factor: 2 });
    expect(res.status).toBe(200);
    const body = await res.json();
    const [call] = submitted('fal-ai/clarity-upscaler');
    expect(call.input).toEqual({
      image_url: expect.stringMatching(/^https:\/\/v3\.fal\.media\/files\//),
      upscale_factor: 2,
      prompt: 'a lighthouse on a cliff at dusk',
      creativity: 0.2,
      resemblance: 0.9,
      seed: 7,
      enable_safety_checker: true,
    });
    expect(fal.received.some((r) => r.path === '/rest/storage/upload/initiate')).toBe(true);
    expect(body.images[0].url).toMatch(new RegExp(`^/media/generations/${userId}/`));
    expect(await ts.rt.storage.exists(body.images[0].url.slice('/media/'.length))).toBe(true);
    expect(body.generation).toMatchObject({
      params: { image_size: { width: 1024, height: 1024 } },
      source: { id: source.id, kind: 'upscale', factor: 2 },
    });
    await expectBalance(ts, userId, 5);
  });

  it('edits with fal-ai/flux-lora/image-to-image and the character’s LoRA', async () => {
    const { client, userId } = await ts.signUp({ credits: 20 });
    const lora = 'https://v3.fal.media/files/abc/pytorch_lora_weights.safetensors';
    await ts.rt.db
      .insert(loraTrainings)
      .values({ userId, characterName: 'Mara', triggerWord: 'mara', status: 'COMPLETED', loraFileUrl: lora });
    const source = await generate(client, { loras: [{ path: lora, scale: 0.9 }] });
    const res = await client.post('/api/image/edit', editBody(source.id, { loras: [{ path: lora, scale: 0.9 }], strength: 0.45 }));
    expect(res.status).toBe(200);
    const body = await res.json();
    const [call] = submitted('fal-ai/flux-lora/image-to-image');
    expect(call.input).toMatchObject({
      prompt: 'the same person in a red jacket on a beach',
      image_url: expect.stringMatching(/^https:\/\/v3\.fal\.media\/files\//),
      strength: 0.45,
      loras: [{ path: lora, scale: 0.9 }],
      image_size: { width: 512, height: 512 },
      seed: 11,
      num_images: 1,
      enable_safety_checker: true,
    });
    expect(body.generation).toMatchObject({
      lora_trainings: { character_name: 'Mara' },
      source: { id: source.id, kind: 'edit', strength: 0.45 },
    });
    await expectBalance(ts, userId, 0);
  });

  it('refunds a failed upscale and a failed edit in full', async () => {
    const { client, userId } = await ts.signUp({ credits: 25 });
    const source = await generate(client);
    fal.control.failNext({ endpoint: 'fal-ai/clarity-upscaler', status: 500, message: 'CUDA out of memory' });
    const up = await client.post('/api/image/upscale', { generation_id: source.id, factor: 4 });
    expect(up.status).toBe(502);
    expect((await up.json()).message).toBe('The image could not be upscaled. Your 10 credits were refunded; please try again.');
    fal.control.failNext({ endpoint: 'fal-ai/flux-lora/image-to-image', status: 500, message: 'boom' });
    const ed = await client.post('/api/image/edit', editBody(source.id));
    expect(ed.status).toBe(502);
    expect((await ed.json()).message).toBe('The image could not be edited. Your 10 credits were refunded; please try again.');
    await expectBalance(ts, userId, 15);
    const rows = await ts.rt.db.select().from(generations).where(eq(generations.sourceId, source.id));
    expect(rows).toHaveLength(0);
  });

  it('refunds when the safety checker flags an upscale (content_policy_violation) or an edit (has_nsfw_concepts)', async () => {
    const { client, userId } = await ts.signUp({ credits: 25 });
    const source = await generate(client);
    fal.control.nsfwNext();
    const up = await client.post('/api/image/upscale', { generation_id: source.id, factor: 2 });
    expect(up.status).toBe(422);
    expect(await up.json()).toMatchObject({
      code: 'nsfw_content',
      message:
        'The image was flagged by the safety checker and was not saved. Your 5 credits were refunded; please try a different prompt.',
    });
    fal.control.nsfwNext();
    const ed = await client.post('/api/image/edit', editBody(source.id));
    expect(ed.status).toBe(422);
    expect((await ed.json()).code).toBe('nsfw_content');
    await expectBalance(ts, userId, 15);
  });
});

describe('finishing while an earlier generation of the same person runs', () => {
  let ts: TestServer;
  let release: () => void = () => {};
  let calls = 0;
  beforeAll(async () => {
    ts = await startTestServer({
      database: 'pglite',
      runtime: {
        generator: {
          name: 'builtin',
          async generate(req) {
            // The second call (the held one) waits until the test lets it finish.
            if (++calls === 2) await new Promise<void>((resolve) => (release = resolve));
            const data = await renderImage({ ...req, imageSize: { width: 64, height: 64 } });
            return { images: [{ data, width: 64, height: 64, contentType: 'image/jpeg', nsfw: false }], seed: req.seed };
          },
        },
      },
    });
  });
  afterAll(async () => {
    release();
    await ts?.stop();
  });

  it('refuses a source that is not the caller’s at once rather than after the running generation', async () => {
    const { client, userId } = await ts.signUp({ credits: 30 });
    const stranger = await ts.signUp({ credits: 10 });
    const theirs = await generate(stranger.client);
    const held = client.post('/api/image/generate-image', generationRequestBody({ seed: 8 }));
    await expect.poll(() => ts.rt.generations.inFlight()).toBe(1);

    expect((await client.post('/api/image/upscale', { generation_id: theirs.id, factor: 2 })).status).toBe(404);
    expect((await client.post('/api/image/edit', editBody(theirs.id))).status).toBe(404);
    expect(ts.rt.generations.inFlight()).toBe(1);

    release();
    expect((await held).status).toBe(200);
    await expectBalance(ts, userId, 20);
  });
});
