import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq, like } from 'drizzle-orm';
import pg from 'pg';
import sharp from 'sharp';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PackView, ShootSummary, ShootView } from '@common/photo-shoots.ts';
import { creditLedger, generations, loraTrainings, mailOutbox, photoShoots, shootPhotos } from '../../server/db/schema.ts';
import { ProviderError, type GenerateInput, type GenerateOutput, type ImageGenerator } from '../../server/providers/inference/index.ts';
import { readCatalogue, seedCatalogue } from '../../server/services/packs.service.ts';
import { shootsRepository } from '../../server/repositories/shoots.repository.ts';
import { spawnServerProcess } from '../helpers/server-process-control.ts';
import {
  createScratchDatabase,
  startTestServer,
  TEST_AUTH_SECRET,
  testDatabases,
  type TestClient,
  type TestServer,
} from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

type Mode = 'ok' | 'fail' | 'timeout' | 'nsfw';

/** A generator that paints a small JPEG, and can be told to fail, time out or flag every image. */
function createTestGenerator() {
  const state = { mode: 'ok' as Mode, delayMs: 0, calls: [] as GenerateInput[], failEvery: 0 };
  const generator: ImageGenerator = {
    name: 'builtin',
    async generate(input, opts): Promise<GenerateOutput> {
      state.calls.push(input);
      if (state.delayMs) {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, state.delayMs);
          opts?.signal?.addEventListener('abort', () => {
            clearTimeout(t);
            reject(new ProviderError('cancelled', 'cancelled'));
          });
        });
      }
      if (state.mode === 'fail' || (state.failEvery && state.calls.length % state.failEvery === 0))
        throw new ProviderError('upstream exploded', 'failed', 500);
      if (state.mode === 'timeout') throw new ProviderError('deadline passed', 'timeout');
      const data = await sharp({ create: { width: 64, height: 80, channels: 3, background: '#4a7bb0' } })
        .jpeg()
        .toBuffer();
      return {
        images: [
          { data, width: input.imageSize.width, height: input.imageSize.height, contentType: 'image/jpeg', nsfw: state.mode === 'nsfw' },
        ],
        seed: input.seed,
      };
    },
  };
  return { generator, state };
}

const catalogue = readCatalogue();
const linkedin = catalogue.packs.find((p) => p.id === 'linkedin-profile')!;
const N = linkedin.prompts.length;

describe.each(testDatabases())('photo shoots (%s)', (database) => {
  let ts: TestServer;
  const { generator, state } = createTestGenerator();

  beforeAll(async () => {
    ts = await startTestServer({ database, runtime: { generator }, env: { INFERENCE_CONCURRENCY: '2', JOB_LEASE_SECONDS: '2' } });
  });
  afterAll(() => ts?.stop());
  beforeEach(() => Object.assign(state, { mode: 'ok', delayMs: 0, calls: [], failEvery: 0 }));

  async function character(userId: string, status: 'COMPLETED' | 'IN_PROGRESS' | 'FAILED' = 'COMPLETED', name = 'Mara') {
    const [row] = await ts.rt.db
      .insert(loraTrainings)
      .values({
        userId,
        characterName: name,
        triggerWord: 'mara',
        gender: 'female',
        hairColor: 'red',
        status,
        loraFileUrl: status === 'COMPLETED' ? `/media/loras/${userId}/${randomUUID()}.json` : null,
      })
      .returning();
    return row;
  }

  const ledgerOf = (userId: string) => ts.rt.db.select().from(creditLedger).where(eq(creditLedger.userId, userId));
  async function expectBalance(userId: string, credits: number) {
    expect(await ts.rt.credits.balance(userId)).toBe(credits);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe(credits);
  }
  const shootOf = async (client: TestClient, id: string) => (await (await client.get(`/api/shoots/${id}`)).json()) as ShootView;
  const ended = (client: TestClient, id: string) =>
    waitFor(`shoot ${id} ended`, async () => {
      const s = await shootOf(client, id);
      return s.status !== 'RUNNING' && s.photos.every((p) => p.status !== 'RUNNING' && p.status !== 'QUEUED') && s;
    });

  it('seeds the catalogue idempotently: at least 12 packs of 8 to 20 prompts with every named category', async () => {
    const res = await ts.client().get('/api/photo-packs');
    expect(res.status).toBe(200);
    const { items } = (await res.json()) as { items: PackView[] };
    expect(items.length).toBeGreaterThanOrEqual(12);
    for (const pack of items) {
      expect(pack.photo_count).toBeGreaterThanOrEqual(8);
      expect(pack.photo_count).toBeLessThanOrEqual(20);
      expect(pack.cost).toBe(pack.photo_count * 10);
      expect(pack.prompts[0]).toMatch(/the person/);
    }
    expect(new Set(items.map((p) => p.category))).toEqual(
      new Set([
        'Corporate headshot',
        'LinkedIn profile',
        'Studio black & white',
        'Outdoor natural light',
        'Creative professional',
        'Doctor / medical',
        'Real estate agent',
        'Actor headshot',
        'Dating profile',
        'Travel',
        'Fitness',
        'Cinematic',
      ]),
    );
    // A second seed of the same version writes nothing; a new version updates; a dropped pack is hidden, not deleted.
    expect(await seedCatalogue(ts.rt.db, catalogue)).toEqual({ written: [], hidden: [] });
    const next = {
      version: catalogue.version + 1,
      packs: catalogue.packs.filter((p) => p.id !== 'fitness').map((p) => (p.id === 'travel' ? { ...p, name: 'Travel Diary' } : p)),
    };
    const report = await seedCatalogue(ts.rt.db, next);
    expect(report.hidden).toEqual(['fitness']);
    expect(report.written).toContain('travel');
    expect((await shootsRepository.findPack(ts.rt.db, 'fitness'))?.hidden).toBe(true);
    expect((await ts.client().get('/api/photo-packs/fitness')).status).toBe(404);
    expect((await (await ts.client().get('/api/photo-packs/travel')).json()).name).toBe('Travel Diary');
    // A hidden pack stays hidden when a later version lists it again (an operator's hide holds): `packs show` brings it back.
    await seedCatalogue(ts.rt.db, { ...catalogue, version: catalogue.version + 2 });
    expect((await shootsRepository.findPack(ts.rt.db, 'fitness'))?.hidden).toBe(true);
    await shootsRepository.setHidden(ts.rt.db, 'fitness', false);
  });

  it('debits N × 10 once with the shoot and N queued photos, lands each photo as a generation of the shoot, and zips them', async () => {
    const { client, userId } = await ts.signUp({ credits: N * 10 + 5 });
    const mara = await character(userId);
    const res = await client.post('/api/shoots', { pack_id: linkedin.id, lora_id: mara.id });
    expect(res.status).toBe(201);
    const started = (await res.json()) as ShootView;
    expect(started).toMatchObject({ status: 'RUNNING', photo_count: N, cost: N * 10, character_name: 'Mara', pack_name: linkedin.name });
    expect(started.photos).toHaveLength(N);
    expect(started.photos[0].prompt).toContain('mara, a woman');
    expect(started.photos[0].prompt).toContain('red hair');

    const done = await ended(client, started.id);
    expect(done.status).toBe('COMPLETED');
    expect(done.photos.every((p) => p.status === 'SUCCEEDED' && p.image_url)).toBe(true);
    // The list (the sidebar's progress) counts what landed.
    const { items } = (await (await client.get('/api/shoots')).json()) as { items: ShootSummary[] };
    expect(items.find((s) => s.id === started.id)).toMatchObject({ status: 'COMPLETED', ready: N, failed: 0 });
    // One 'shoot ready' mail, written in the transaction that ended the shoot.
    const mail = await ts.rt.db.select().from(mailOutbox).where(eq(mailOutbox.userId, userId));
    expect(mail.filter((m) => m.kind === 'shoot-ready').map((m) => m.dedupeKey)).toEqual([`shoot-ready:${started.id}`]);
    await expectBalance(userId, 5);
    const ledger = await ledgerOf(userId);
    expect(ledger.filter((l) => l.kind === 'debit').map((l) => l.delta)).toEqual([-N * 10]);
    expect(ledger.filter((l) => l.kind === 'refund')).toHaveLength(0);
    // Every photo is an ordinary generation that knows its shoot, made with the character's LoRA.
    const gens = await ts.rt.db.select().from(generations).where(eq(generations.shootId, started.id));
    expect(gens).toHaveLength(N);
    expect(gens.every((g) => g.loraId === mara.id)).toBe(true);
    expect(state.calls.every((c) => c.loras[0]?.path === mara.loraFileUrl)).toBe(true);
    const view = await (await client.get('/api/library/generations?page=1')).json();
    expect(view.total).toBe(N);

    const zip = await client.get(`/api/shoots/${started.id}/archive`);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-disposition')).toBe(`attachment; filename="mara-linkedin-profile.zip"`);
    const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    expect(Object.keys(files)).toEqual(Array.from({ length: N }, (_, i) => `${String(i + 1).padStart(2, '0')}.jpg`));
    expect((await sharp(Buffer.from(files['01.jpg'])).metadata()).format).toBe('jpeg');

    // Nobody else sees it, its photos or its ZIP.
    const other = await ts.signUp();
    expect((await other.client.get(`/api/shoots/${started.id}`)).status).toBe(404);
    expect((await other.client.get(`/api/shoots/${started.id}/archive`)).status).toBe(404);
    expect((await other.client.post(`/api/shoots/${started.id}/cancel`)).status).toBe(404);
    // Cancelling a finished shoot changes nothing.
    const late = await client.post(`/api/shoots/${started.id}/cancel`);
    expect(late.status).toBe(409);
    expect((await late.json()).message).toBe('This shoot has already finished; there is nothing to cancel.');
    await expectBalance(userId, 5);
  });

  it('downloads the ZIP of a character named in another script, under its own name and an ASCII one', async () => {
    const { client, userId } = await ts.signUp({ credits: N * 10 });
    const maria = await character(userId, 'COMPLETED', 'Мария');
    const started = (await (await client.post('/api/shoots', { pack_id: linkedin.id, lora_id: maria.id })).json()) as ShootView;
    await ended(client, started.id);
    const zip = await client.get(`/api/shoots/${started.id}/archive`);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-disposition')).toBe(
      `attachment; filename="linkedin-profile.zip"; filename*=UTF-8''${encodeURIComponent('мария-linkedin-profile.zip')}`,
    );
    expect(Object.keys(unzipSync(new Uint8Array(await zip.arrayBuffer())))).toHaveLength(N);
  });

  it('shows a photo deleted from My Generations as deleted: no image, not ready, not in the ZIP; back when restored', async () => {
    const { client, userId } = await ts.signUp({ credits: N * 10 });
    const mara = await character(userId);
    const started = (await (await client.post('/api/shoots', { pack_id: linkedin.id, lora_id: mara.id })).json()) as ShootView;
    const done = await ended(client, started.id);
    const [first, second] = done.photos;
    expect(first).toMatchObject({ status: 'SUCCEEDED', deleted: false });
    expect((await client.fetch(`/api/library/generations/${first.generation_id}`, { method: 'DELETE' })).status).toBeLessThan(300);

    const after = await shootOf(client, started.id);
    expect(after.photos[0]).toMatchObject({ status: 'SUCCEEDED', deleted: true, image_url: null, generation_id: null });
    expect(after.photos[1]).toMatchObject({ deleted: false, image_url: second.image_url });
    const { items } = (await (await client.get('/api/shoots')).json()) as { items: ShootSummary[] };
    expect(items.find((s) => s.id === started.id)).toMatchObject({ ready: N - 1 });
    const zip = unzipSync(new Uint8Array(await (await client.get(`/api/shoots/${started.id}/archive`)).arrayBuffer()));
    expect(Object.keys(zip)).toHaveLength(N - 1);
    expect(zip['01.jpg']).toBeUndefined();

    // Undo within its window brings it back.
    expect((await client.post(`/api/library/generations/${first.generation_id}/restore`)).status).toBe(200);
    expect((await shootOf(client, started.id)).photos[0]).toMatchObject({ deleted: false, image_url: first.image_url });
  });

  it('refunds each failed or refused photo exactly once, and a shoot where every photo times out is FAILED and fully refunded', async () => {
    const { client, userId } = await ts.signUp({ credits: N * 20 });
    const mara = await character(userId);
    state.failEvery = 3;
    const first = (await (await client.post('/api/shoots', { pack_id: linkedin.id, lora_id: mara.id })).json()) as ShootView;
    const done = await ended(client, first.id);
    const failed = done.photos.filter((p) => p.status === 'FAILED');
    expect(failed.length).toBeGreaterThan(0);
    expect(done.status).toBe('COMPLETED');
    expect(failed[0].error).toBe('This photo could not be made; refunded.');
    const refunds = (await ledgerOf(userId)).filter((l) => l.kind === 'refund');
    expect(refunds.map((r) => r.delta)).toEqual(failed.map(() => 10));
    await expectBalance(userId, N * 20 - (N - failed.length) * 10);

    state.failEvery = 0;
    state.mode = 'timeout';
    const before = await ts.rt.credits.balance(userId);
    const second = (await (await client.post('/api/shoots', { pack_id: linkedin.id, lora_id: mara.id })).json()) as ShootView;
    const timedOut = await ended(client, second.id);
    expect(timedOut.status).toBe('FAILED');
    expect(timedOut.photos.every((p) => p.status === 'FAILED' && p.error === 'The image service took too long; refunded.')).toBe(true);
    await expectBalance(userId, before);

    state.mode = 'nsfw';
    const third = (await (await client.post('/api/shoots', { pack_id: linkedin.id, lora_id: mara.id })).json()) as ShootView;
    const refused = await ended(client, third.id);
    expect(refused.photos.every((p) => p.error === 'Flagged by the safety checker; refunded.')).toBe(true);
    await expectBalance(userId, before);
  });

  it('cancel refunds the photos not started at once, lets running ones land, and a second cancel changes nothing', async () => {
    const { client, userId } = await ts.signUp({ credits: N * 10 });
    const mara = await character(userId);
    state.delayMs = 400;
    const shoot = (await (await client.post('/api/shoots', { pack_id: linkedin.id, lora_id: mara.id })).json()) as ShootView;
    await waitFor('a photo running', async () => (await shootOf(client, shoot.id)).photos.some((p) => p.status === 'RUNNING'));
    const res = await client.post(`/api/shoots/${shoot.id}/cancel`);
    expect(res.status).toBe(200);
    const cancelled = (await res.json()) as ShootView;
    expect(cancelled.status).toBe('CANCELLED');
    const notStarted = cancelled.photos.filter((p) => p.status === 'CANCELLED').length;
    expect(notStarted).toBeGreaterThanOrEqual(N - 2);
    const refunds = (await ledgerOf(userId)).filter((l) => l.kind === 'refund');
    expect(refunds.map((r) => r.delta)).toEqual([notStarted * 10]);
    const again = await client.post(`/api/shoots/${shoot.id}/cancel`);
    expect(again.status).toBe(409);
    expect((await again.json()).message).toBe('This shoot was already cancelled.');
    await waitFor('running photos landed', async () => (await shootOf(client, shoot.id)).photos.every((p) => p.status !== 'RUNNING'));
    const final = await shootOf(client, shoot.id);
    const landed = final.photos.filter((p) => p.status === 'SUCCEEDED').length;
    expect(landed + notStarted).toBe(N);
    await expectBalance(userId, notStarted * 10);
    // A ZIP of a cancelled shoot holds what landed.
    const files = unzipSync(new Uint8Array(await (await client.get(`/api/shoots/${shoot.id}/archive`)).arrayBuffer()));
    expect(Object.keys(files)).toHaveLength(landed);
  });

  it('refuses bad packs and characters with a clear message and charges nothing; a double click makes one shoot', async () => {
    const { client, userId } = await ts.signUp({ credits: 1000 });
    const mara = await character(userId);
    const training = await character(userId, 'IN_PROGRESS', 'Theo');
    const failedOne = await character(userId, 'FAILED', 'Ines');
    const stranger = await ts.signUp();
    const theirs = await character(stranger.userId, 'COMPLETED', 'Zed');
    // Deleted by its owner (within the Undo window): it says so, not that it is still training.
    const deleted = await character(userId, 'COMPLETED', 'Dana');
    expect((await client.fetch(`/api/trainings/${deleted.id}`, { method: 'DELETE' })).status).toBe(204);
    const cases: [unknown, number, string][] = [
      [{ pack_id: linkedin.id, lora_id: deleted.id }, 410, 'This character has been deleted. Choose another character.'],
      [{ pack_id: 'no-such-pack', lora_id: mara.id }, 404, 'That photo shoot is not available any more. Choose another one.'],
      [{ pack_id: linkedin.id, lora_id: theirs.id }, 403, 'That character is not one of yours. Choose one of your trained characters.'],
      [{ pack_id: linkedin.id, lora_id: randomUUID() }, 403, 'That character is not one of yours. Choose one of your trained characters.'],
      [{ pack_id: linkedin.id, lora_id: training.id }, 409, 'Theo is still training. Start the shoot when the training has completed.'],
      [
        { pack_id: linkedin.id, lora_id: failedOne.id },
        409,
        'The training of Ines failed, so it cannot be photographed. Choose another character.',
      ],
      [{ pack_id: linkedin.id, lora_id: 'nope' }, 400, ''],
      [{ pack_id: linkedin.id }, 400, ''],
    ];
    for (const [body, status, message] of cases) {
      const res = await client.post('/api/shoots', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      const json = await res.json();
      if (message) expect(json.message).toBe(message);
      else expect(json.message).toMatch(/lora_id/);
    }
    // A hidden pack, and a pack with no prompts.
    await shootsRepository.setHidden(ts.rt.db, 'cinematic', true);
    expect((await client.post('/api/shoots', { pack_id: 'cinematic', lora_id: mara.id })).status).toBe(404);
    await shootsRepository.setHidden(ts.rt.db, 'cinematic', false);
    await shootsRepository.upsertPack(
      ts.rt.db,
      {
        id: 'empty-pack',
        name: 'Empty',
        description: 'x',
        category: 'Travel',
        aspectRatio: '1:1',
        width: 1024,
        height: 1024,
        source: 'operator',
      },
      [],
    );
    const empty = await client.post('/api/shoots', { pack_id: 'empty-pack', lora_id: mara.id });
    expect(empty.status).toBe(422);
    expect((await empty.json()).message).toBe('The Empty shoot has no photos yet. Choose another one.');
    await shootsRepository.setHidden(ts.rt.db, 'empty-pack', true);
    // Too few credits: the ledger's message, nothing written.
    const poor = await ts.signUp({ credits: 50 });
    const poorMara = await character(poor.userId);
    const broke = await client.fetch('/api/shoots', {}); // GET list still works
    expect(broke.status).toBe(200);
    const refused = await poor.client.post('/api/shoots', { pack_id: linkedin.id, lora_id: poorMara.id });
    expect(refused.status).toBe(402);
    expect((await refused.json()).message).toBe(`This needs ${N * 10} credits; you have 50.`);
    expect(await ts.rt.db.select().from(photoShoots).where(eq(photoShoots.userId, poor.userId))).toHaveLength(0);
    await expectBalance(userId, 1000);

    // Double click: two requests at once make one shoot and one debit.
    state.delayMs = 200;
    const [a, b] = await Promise.all([
      client.post('/api/shoots', { pack_id: linkedin.id, lora_id: mara.id }),
      client.post('/api/shoots', { pack_id: linkedin.id, lora_id: mara.id }),
    ]);
    const ids = [(await a.json()).id, (await b.json()).id];
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(ids[0]).toBe(ids[1]);
    expect((await ledgerOf(userId)).filter((l) => l.kind === 'debit')).toHaveLength(1);
    await client.post(`/api/shoots/${ids[0]}/cancel`);
  });

  it('a retry with the same request id (its answer lost) answers the first shoot: one shoot, one debit', async () => {
    const { client, userId } = await ts.signUp({ credits: 1000 });
    const mara = await character(userId);
    const body = { pack_id: linkedin.id, lora_id: mara.id, request_id: randomUUID() };
    const first = await client.post('/api/shoots', body);
    expect(first.status).toBe(201);
    const retry = await client.post('/api/shoots', body);
    expect(retry.status).toBe(200);
    const shootId = (await first.json()).id;
    expect((await retry.json()).id).toBe(shootId);
    expect(await ts.rt.db.select().from(photoShoots).where(eq(photoShoots.userId, userId))).toHaveLength(1);
    expect((await ledgerOf(userId)).filter((l) => l.kind === 'debit')).toHaveLength(1);
    await client.post(`/api/shoots/${shootId}/cancel`);
  });

  it("a request id is the caller's own: another account's request or shoot id neither finds nor blocks anything", async () => {
    const ann = await ts.signUp({ credits: 1000 });
    const ben = await ts.signUp({ credits: 1000 });
    const [annsMara, bensMara] = [await character(ann.userId), await character(ben.userId)];
    const requestId = randomUUID();
    const annsStart = await ann.client.post('/api/shoots', { pack_id: linkedin.id, lora_id: annsMara.id, request_id: requestId });
    expect(annsStart.status).toBe(201);
    const annsShoot = (await annsStart.json()).id;
    // Ben's Start with the same request id, and with Ann's shoot id as his request id: each a new shoot of his.
    for (const key of [requestId, annsShoot]) {
      const res = await ben.client.post('/api/shoots', { pack_id: linkedin.id, lora_id: bensMara.id, request_id: key });
      expect(res.status).toBe(201);
      const shoot = await res.json();
      expect(shoot.id).not.toBe(annsShoot);
      expect(shoot.photos).toHaveLength(N);
      // And his retry finds his own.
      const retry = await ben.client.post('/api/shoots', { pack_id: linkedin.id, lora_id: bensMara.id, request_id: key });
      expect(retry.status).toBe(200);
      expect((await retry.json()).id).toBe(shoot.id);
      await ben.client.post(`/api/shoots/${shoot.id}/cancel`);
    }
    expect((await ledgerOf(ben.userId)).filter((l) => l.kind === 'debit')).toHaveLength(2);
    // Ann's shoot and her balance are untouched by any of it.
    expect((await ledgerOf(ann.userId)).filter((l) => l.kind === 'debit')).toHaveLength(1);
    expect(await ts.rt.db.select().from(photoShoots).where(eq(photoShoots.userId, ann.userId))).toHaveLength(1);
    await ann.client.post(`/api/shoots/${annsShoot}/cancel`);
  });

  it('answers an id that is not a uuid (36 dashes, 36 hex digits) with 404, not a 500 from the uuid cast', async () => {
    const { client } = await ts.signUp();
    for (const id of ['-'.repeat(36), 'a'.repeat(36), '0123456789abcdef0123456789abcdef0123', 'nope']) {
      for (const res of [
        await client.get(`/api/shoots/${id}`),
        await client.post(`/api/shoots/${id}/cancel`),
        await client.get(`/api/shoots/${id}/archive`),
      ]) {
        expect(res.status, `${res.url}`).toBe(404);
        expect((await res.json()).message).toBe('There is no such photo shoot.');
      }
    }
  });

  it('shares the inference slots: a single generation of someone else is not queued behind a whole shoot', async () => {
    const { client, userId } = await ts.signUp({ credits: N * 10 });
    const other = await ts.signUp({ credits: 10 });
    const mara = await character(userId);
    state.delayMs = 300;
    const shoot = (await (await client.post('/api/shoots', { pack_id: linkedin.id, lora_id: mara.id })).json()) as ShootView;
    await waitFor('shoot running', async () => (await shootOf(client, shoot.id)).photos.some((p) => p.status === 'RUNNING'));
    const res = await other.client.post('/api/image/generate-image', {
      prompt: 'a lighthouse',
      image_size: { width: 1024, height: 1024 },
      loras: [],
      num_inference_steps: 28,
      guidance_scale: 3.5,
      output_format: 'jpeg',
    });
    expect(res.status).toBe(200);
    const meanwhile = await shootOf(client, shoot.id);
    // With 2 slots and 300 ms a photo the shoot takes ~N/2 × 300 ms; the single image waited for one photo, not the shoot.
    expect(meanwhile.photos.filter((p) => p.status === 'QUEUED').length).toBeGreaterThan(2);
    await ended(client, shoot.id);
  });
});

describe('photo shoots across instances', () => {
  it('two instances with one killed mid-shoot finish every photo exactly once', async () => {
    const scratch = await createScratchDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'likeness-shoot-'));
    const env = {
      DATABASE_URL: scratch.url,
      AUTH_SECRET: TEST_AUTH_SECRET,
      DATA_DIR: dataDir,
      JOB_LEASE_SECONDS: '2',
      INFERENCE_CONCURRENCY: '2',
    };
    const doomed = await spawnServerProcess({ ...env, TEST_GENERATION_DELAY_MS: '1500' });
    const { generator, state } = createTestGenerator();
    state.delayMs = 1500;
    const survivor = await startTestServer({
      databaseUrl: scratch.url,
      dataDir,
      runtime: { generator },
      env: { JOB_LEASE_SECONDS: '2', INFERENCE_CONCURRENCY: '2', S3_BUCKET: '' },
    });
    try {
      const { client, userId } = await survivor.signUp({ credits: N * 10 });
      const [mara] = await survivor.rt.db
        .insert(loraTrainings)
        .values({ userId, characterName: 'Mara', triggerWord: 'mara', status: 'COMPLETED', loraFileUrl: `/media/loras/${userId}/x.json` })
        .returning();
      // Started on the doomed instance, so it claims the first photos.
      const doomedClient = new (client.constructor as typeof TestClient)(doomed.url);
      Object.assign(doomedClient, { cookies: (client as unknown as { cookies: Map<string, string> }).cookies });
      const res = await doomedClient.post('/api/shoots', { pack_id: linkedin.id, lora_id: mara.id });
      expect(res.status).toBe(201);
      const shootId = (await res.json()).id as string;
      const doomedId = await waitFor('the doomed instance holds photos', async () => {
        const rows = await survivor.rt.db
          .select()
          .from(shootPhotos)
          .where(and(eq(shootPhotos.shootId, shootId), eq(shootPhotos.status, 'RUNNING')));
        return rows.find((r) => r.leaseOwner && r.leaseOwner !== survivor.rt.leases.owner)?.leaseOwner;
      });
      doomed.kill('SIGKILL');
      await doomed.exited;
      const done = await waitFor(
        'every photo ended',
        async () => {
          const rows = await survivor.rt.db.select().from(shootPhotos).where(eq(shootPhotos.shootId, shootId));
          return rows.every((r) => r.status === 'SUCCEEDED') && rows;
        },
        60_000,
      );
      expect(done).toHaveLength(N);
      expect(done.some((r) => r.attempts > 1)).toBe(true);
      expect(done.filter((r) => r.leaseOwner === doomedId && r.status !== 'SUCCEEDED')).toHaveLength(0);
      const gens = await survivor.rt.db.select().from(generations).where(eq(generations.shootId, shootId));
      expect(gens).toHaveLength(N);
      expect(new Set(gens.map((g) => g.id)).size).toBe(N);
      // The shoot ends just after its last photo, in the runner's next step.
      const shoot = await waitFor('the shoot ended', async () => {
        const [row] = await survivor.rt.db.select().from(photoShoots).where(eq(photoShoots.id, shootId));
        return row.status !== 'RUNNING' && row;
      });
      expect(shoot.status).toBe('COMPLETED');
      const ledger = await survivor.rt.db
        .select()
        .from(creditLedger)
        .where(and(eq(creditLedger.userId, userId), like(creditLedger.idempotencyKey, '%shoot%')));
      expect(ledger.map((l) => l.delta)).toEqual([-N * 10]);
      expect(await survivor.rt.credits.ledgerSum(userId)).toBe(0);
    } finally {
      doomed.kill('SIGKILL');
      await survivor.stop();
      await scratch.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a photo failing while its shoot is cancelled (postgres)', () => {
  let ts: TestServer;
  let calls = 0;
  let failFirst: () => void = () => {};
  const firstMayFail = new Promise<void>((resolve) => (failFirst = resolve));
  const { generator: painter } = createTestGenerator();
  // The first photo waits at the provider until the test lets it fail; the others land.
  const generator: ImageGenerator = {
    name: 'builtin',
    async generate(input, opts) {
      if (++calls === 1) {
        await firstMayFail;
        throw new ProviderError('upstream exploded', 'failed', 500);
      }
      return painter.generate(input, opts);
    },
  };
  beforeAll(async () => {
    ts = await startTestServer({
      database: 'postgres',
      runtime: { generator },
      env: { INFERENCE_CONCURRENCY: '1', JOB_LEASE_SECONDS: '2' },
    });
  });
  afterAll(() => ts?.stop());

  it('ends both: the failure refunds its photo, the cancel the photos not started, with no deadlock', async () => {
    const { client, userId } = await ts.signUp({ credits: N * 10 });
    const [mara] = await ts.rt.db
      .insert(loraTrainings)
      .values({ userId, characterName: 'Mara', triggerWord: 'mara', status: 'COMPLETED', loraFileUrl: `/media/loras/${userId}/m.json` })
      .returning();
    const shoot = (await (await client.post('/api/shoots', { pack_id: linkedin.id, lora_id: mara.id })).json()) as ShootView;
    await waitFor('the first photo at the provider', async () => calls === 1);
    // Another paid action of the person holds their row for a moment, so that the failure's refund and the
    // cancel's both wait for it and then race for the rest.
    const other = new pg.Client({ connectionString: ts.rt.config.DATABASE_URL });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select 1 from users where id = $1 for update', [userId]);
      failFirst();
      await new Promise((resolve) => setTimeout(resolve, 400));
      const cancelling = client.post(`/api/shoots/${shoot.id}/cancel`);
      await new Promise((resolve) => setTimeout(resolve, 400));
      await other.query('rollback');
      const res = await cancelling;
      expect(res.status).toBe(200);
    } finally {
      await other.end();
    }
    const final = await waitFor('every photo ended', async () => {
      const s = (await (await client.get(`/api/shoots/${shoot.id}`)).json()) as ShootView;
      return s.photos.every((p) => p.status !== 'QUEUED' && p.status !== 'RUNNING') && s;
    });
    expect(final.status).toBe('CANCELLED');
    expect(final.photos[0].status).toBe('FAILED');
    // A photo the runner started between the failure and the cancel lands; the others were cancelled.
    const landed = final.photos.filter((p) => p.status === 'SUCCEEDED').length;
    expect(landed + final.photos.filter((p) => p.status === 'CANCELLED').length).toBe(N - 1);
    // Every other credit back: the failed photo's 10 and the photos not started in the cancel's refund.
    expect(await ts.rt.credits.balance(userId)).toBe((N - landed) * 10);
    expect(await ts.rt.credits.ledgerSum(userId)).toBe((N - landed) * 10);
  });
});
