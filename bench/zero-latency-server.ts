/**
 * The server the request-cost probes run: Postgres (BENCH_DATABASE_URL, TEST_DATABASE_URL or the local one) and a
 * generator that answers at once with one pre-rendered image, as in `npm run bench generate`.
 */
import { renderImage } from '../server/providers/inference/builtin-generator.ts';
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

export async function startZeroLatencyServer() {
  process.env.TEST_DATABASE_URL =
    process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const image = await renderImage(renderRequest(GENERATE_BODY.prompt, 7));
  return startTestServer({
    database: 'postgres',
    runtime: {
      generator: {
        name: 'builtin',
        async generate(req) {
          return {
            images: [{ data: image, width: req.imageSize.width, height: req.imageSize.height, contentType: 'image/jpeg', nsfw: false }],
            seed: req.seed,
          };
        },
      },
    },
  });
}
