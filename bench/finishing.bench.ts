import { cpus, loadavg } from 'node:os';
import { renderImage } from '../server/providers/inference/builtin-generator.ts';
import { createBuiltinFinisher } from '../server/providers/inference/builtin-finisher.ts';
import type { ImageFinisher, ImageGenerator } from '../server/providers/inference/index.ts';
import { zeroLatencyGenerator } from './zero-latency-server.ts';
import { startTestServer, type TestClient, type TestDatabaseKind } from '../tests/helpers/server.ts';
import { onBothDatabases, percentile, renderRequest } from './stats.ts';

/** Targets: built-in 2× upscale of a 1024² image p50 ≤ 400 ms; upscale/edit overhead within 10 % of a generation's. */
const UPSCALE_TARGET_P50_MS = 400;
const OVERHEAD_TARGET = 1.1;
const UPSCALE_RUNS = 30;
const ROUNDS = 400;

const generateBody = {
  prompt: 'portrait of a woman in a sunlit cafe, soft window light',
  image_size: { width: 1024, height: 1024 },
  num_inference_steps: 28,
  guidance_scale: 3.5,
  output_format: 'jpeg',
};

/** The built-in upscale as the server runs it: decode, Lanczos to 2048², unsharp mask, JPEG encode. */
async function measureUpscale(image: Buffer): Promise<number[]> {
  const finisher = createBuiltinFinisher({ generator: { name: 'builtin', generate: () => Promise.reject(new Error('unused')) } });
  const input = {
    image: { data: image, contentType: 'image/jpeg', width: 1024, height: 1024 },
    factor: 2,
    prompt: 'x',
    seed: 1,
    outputFormat: 'jpeg',
  } as const;
  for (let i = 0; i < 3; i++) await finisher.upscale(input);
  const times: number[] = [];
  for (let i = 0; i < UPSCALE_RUNS; i++) {
    const t = performance.now();
    await finisher.upscale(input);
    times.push(performance.now() - t);
  }
  return times;
}

/**
 * Providers that answer at once with the same ready-made image: what is left is the server's own work (for
 * upscale and edit that includes reading the source from storage and checking ownership and size).
 */
function zeroLatency(image: Buffer): { generator: ImageGenerator; finisher: ImageFinisher } {
  const output = (width: number, height: number, seed: number) => ({
    images: [{ data: image, width, height, contentType: 'image/jpeg', nsfw: false }],
    seed,
  });
  return {
    generator: zeroLatencyGenerator(image),
    finisher: {
      name: 'builtin',
      upscale: async (req) => output(req.image.width * req.factor, req.image.height * req.factor, req.seed),
      edit: async (req) => output(req.imageSize.width, req.imageSize.height, req.seed),
    },
  };
}

async function timed(client: TestClient, path: string, body: unknown): Promise<number> {
  const t = performance.now();
  const res = await client.post(path, body);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  return performance.now() - t;
}

interface Row {
  database: string;
  kind: string;
  p50: number;
  p99: number;
  ratio: number;
}

async function measureOverhead(database: TestDatabaseKind, image: Buffer): Promise<Row[]> {
  const ts = await startTestServer({ database, runtime: zeroLatency(image) });
  try {
    const { client } = await ts.signUp({ credits: 10_000_000 });
    const source = await (await client.post('/api/image/generate-image', generateBody)).json();
    const sourceId = source.generation.id as string;
    const calls = {
      generate: () => timed(client, '/api/image/generate-image', generateBody),
      upscale: () => timed(client, '/api/image/upscale', { generation_id: sourceId, factor: 2 }),
      edit: () => timed(client, '/api/image/edit', { ...generateBody, source_id: sourceId, strength: 0.6 }),
    };
    const times: Record<keyof typeof calls, number[]> = { generate: [], upscale: [], edit: [] };
    for (let i = 0; i < 15; i++) for (const call of Object.values(calls)) await call();
    // Interleaved, so a busy moment of the machine falls on all three alike.
    for (let i = 0; i < ROUNDS; i++) for (const [kind, call] of Object.entries(calls)) times[kind as keyof typeof calls].push(await call());
    const base = percentile(times.generate, 50);
    return (Object.keys(calls) as (keyof typeof calls)[]).map((kind) => ({
      database,
      kind,
      p50: percentile(times[kind], 50),
      p99: percentile(times[kind], 99),
      ratio: percentile(times[kind], 50) / base,
    }));
  } finally {
    await ts.stop();
  }
}

export async function run(): Promise<void> {
  const image = await renderImage(renderRequest(generateBody.prompt, 7));

  const upscale = await measureUpscale(image);
  const p50 = percentile(upscale, 50);
  console.log(
    `finishing: built-in 2× upscale of a 1024² JPEG (Lanczos-3 + 3×3 unsharp mask, JPEG out), ${UPSCALE_RUNS} runs: ` +
      `p50 ${p50.toFixed(0)} ms, p99 ${percentile(upscale, 99).toFixed(0)} ms` +
      (p50 <= UPSCALE_TARGET_P50_MS ? '  ok' : '  OVER TARGET') +
      ` (p50 ≤ ${UPSCALE_TARGET_P50_MS} ms)`,
  );
  // The figure depends on what else the machine runs: the target is for 2 otherwise idle cores.
  console.log(`finishing: load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores while measured`);

  const rows = await onBothDatabases('finishing', (database) => measureOverhead(database, image));
  console.log(
    `finishing: server overhead, zero-latency providers, 1 user back-to-back, ${ROUNDS} interleaved rounds (p50 relative to generate-image)`,
  );
  console.log(
    `  ${'database'.padEnd(9)} ${'request'.padEnd(10)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'vs generate'.padStart(12)}`,
  );
  for (const r of rows) {
    const verdict = r.kind === 'generate' ? '' : r.ratio <= OVERHEAD_TARGET ? '  ok' : '  OVER TARGET';
    console.log(
      `  ${r.database.padEnd(9)} ${r.kind.padEnd(10)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${`${((r.ratio - 1) * 100).toFixed(1)}%`.padStart(12)}${verdict}`,
    );
  }
}
