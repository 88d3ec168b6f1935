import { createVisionAnalyser } from '../server/vision/analyser.ts';
import { detailedCaption, fastCaption } from '../server/vision/describe.ts';
import { createBuiltinCaptioner } from '../server/providers/inference/builtin-captioner.ts';
import { megapixelPhoto } from '../tests/helpers/photos.ts';
import { percentile } from './stats.ts';

/** Targets: builtin Fast ≤ 1.5 s and Detailed ≤ 4 s on a 1-megapixel photo, warm. */
const TARGET_MS = { fast: 1500, detailed: 4000 } as const;
const RUNS = 5;

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/** Builtin captions, warm, on a real ~1 MP photo; and the process memory once the models are loaded. */
export async function run(): Promise<void> {
  const photo = await megapixelPhoto();
  const analyser = createVisionAnalyser({ timeoutMs: 120_000 });
  const captioner = createBuiltinCaptioner(analyser);
  try {
    const before = process.memoryUsage();
    const loadStart = performance.now();
    await analyser.warm();
    // The first image also compiles each model's kernels; it is the cold run, not measured below.
    await captioner.caption({ image: photo, contentType: 'image/jpeg', detail: 'fast' });
    const coldMs = performance.now() - loadStart;
    const after = process.memoryUsage();

    for (const detail of ['fast', 'detailed'] as const) {
      const times: number[] = [];
      let text = '';
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        text = await captioner.caption({ image: photo, contentType: 'image/jpeg', detail });
        times.push(performance.now() - t);
      }
      const ms = percentile(times, 50);
      const verdict = ms <= TARGET_MS[detail] ? 'ok' : 'OVER TARGET';
      console.log(
        `vision: builtin ${detail} caption, 1 MP, warm: median ${Math.round(ms)} ms of ${RUNS} (target ≤ ${TARGET_MS[detail]} ms) ${verdict}`,
      );
      console.log(`  "${text.length > 160 ? `${text.slice(0, 157)}...` : text}"`);
    }
    const a = await analyser.analyse(photo);
    console.log(
      `vision: one analysis = decode ${a.timings.decodeMs} ms + models ${a.timings.detectMs} ms (sentences: ${fastCaption(a).length + detailedCaption(a).length} chars)`,
    );
    console.log(`vision: models loaded and first image in ${Math.round(coldMs)} ms`);
    console.log(
      `vision: process memory after loading: rss ${mb(after.rss)} (was ${mb(before.rss)}), heap ${mb(after.heapUsed)}, external ${mb(after.external)}`,
    );
  } finally {
    await analyser.close();
  }
}
