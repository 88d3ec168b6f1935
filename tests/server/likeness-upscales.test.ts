import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACE_EMBEDDING } from '@common/face-match.ts';
import type { GenerateImageResponse } from '@common/generation.ts';
import { generations, loraTrainings } from '../../server/db/schema.ts';
import type { GenerateOutput, ImageFinisher, ImageGenerator } from '../../server/providers/inference/index.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import { sharedTestVision, startTestServer, testDatabases, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * An upscale shows its source's face, so it takes its source's likeness instead of a check of its own
 * (docs/decisions/017-likeness-check.md), also when the source is scored only after the upscale read it.
 */

const jpeg = (width: number, height: number) =>
  sharp({ create: { width: 64, height: 64, channels: 3, background: '#4a7bb0' } })
    .jpeg()
    .toBuffer()
    .then((data) => ({ data, width, height, contentType: 'image/jpeg', nsfw: false }));

/** A gate a test opens: what waits on it waits until then. */
function gate() {
  let open: () => void = () => {};
  const closed = new Promise<void>((resolve) => (open = resolve));
  return { closed, open };
}

const face = (() => {
  const v = Array.from({ length: FACE_EMBEDDING.size }, (_, i) => (i % 7) / 7);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
})();

describe.each(testDatabases())('the likeness of upscales (%s)', (database) => {
  let ts: TestServer;
  let vision = gate();
  let upscaling = gate();
  let upscaleCalls = 0;
  const generator: ImageGenerator = {
    name: 'builtin',
    async generate(input): Promise<GenerateOutput> {
      return { images: [await jpeg(input.imageSize.width, input.imageSize.height)], seed: input.seed };
    },
  };
  const finisher: ImageFinisher = {
    name: 'builtin',
    async upscale(input) {
      upscaleCalls++;
      await upscaling.closed;
      return { images: [await jpeg(input.image.width * input.factor, input.image.height * input.factor)], seed: input.seed };
    },
    async edit() {
      throw new Error('not used here');
    },
  };

  beforeAll(async () => {
    // The check of a new image waits in the vision worker until the test lets it (a slow or loading worker).
    const shared = sharedTestVision();
    const gatedVision = { ...shared, faceEmbedding: async () => (await vision.closed, { faces: 1, embedding: face }) };
    ts = await startTestServer({ database, runtime: { generator, finisher, vision: gatedVision }, env: { INFERENCE_CONCURRENCY: '2' } });
  });
  afterAll(() => ts?.stop());

  async function character(userId: string) {
    const [row] = await ts.rt.db
      .insert(loraTrainings)
      .values({
        userId,
        characterName: 'Mara',
        triggerWord: 'mara',
        status: 'COMPLETED',
        loraFileUrl: `/media/loras/${userId}/${randomUUID()}.json`,
        referenceFace: [FACE_EMBEDDING.version, ...face],
        referenceCheckedAt: new Date(),
      })
      .returning();
    return row;
  }
  const verdictOf = async (id: string) =>
    (await ts.rt.db.select({ v: generations.likenessVerdict }).from(generations).where(eq(generations.id, id)))[0].v;
  const scored = (id: string) =>
    waitFor(`${id} scored`, async () => {
      await ts.rt.likenessChecker.runOnce();
      return verdictOf(id);
    });

  it('an upscale started before its source was scored and saved after it gets the score', async () => {
    const { client, userId } = await ts.signUp({ credits: 100 });
    const mara = await character(userId);
    vision = gate();
    upscaling = gate();
    upscaleCalls = 0;
    const made = await client.post('/api/image/generate-image', generationRequestBody({ loras: [{ path: mara.loraFileUrl, scale: 1 }] }));
    const source = ((await made.json()) as GenerateImageResponse).generation;
    // The person clicks Upscale at once; the source's check ends while the upscale is at the provider.
    const upscale = client.post('/api/image/upscale', { generation_id: source.id, factor: 2 });
    await waitFor('the upscale at the provider', async () => upscaleCalls > 0);
    vision.open();
    expect(await scored(source.id)).toBe('strong');
    upscaling.open();
    const res = await upscale;
    expect(res.status).toBe(200);
    const upscaled = ((await res.json()) as GenerateImageResponse).generation;
    expect(await scored(upscaled.id)).toBe('strong');
  });

  it('an upscale of an upscale, both made before the source was scored, gets the score', async () => {
    const { client, userId } = await ts.signUp({ credits: 100 });
    const mara = await character(userId);
    vision = gate();
    upscaling = gate();
    upscaling.open();
    const made = await client.post('/api/image/generate-image', generationRequestBody({ loras: [{ path: mara.loraFileUrl, scale: 1 }] }));
    const source = ((await made.json()) as GenerateImageResponse).generation;
    const upscaleOf = async (id: string) =>
      ((await (await client.post('/api/image/upscale', { generation_id: id, factor: 2 })).json()) as GenerateImageResponse).generation;
    const once = await upscaleOf(source.id);
    const twice = await upscaleOf(once.id);
    expect(await verdictOf(twice.id)).toBeNull();
    vision.open();
    expect(await scored(source.id)).toBe('strong');
    expect(await scored(once.id)).toBe('strong');
    expect(await scored(twice.id)).toBe('strong');
  });
});
