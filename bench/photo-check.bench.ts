import { loadavg } from 'node:os';
import sharp from 'sharp';
import { createVisionAnalyser } from '../server/vision/analyser.ts';
import { megapixelPhoto, portraitPhoto, PORTRAITS } from '../tests/helpers/photos.ts';
import { startTestServer, type TestClient } from '../tests/helpers/server.ts';
import { percentile } from './stats.ts';

/** Targets: one photo check warm on 1 MP p50 ≤ 300 ms; 20 photos end to end ≤ 5 s wall on 2 cores. */
const TARGET_CHECK_MS = 300;
const TARGET_TWENTY_MS = 5000;
const RUNS = 20;
/** The page checks two photos at a time (src/features/training/hooks/use-photo-checks.ts). */
const PAGE_CONCURRENCY = 2;

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const verdict = (ms: number, target: number) => (ms <= target ? 'ok' : 'OVER TARGET');

/**
 * Twenty different ~1 MP photos as the page sends them (JPEG copies at most 1024 px): the sample photos' real
 * detail (so the upload is a real copy's size), each portrait over the party photo's background.
 */
async function twentyPhotos(): Promise<Buffer[]> {
  const scene = await megapixelPhoto();
  const out: Buffer[] = [];
  for (let i = 0; i < 20; i++) {
    const portrait = await sharp(await portraitPhoto(PORTRAITS[i % PORTRAITS.length]!))
      .extract({ left: 200, top: 180, width: 240, height: 240 })
      .toBuffer();
    const background = i % 2 ? sharp(scene).flop() : sharp(scene);
    out.push(
      await background
        .composite([{ input: portrait, left: 100 + 40 * i, top: 120 }])
        .jpeg({ quality: 88 })
        .toBuffer(),
    );
  }
  return out;
}

async function checkOverHttp(client: TestClient, photo: Buffer): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(photo)]), 'photo.jpg');
  const res = await client.fetch('/api/trainings/check-photo', { method: 'POST', body: form });
  if (res.status !== 200) throw new Error(`check-photo answered ${res.status}: ${await res.text()}`);
  await res.json();
}

export async function run(): Promise<void> {
  console.log(
    `photo-check: load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (2 cores)`,
  );
  const before = process.memoryUsage().rss;
  const analyser = createVisionAnalyser({ timeoutMs: 120_000 });
  const photo = await megapixelPhoto();
  try {
    // human's models alone (what captions use), then the NSFW classifier too (what photo checks add).
    await analyser.analyse(photo);
    const humanOnly = process.memoryUsage().rss;
    await analyser.warm();
    await analyser.check(photo);
    const both = process.memoryUsage().rss;

    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await analyser.check(photo);
      times.push(performance.now() - t);
    }
    const p50 = percentile(times, 50);
    const meta = await sharp(photo).metadata();
    console.log(
      `photo-check: one photo, ${meta.width}×${meta.height} (${((meta.width! * meta.height!) / 1e6).toFixed(1)} MP), warm: median ${Math.round(p50)} ms, p95 ${Math.round(percentile(times, 95))} ms of ${RUNS} (target ≤ ${TARGET_CHECK_MS} ms) ${verdict(p50, TARGET_CHECK_MS)}`,
    );
    const afterRuns = process.memoryUsage();
    console.log(
      `photo-check: vision worker memory: rss +${mb(humanOnly - before)} with human's models, +${mb(both - before)} with the NSFW classifier too, +${mb(afterRuns.rss - before)} after ${RUNS} checks (process rss ${mb(afterRuns.rss)})`,
    );
  } finally {
    await analyser.close();
  }

  // End to end: the page's 20 copies over HTTP to a server whose analyser is warm, two at a time.
  const ts = await startTestServer();
  try {
    const { client } = await ts.signUp();
    await ts.rt.vision.warm();
    await ts.rt.vision.check(photo);
    const photos = await twentyPhotos();
    const t = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: PAGE_CONCURRENCY }, async () => {
        while (next < photos.length) await checkOverHttp(client, photos[next++]!);
      }),
    );
    const wall = performance.now() - t;
    const kb = Math.round(photos.reduce((s, p) => s + p.length, 0) / photos.length / 1024);
    console.log(
      `photo-check: 20 photos checked end to end over HTTP (${kb} KB each, ${PAGE_CONCURRENCY} at a time): ${(wall / 1000).toFixed(2)} s wall (target ≤ ${TARGET_TWENTY_MS / 1000} s) ${verdict(wall, TARGET_TWENTY_MS)}`,
    );
  } finally {
    await ts.stop();
  }
  console.log(
    `photo-check: load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}
