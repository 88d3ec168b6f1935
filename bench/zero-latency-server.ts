/**
 * The generator the benches answer generations with at once (one pre-rendered image), and the server the
 * request-cost probes run with it on Postgres (BENCH_DATABASE_URL, TEST_DATABASE_URL or the local one).
 */
import { renderImage } from '../server/providers/inference/builtin-generator.ts';
import type { ImageGenerator } from '../server/providers/inference/index.ts';
import { startTestServer } from '../tests/helpers/server.ts';
import { renderRequest } from './stats.ts';

/** The generate-image request every probe sends. */
export const GENERATE_BODY = {
  prompt: 'portrait of a woman in a sunlit cafe',
  image_size: { width: 1024, height: 1024 },
  num_inference_steps: 28,
  guidance_scale: 3.5,
  output_format: 'jpeg',
};

/** A generator that answers at once with `image`: what is left of a generation is the server's own work. */
export function zeroLatencyGenerator(image: Buffer): ImageGenerator {
  return {
    name: 'builtin',
    async generate(req) {
      return {
        images: [{ data: image, width: req.imageSize.width, height: req.imageSize.height, contentType: 'image/jpeg', nsfw: false }],
        seed: req.seed,
      };
    },
  };
}

export async function startZeroLatencyServer() {
  process.env.TEST_DATABASE_URL =
    process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const image = await renderImage(renderRequest(GENERATE_BODY.prompt, 7));
  return startTestServer({ database: 'postgres', runtime: { generator: zeroLatencyGenerator(image) } });
}
