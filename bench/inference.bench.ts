import { renderImage } from '../server/providers/inference/builtin-generator.ts';
import { ms, percentile, printTable, renderRequest } from './stats.ts';

/** Target: the built-in engine renders a 1024×1024 JPEG in ≤ 150 ms. */
const TARGET_MS = 150;
const RUNS = 30;

/** People in every framing, weather and light, interiors, and scenes without a person. */
const PROMPTS = [
  'a woman in a red coat walking through a snowy city street at night',
  'professional headshot of a man in a navy blazer and white shirt, grey backdrop',
  'a girl in a yellow raincoat with an umbrella on a rainy street, full body',
  'an elderly man with glasses reading in a cozy library',
  'a blonde woman in an emerald dress on a tropical beach at sunset',
  'snowy mountains under a blue sky',
  'misty forest in the morning',
];

/** Built-in engine render time, warm, across scene kinds, people and seeds (one render at a time). */
export async function run(): Promise<void> {
  const request = (i: number) => renderRequest(PROMPTS[i % PROMPTS.length]!, 1000 + i);
  // Warm-up: sharp's first SVG render loads fonts and librsvg.
  await renderImage(request(0));
  const times: number[] = [];
  // CPU time too: on a shared machine the wall clock also counts other processes' work.
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    await renderImage(request(i));
    times.push(performance.now() - started);
    const used = process.cpuUsage(cpuStarted);
    cpu.push((used.user + used.system) / 1000);
  }
  const p50 = percentile(times, 50);
  const p99 = percentile(times, 99);
  printTable([
    {
      measure: 'builtin render 1024×1024 jpeg',
      runs: RUNS,
      p50: ms(p50),
      p99: ms(p99),
      'cpu p50': ms(percentile(cpu, 50)),
      target: `p50 ≤ ${TARGET_MS} ms`,
      met: p50 <= TARGET_MS ? 'yes' : 'NO',
    },
  ]);
}
