import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FACE_EMBEDDING } from '@common/face-match.ts';
import type { ShootView } from '@common/photo-shoots.ts';
import { loraTrainings, shootPhotos } from '../../server/db/schema.ts';
import { ProviderError, type GenerateInput, type GenerateOutput, type ImageGenerator } from '../../server/providers/inference/index.ts';
import { mediaUrl } from '../../server/providers/storage/index.ts';
import { readCatalogue } from '../../server/services/packs.service.ts';
import type { FaceEmbedding } from '../../server/vision/face-embedding.ts';
import { sharedTestVision, startTestServer, testDatabases, type TestClient, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * The shoot runner's edges (docs/decisions/012-photo-shoots.md) on one inference slot, so that the test decides
 * when a claimed photo gets to render: a cancel while it waits, queue positions across shoots, a save lost to
 * another instance after a re-take, and the words a failed photo shows.
 */

const linkedin = readCatalogue().packs.find((p) => p.id === 'linkedin-profile')!;
const N = linkedin.prompts.length;

/** The character's reference face in these tests, and a photo's face that matches it. */
const REFERENCE = Array.from({ length: FACE_EMBEDDING.size }, (_, i) => (i === 0 ? 1 : 0));
const MATCHING: FaceEmbedding = { faces: 1, embedding: REFERENCE };
const NO_FACE: FaceEmbedding = { faces: 0, embedding: null };

describe.each(testDatabases())('shoot runner (%s)', (database) => {
  let ts: TestServer;
  const state = {
    calls: [] as GenerateInput[],
    /** Thrown by every provider call when set. */
    error: undefined as ProviderError | undefined,
    /** Runs at each provider call (1-based) before it answers. */
    onCall: undefined as ((n: number) => Promise<void>) | undefined,
    /** The faces the vision stub answers, in turn; then a matching one. */
    faces: [] as FaceEmbedding[],
  };
  const generator: ImageGenerator = {
    name: 'builtin',
    async generate(input): Promise<GenerateOutput> {
      state.calls.push(input);
      await state.onCall?.(state.calls.length);
      if (state.error) throw state.error;
      const data = await sharp({ create: { width: 64, height: 80, channels: 3, background: '#4a7bb0' } })
        .jpeg()
        .toBuffer();
      return {
        images: [{ data, width: input.imageSize.width, height: input.imageSize.height, contentType: 'image/jpeg', nsfw: false }],
        seed: input.seed,
      };
    },
  };

  beforeAll(async () => {
    const vision = { ...sharedTestVision(), faceEmbedding: async () => state.faces.shift() ?? MATCHING };
    ts = await startTestServer({ database, runtime: { generator, vision }, env: { INFERENCE_CONCURRENCY: '1' } });
  });
  afterAll(() => ts?.stop());
  beforeEach(() => Object.assign(state, { calls: [], error: undefined, onCall: undefined, faces: [] }));

  async function character(userId: string, opts: { reference?: boolean } = {}) {
    const [row] = await ts.rt.db
      .insert(loraTrainings)
      .values({
        userId,
        characterName: 'Mara',
        triggerWord: 'mara',
        gender: 'female',
        hairColor: 'red',
        status: 'COMPLETED',
        loraFileUrl: `/media/loras/${userId}/${randomUUID()}.json`,
        ...(opts.reference ? { referenceFace: [FACE_EMBEDDING.version, ...REFERENCE], referenceCheckedAt: new Date() } : {}),
      })
      .returning();
    return row;
  }

  const startShoot = async (client: TestClient, loraId: string) =>
    (await (await client.post('/api/shoots', { pack_id: linkedin.id, lora_id: loraId })).json()) as ShootView;
  const shootOf = async (client: TestClient, id: string) => (await (await client.get(`/api/shoots/${id}`)).json()) as ShootView;
  const ended = (client: TestClient, id: string) =>
    waitFor(`shoot ${id} ended`, async () => {
      const s = await shootOf(client, id);
      return s.status !== 'RUNNING' && s.photos.every((p) => p.status !== 'RUNNING' && p.status !== 'QUEUED') && s;
    });
  /** Holds the one inference slot (someone else's image) until the returned function is called. */
  function holdTheSlot(): () => Promise<void> {
    let free!: () => void;
    const held = ts.rt.generations.slots.run(`someone-${randomUUID()}`, () => new Promise<void>((resolve) => (free = resolve)));
    return async () => {
      free();
      await held;
    };
  }
  const claimedWaiting = (shootId: string) =>
    waitFor('a photo claimed and waiting for the slot', async () => {
      const rows = await ts.rt.db
        .select()
        .from(shootPhotos)
        .where(and(eq(shootPhotos.shootId, shootId), eq(shootPhotos.status, 'RUNNING')));
      return rows.length === 1 && rows[0].startedAt === null && rows[0];
    });

  it('a cancel ends and refunds a photo the runner claimed that still waits for its slot: it is never rendered', async () => {
    const { client, userId } = await ts.signUp({ credits: N * 10 });
    const mara = await character(userId);
    const freeTheSlot = holdTheSlot();
    const shoot = await startShoot(client, mara.id);
    const waiting = await claimedWaiting(shoot.id);
    let cancelled: ShootView;
    try {
      const res = await client.post(`/api/shoots/${shoot.id}/cancel`);
      expect(res.status).toBe(200);
      cancelled = (await res.json()) as ShootView;
    } finally {
      await freeTheSlot();
    }
    expect(cancelled.status).toBe('CANCELLED');
    expect(cancelled.photos.find((p) => p.id === waiting.id)?.status).toBe('CANCELLED');
    await waitFor('the runner let the photo go', async () => ts.rt.shootRunner.running() === 0);
    const final = await shootOf(client, shoot.id);
    expect(final.photos.map((p) => p.status)).toEqual(final.photos.map(() => 'CANCELLED'));
    expect(state.calls).toHaveLength(0);
    expect(await ts.rt.credits.balance(userId)).toBe(N * 10);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(N * 10);
  });

  it('counts every photo that starts before a queued one, of all shoots, in the order the runner takes them', async () => {
    const a = await ts.signUp({ credits: N * 10 });
    const b = await ts.signUp({ credits: N * 10 });
    const freeTheSlot = holdTheSlot();
    const first = await startShoot(a.client, (await character(a.userId)).id);
    // The runner claims A's first photo, which waits for the slot; then B is started.
    await claimedWaiting(first.id);
    const second = await startShoot(b.client, (await character(b.userId)).id);
    try {
      // The runner takes (position, queued_at): A0 (claimed, waiting), B0, A1, B1, … so B's photo k has A0…Ak and
      // B0…B(k-1) before it, and A's photo k has A0…A(k-1) and B0…B(k-1).
      const view = await shootOf(b.client, second.id);
      expect(view.photos.map((p) => p.ahead)).toEqual(view.photos.map((_, k) => 2 * k + 1));
      expect(view.photos[N - 1].ahead).toBe(2 * N - 1);
      const viewA = await shootOf(a.client, first.id);
      expect(viewA.photos.map((p) => p.ahead)).toEqual(viewA.photos.map((p, k) => (p.status === 'QUEUED' ? 2 * k : null)));
    } finally {
      await a.client.post(`/api/shoots/${first.id}/cancel`);
      await b.client.post(`/api/shoots/${second.id}/cancel`);
      await freeTheSlot();
      await waitFor('the runner let the photos go', async () => ts.rt.shootRunner.running() === 0);
    }
  });

  it("a save lost to another instance keeps the winner's image, though this run kept its re-take and discarded it", async () => {
    const { client, userId } = await ts.signUp({ credits: N * 10 });
    const mara = await character(userId, { reference: true });
    // The first photo's first take shows no face (a re-take); everything else matches.
    state.faces = [NO_FACE];
    let winner: { id: string; key: string } | undefined;
    state.onCall = async (n) => {
      if (n !== 2) return;
      // The re-take is at the provider: another instance that took the same photo over saves its first take
      // (same key: the photo's id) and ends the photo first.
      const [photo] = await ts.rt.db
        .select()
        .from(shootPhotos)
        .where(and(eq(shootPhotos.userId, userId), eq(shootPhotos.status, 'RUNNING')));
      const keys: string[] = [];
      for await (const o of ts.rt.storage.list(`generations/${userId}/`)) keys.push(o.key);
      expect(keys).toHaveLength(1);
      winner = { id: photo.id, key: keys[0] };
      await ts.rt.db
        .update(shootPhotos)
        .set({ status: 'SUCCEEDED', generationId: photo.id, imageUrl: mediaUrl(keys[0]), finishedAt: new Date(), leaseExpiresAt: null })
        .where(eq(shootPhotos.id, photo.id));
    };
    const shoot = await startShoot(client, mara.id);
    await ended(client, shoot.id);
    expect(winner).toBeDefined();
    expect(state.calls).toHaveLength(N + 1);
    // The winner's image is still there; this run's re-take, shown by nobody, is gone.
    expect(await ts.rt.storage.read(winner!.key)).not.toBeNull();
    const left: string[] = [];
    for await (const o of ts.rt.storage.list(`generations/${userId}/${winner!.id}`)) left.push(o.key);
    expect(left).toEqual([winner!.key]);
  });

  it('a photo the provider refuses shows fixed words, never the provider’s message (logged on the server)', async () => {
    const { client, userId } = await ts.signUp({ credits: N * 10 });
    const mara = await character(userId);
    state.error = new ProviderError('fal refused the credentials (HTTP 401); check FAL_KEY', 'rejected', 401);
    const refused = await ended(client, (await startShoot(client, mara.id)).id);
    expect(refused.photos.map((p) => p.error)).toEqual(refused.photos.map(() => 'The image service refused this photo; refunded.'));
    expect(await ts.rt.credits.balance(userId)).toBe(N * 10);
  });

  it('a photo the provider’s safety checker refuses reads as flagged', async () => {
    const { client, userId } = await ts.signUp({ credits: N * 10 });
    const mara = await character(userId);
    state.error = new ProviderError("fal's safety checker flagged the image", 'nsfw', 422);
    const flagged = await ended(client, (await startShoot(client, mara.id)).id);
    expect(flagged.photos.map((p) => p.error)).toEqual(flagged.photos.map(() => 'Flagged by the safety checker; refunded.'));
    expect(await ts.rt.credits.balance(userId)).toBe(N * 10);
  });

  it('a single image the provider refuses says so in fixed words, never the provider’s message', async () => {
    const { client } = await ts.signUp({ credits: 10 });
    state.error = new ProviderError('fal refused the credentials (HTTP 401); check FAL_KEY', 'rejected', 401);
    const res = await client.post('/api/image/generate-image', {
      prompt: 'a lighthouse',
      image_size: { width: 1024, height: 1024 },
      loras: [],
      num_inference_steps: 28,
      guidance_scale: 3.5,
      output_format: 'jpeg',
    });
    expect(res.status).toBe(422);
    expect((await res.json()).message).toBe('The image service refused this request. Your 10 credits were refunded.');
  });
});
