import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { generations, loraTrainings, photoShoots, shootPhotos } from '../server/db/schema.ts';
import { renderImage } from '../server/providers/inference/builtin-generator.ts';
import { zeroLatencyGenerator } from './zero-latency-server.ts';
import { mediaUrl } from '../server/providers/storage/index.ts';
import { importPacks } from '../server/services/packs.service.ts';
import { buildBuiltinLora } from '../server/providers/inference/builtin-lora.ts';
import { portraitPhoto, PORTRAITS } from '../tests/helpers/photos.ts';
import { startTestServer, type TestDatabaseKind, type TestServer } from '../tests/helpers/server.ts';
import { onBothDatabases, percentile, printTable, renderRequest, streamedDownload } from './stats.ts';

/**
 * Targets: starting a 20-photo shoot p99 ≤ 30 ms on Postgres (zero-latency provider); a 20-photo
 * shoot with the built-in engine ≤ 1.2 × 20 single generations back to back; a 100-photo ZIP grows RSS ≤ 30 MB.
 */
const START_P99_MS = 30;
const STARTS = 100;
const WALL_RATIO = 1.2;
const ZIP_PHOTOS = 100;
const ZIP_RSS_MB = 30;

const BENCH_PACK = {
  id: 'bench-twenty',
  name: 'Bench Twenty',
  description: 'Twenty studio headshots (benchmark).',
  category: 'Corporate headshot',
  aspect_ratio: '1:1' as const,
  prompts: Array.from(
    { length: 20 },
    (_, i) => `studio headshot of {subject} with {hair}, navy blazer, gray backdrop, 85mm lens, variation ${i + 1}`,
  ),
};

/** A COMPLETED character with a real built-in LoRA file (from a portrait), so the engine paints its face. */
async function character(ts: TestServer, userId: string) {
  const key = `loras/${userId}/bench.json`;
  await ts.rt.storage.put(
    key,
    await buildBuiltinLora({ images: [await portraitPhoto(PORTRAITS[0]!)], characterName: 'Bench', triggerWord: 'bench' }),
    'application/json',
  );
  const [row] = await ts.rt.db
    .insert(loraTrainings)
    .values({
      userId,
      characterName: 'Bench',
      triggerWord: 'bench',
      gender: 'female',
      hairColor: 'brown',
      status: 'COMPLETED',
      loraFileUrl: mediaUrl(key),
    })
    .returning();
  return row;
}

async function waitEnded(ts: TestServer, shootId: string): Promise<void> {
  for (;;) {
    const [s] = await ts.rt.db.select({ status: photoShoots.status }).from(photoShoots).where(eq(photoShoots.id, shootId));
    if (s.status !== 'RUNNING') return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function measureStart(database: TestDatabaseKind, image: Buffer) {
  const ts = await startTestServer({ database, runtime: { generator: zeroLatencyGenerator(image) } });
  try {
    await importPacks(ts.rt.db, { version: 1, packs: [BENCH_PACK] });
    const { client, userId } = await ts.signUp({ credits: 10_000_000 });
    const mara = await character(ts, userId);
    const times: number[] = [];
    for (let i = 0; i < STARTS + 10; i++) {
      const t = performance.now();
      // As the SPA sends it: one request id per click (the same pack twice within seconds is otherwise a double click).
      const res = await client.post('/api/shoots', { pack_id: BENCH_PACK.id, lora_id: mara.id, request_id: randomUUID() });
      await res.arrayBuffer();
      if (res.status !== 201) throw new Error(`POST /api/shoots answered ${res.status}`);
      if (i >= 10) times.push(performance.now() - t);
    }
    return [
      {
        database,
        starts: STARTS,
        p50: `${percentile(times, 50).toFixed(1)} ms`,
        p99: `${percentile(times, 99).toFixed(1)} ms`,
        target: database === 'postgres' ? `≤ ${START_P99_MS} ms` : '-',
      },
    ];
  } finally {
    await ts.stop();
  }
}

async function measureWallTime() {
  const ts = await startTestServer({ database: 'pglite' });
  try {
    await importPacks(ts.rt.db, { version: 1, packs: [BENCH_PACK] });
    const { client, userId } = await ts.signUp({ credits: 10_000 });
    const mara = await character(ts, userId);
    const t1 = performance.now();
    for (const [i, prompt] of BENCH_PACK.prompts.entries()) {
      const res = await client.post('/api/image/generate-image', {
        prompt: prompt.replace('{subject}', 'bench woman').replace('{hair}', 'brown hair'),
        image_size: { width: 1024, height: 1024 },
        loras: [{ path: mara.loraFileUrl, scale: 1 }],
        seed: 1000 + i,
        num_inference_steps: 28,
        guidance_scale: 3.5,
        output_format: 'jpeg',
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`generate-image answered ${res.status}`);
    }
    const singles = performance.now() - t1;
    const t2 = performance.now();
    const res = await client.post('/api/shoots', { pack_id: BENCH_PACK.id, lora_id: mara.id });
    const shoot = (await res.json()) as { id: string };
    await waitEnded(ts, shoot.id);
    const wall = performance.now() - t2;
    return {
      singles: `${(singles / 1000).toFixed(1)} s`,
      shoot: `${(wall / 1000).toFixed(1)} s`,
      ratio: (wall / singles).toFixed(2),
      target: `≤ ${WALL_RATIO}`,
      concurrency: ts.rt.config.INFERENCE_CONCURRENCY,
    };
  } finally {
    await ts.stop();
  }
}

async function measureZip(image: Buffer) {
  const ts = await startTestServer({ database: 'pglite' });
  try {
    const { client, userId } = await ts.signUp({ credits: 10 });
    const mara = await character(ts, userId);
    const shootId = randomUUID();
    await ts.rt.db.insert(photoShoots).values({
      id: shootId,
      userId,
      packId: 'linkedin-profile',
      loraId: mara.id,
      packName: 'Bench',
      characterName: 'Bench',
      status: 'COMPLETED',
      photoCount: ZIP_PHOTOS,
      cost: 0,
    });
    for (let i = 0; i < ZIP_PHOTOS; i++) {
      const id = randomUUID();
      const key = `generations/${userId}/${id}.jpeg`;
      // Each photo distinct bytes, so nothing is shared between entries.
      const data = Buffer.concat([image, Buffer.from(id)]);
      await ts.rt.storage.put(key, data, 'image/jpeg');
      await ts.rt.db.insert(generations).values({ id, userId, prompt: 'p', width: 1024, height: 1024, imageUrl: mediaUrl(key), shootId });
      await ts.rt.db.insert(shootPhotos).values({
        id,
        shootId,
        userId,
        position: i,
        prompt: 'p',
        width: 1024,
        height: 1024,
        seed: 1,
        status: 'SUCCEEDED',
        generationId: id,
        imageUrl: mediaUrl(key),
      });
    }
    return {
      photos: ZIP_PHOTOS,
      ...(await streamedDownload(client, `/api/shoots/${shootId}/archive`)),
      target: `≤ ${ZIP_RSS_MB} MB`,
    };
  } finally {
    await ts.stop();
  }
}

export async function run(): Promise<void> {
  const image = await renderImage(renderRequest('studio headshot of a woman with brown hair, navy blazer', 7));
  console.log('Starting a 20-photo shoot (one request; zero-latency provider):');
  printTable(await onBothDatabases('photo-shoots', (db) => measureStart(db, image)));
  console.log('\nA 20-photo shoot with the built-in engine vs 20 single generations back to back (PGlite):');
  printTable([await measureWallTime()]);
  console.log('\nStreaming a 100-photo ZIP (server and client in this process):');
  printTable([await measureZip(image)]);
}
