import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { RgbImage } from './colours.ts';
import { loadHuman, type HumanTf } from './human-model.ts';
import type { NsfwScores } from './types.ts';

/**
 * nsfwjs's MobileNetV2Mid classifier, run inside the vision worker on the TensorFlow that human already
 * loaded (its node-wasm build requires @tensorflow/tfjs-core from node_modules, so there is one engine and
 * one WASM backend for every model).
 *
 * nsfwjs ships its models inside the package as scripts holding base64 text, and its own loader converts
 * that text byte by byte (5.6 s and ~270 MB here). The model files are read by path instead (the package's
 * exports map does not list them) and decoded with Buffer (0.2 s, ~40 MB); the graph model then needs only
 * tfjs-converter, which human brings. Preprocessing is nsfwjs's own: scale to 0..1, bilinear resize to
 * 224 × 224 with aligned corners.
 */

const require = createRequire(import.meta.url);
const nsfwDist = join(dirname(require.resolve('nsfwjs')), '..');
const MODEL_DIR = join(nsfwDist, 'models', 'mobilenet_v2_mid');
const INPUT_SIZE = 224;

interface ModelJson {
  modelTopology: unknown;
  format?: string;
  weightsManifest: { paths: string[]; weights: unknown[] }[];
}

type Classifier = { tf: HumanTf; model: { predict(x: unknown): ReturnType<HumanTf['cast']> } };
let loading: Promise<Classifier> | undefined;

function loadClassifier(): Promise<Classifier> {
  loading ??= (async () => {
    const { tf } = await loadHuman();
    const modelJson = require(join(MODEL_DIR, 'model.min.js')) as ModelJson;
    const shards = modelJson.weightsManifest.flatMap((group) =>
      group.paths.map((path) => Buffer.from(require(join(MODEL_DIR, `${path}.min.js`)) as string, 'base64')),
    );
    const weights = Buffer.concat(shards);
    const model = await tf.loadGraphModel(
      tf.io.fromMemory({
        modelTopology: modelJson.modelTopology,
        format: modelJson.format,
        weightSpecs: modelJson.weightsManifest.flatMap((group) => group.weights),
        weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
      }),
    );
    return { tf, model };
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** Loads the classifier now (warm-up, benchmarks). */
export async function loadNsfwModel(): Promise<void> {
  await loadClassifier();
}

/** The five class probabilities nsfwjs reports for an image (they sum to 1). */
export async function nsfwScores(img: RgbImage): Promise<NsfwScores> {
  const { tf, model } = await loadClassifier();
  const input = tf.tensor(img.data, [1, img.height, img.width, 3], 'int32');
  try {
    const output = tf.tidy(() =>
      model.predict(tf.image.resizeBilinear(tf.div(tf.cast(input, 'float32'), 255), [INPUT_SIZE, INPUT_SIZE], true)),
    );
    const p = await output.data();
    output.dispose();
    // nsfwjs's class order (dist/cjs/nsfw_classes.js).
    return { drawing: p[0] ?? 0, hentai: p[1] ?? 0, neutral: p[2] ?? 0, porn: p[3] ?? 0, sexy: p[4] ?? 0 };
  } finally {
    input.dispose();
  }
}
