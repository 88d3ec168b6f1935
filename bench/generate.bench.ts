import { renderImage } from '../server/providers/inference/builtin-generator.ts';
import type { GenerateImageResponse } from '../common/generation.ts';
import { thumbUrl } from '../common/media.ts';
import { startTestServer, type TestClient, type TestDatabaseKind, type TestServer } from '../tests/helpers/server.ts';
import { runUsers, type Phase } from './generate-users.ts';
import { onBothDatabases, percentile, renderRequest } from './stats.ts';
import { zeroLatencyGenerator } from './zero-latency-server.ts';

/**
 * Targets of the server's own work on a generation, on Postgres (zero-latency provider): one user back to back
 * p50 ≤ 3 ms; 32 users at a person's pace p99 ≤ 10 ms; every user back to back ≥ 400 requests/s with p99 ≤ 100 ms.
 */
const TARGETS = {
  single: { p50: 3 },
  paced: { p99: 10 },
  saturated: { perSecond: 400, p99: 100 },
} as const;
export const USERS = 32;
const SEQUENTIAL_REQUESTS = 200;
const ROUNDS_PER_USER = 6;
/**
 * A user's requests run one at a time and a real provider takes 2–4 s per image (contracts/fal.md), so 32
 * users generating without pause send one request each per ~2 s at most: the production load of 32 users.
 */
export const USER_PACE_MS = 2000;
/**
 * Long enough to be a steady state: with 8 a user (0.5 s in all) the timed window was mostly the moment all 32
 * users fire at once, and its slowest few requests were the p99.
 */
export const SATURATION_REQUESTS_PER_USER = 24;
const GRID_CARDS = 40;

const request = {
  prompt: 'portrait of a woman in a sunlit cafe, soft window light',
  image_size: { width: 1024, height: 1024 },
  num_inference_steps: 28,
  guidance_scale: 3.5,
  output_format: 'jpeg',
};

/** Sign-up hashes a password (~1.3 s of CPU each), so users are made a few at a time before timing starts. */
export async function makeUsers(ts: TestServer, count: number): Promise<TestClient[]> {
  const clients: TestClient[] = [];
  while (clients.length < count) {
    const batch = await Promise.all(Array.from({ length: Math.min(4, count - clients.length) }, () => ts.signUp({ credits: 100_000 })));
    clients.push(...batch.map((u) => u.client));
  }
  return clients;
}

/** One figure: plain data, as it comes back from the process that measured it. */
interface Row {
  database: string;
  load: string;
  requests: number;
  p50: number;
  p99: number;
  /** The machine's load average when the figure was taken. */
  machine: string;
  target: string;
  met: boolean;
}

async function measureOverhead(database: TestDatabaseKind, image: Buffer): Promise<Row[]> {
  const ts = await startTestServer({ database, runtime: { generator: zeroLatencyGenerator(image) } });
  try {
    const clients = await makeUsers(ts, USERS);
    const { single, paced, saturated } = await runUsers({
      url: ts.url,
      cookies: clients.map((client) => client.cookieHeader()),
      body: request,
      sequentialRequests: SEQUENTIAL_REQUESTS,
      pacedRounds: ROUNDS_PER_USER,
      paceMs: USER_PACE_MS,
      saturationRequestsPerUser: SATURATION_REQUESTS_PER_USER,
    });
    const throughput = saturated.times.length / saturated.seconds;
    const row = (load: string, phase: Phase, target: string, met: (p50: number, p99: number) => boolean): Row => {
      const p50 = percentile(phase.times, 50);
      const p99 = percentile(phase.times, 99);
      return { database, load, requests: phase.times.length, p50, p99, machine: phase.load, target, met: met(p50, p99) };
    };
    const { single: s, paced: p, saturated: z } = TARGETS;
    return [
      row('1 user, back-to-back', single, `p50 ≤ ${s.p50} ms`, (p50) => p50 <= s.p50),
      row(`${USERS} users, 1 req / ${USER_PACE_MS / 1000} s each`, paced, `p99 ≤ ${p.p99} ms`, (_, p99) => p99 <= p.p99),
      row(
        `${USERS} users, back-to-back (${Math.round(throughput)} req/s)`,
        saturated,
        `≥ ${z.perSecond} req/s, p99 ≤ ${z.p99} ms`,
        (_, p99) => throughput >= z.perSecond && p99 <= z.p99,
      ),
    ];
  } finally {
    await ts.stop();
  }
}

/**
 * Bytes a 40-card grid downloads: full images versus 384-px WebP thumbnails (first render and cached). The
 * images are real generations of the built-in engine, read by their owner as the grid reads them.
 */
async function measureGrid(): Promise<string[]> {
  const ts = await startTestServer({});
  try {
    const { client } = await ts.signUp({ credits: 100_000 });
    const urls: string[] = [];
    for (let i = 0; i < GRID_CARDS; i++) {
      const res = await client.post('/api/image/generate-image', {
        ...request,
        prompt: `scene ${i}: mountain lake at dawn, a hiker in a red coat`,
      });
      if (res.status !== 200) throw new Error(`generate-image answered ${res.status}`);
      urls.push(((await res.json()) as GenerateImageResponse).images[0].url);
    }
    const fetchAll = async (paths: string[]) => {
      const t = performance.now();
      let bytes = 0;
      for (const path of paths) {
        const res = await client.get(path);
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
        bytes += (await res.arrayBuffer()).byteLength;
      }
      return { bytes, ms: performance.now() - t };
    };
    const thumbs = urls.map((url) => thumbUrl(url, 384));
    const full = await fetchAll(urls);
    const firstThumbs = await fetchAll(thumbs);
    const cachedThumbs = await fetchAll(thumbs);
    const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;
    return [
      `generate: ${GRID_CARDS}-card grid page, 1024×1024 jpeg originals: full images ${kb(full.bytes)}, ` +
        `384-px WebP thumbnails ${kb(firstThumbs.bytes)} (${((100 * firstThumbs.bytes) / full.bytes).toFixed(1)}% of full)`,
      `generate: thumbnails rendered on first view in ${Math.round(firstThumbs.ms / GRID_CARDS)} ms each, ` +
        `then served from storage in ${(cachedThumbs.ms / GRID_CARDS).toFixed(1)} ms each`,
    ];
  } finally {
    await ts.stop();
  }
}

export async function run(): Promise<void> {
  const image = await renderImage(renderRequest(request.prompt, 7));
  const rows = await onBothDatabases('generate', (database) => measureOverhead(database, image));

  console.log('generate: POST /api/image/generate-image server overhead (zero-latency provider, loopback HTTP, image stored)');
  console.log(
    `  ${'database'.padEnd(9)} ${'load'.padEnd(40)} ${'requests'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}  ${'machine'.padEnd(18)}`,
  );
  for (const r of rows) {
    const verdict = r.database === 'postgres' ? `  ${r.met ? 'ok' : 'OVER TARGET'} (${r.target})` : '';
    console.log(
      `  ${r.database.padEnd(9)} ${r.load.padEnd(40)} ${String(r.requests).padStart(8)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)}  ${r.machine.padEnd(18)}${verdict}`,
    );
  }
  for (const line of await measureGrid()) console.log(line);
}
