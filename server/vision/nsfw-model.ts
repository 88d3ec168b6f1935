import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { RgbImage } from './colours.ts';
import { loadHuman, releaseWeightFiles, type HumanTf } from './human-model.ts';
import type { NsfwScores } from './types.ts';

/**
 * nsfwjs's MobileNetV2Mid classifier, run inside the vision worker on the TensorFlow that human already
 * loaded (its node-wasm build requires @tensorflow/tfjs-core from node_modules, so there is one engine and
 * one WASM backend for every model).
 *
 * nsfwjs ships its models inside the package as scripts holding base64 text, and its own loader converts
 * that text byte by byte (5.6 s and ~270 MB here). The model files are read by path instead (the package's
 * exports map does not list them) and decoded with Buffer (0.2 s, ~40 MB); the graph model then needs only
 * tfjs-converter, which human brings. Preprocessing is nsfwjs's own (classifierInput): scale to 0..1, bilinear
 * resize to 224 × 224 with aligned corners.
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
    // Each file is required once and dropped from require's cache: its text is not needed once decoded.
    const once = (file: string): unknown => {
      const path = join(MODEL_DIR, file);
      const exported: unknown = require(path);
      delete require.cache[path];
      return exported;
    };
    const modelJson = once('model.min.js') as ModelJson;
    const shards = modelJson.weightsManifest.flatMap((group) =>
      group.paths.map((path) => Buffer.from(once(`${path}.min.js`) as string, 'base64')),
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
    releaseWeightFiles([model]);
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

/**
 * The classifier's input as nsfwjs makes it (0..1, bilinear resize to 224 × 224 with aligned corners, as
 * tf.image.resizeBilinear computes it), computed here from the decoded pixels: in the WASM backend the full-size
 * copies that resize needs (the photo as integers, as floats, divided) grew its heap, which never shrinks, by
 * ~30 MB for one 1 MP photo.
 */
export function classifierInput(img: RgbImage): Float32Array {
  const out = new Float32Array(INPUT_SIZE * INPUT_SIZE * 3);
  const scaleY = (img.height - 1) / (INPUT_SIZE - 1);
  const scaleX = (img.width - 1) / (INPUT_SIZE - 1);
  for (let y = 0; y < INPUT_SIZE; y++) {
    const sy = y * scaleY;
    const y0 = Math.floor(sy);
    const y1 = Math.min(img.height - 1, Math.ceil(sy));
    const dy = sy - y0;
    for (let x = 0; x < INPUT_SIZE; x++) {
      const sx = x * scaleX;
      const x0 = Math.floor(sx);
      const x1 = Math.min(img.width - 1, Math.ceil(sx));
      const dx = sx - x0;
      for (let c = 0; c < 3; c++) {
        const at = (yy: number, xx: number) => img.data[(yy * img.width + xx) * 3 + c]!;
        const top = at(y0, x0) + (at(y0, x1) - at(y0, x0)) * dx;
        const bottom = at(y1, x0) + (at(y1, x1) - at(y1, x0)) * dx;
        out[(y * INPUT_SIZE + x) * 3 + c] = (top + (bottom - top) * dy) / 255;
      }
    }
  }
  return out;
}

/** The five class probabilities nsfwjs reports for an image (they sum to 1). */
export async function nsfwScores(img: RgbImage): Promise<NsfwScores> {
  const { tf, model } = await loadClassifier();
  const input = tf.tensor(classifierInput(img), [1, INPUT_SIZE, INPUT_SIZE, 3], 'float32');
  try {
    const output = model.predict(input);
    const p = await output.data();
    output.dispose();
    // nsfwjs's class order (dist/cjs/nsfw_classes.js).
    return { drawing: p[0] ?? 0, hentai: p[1] ?? 0, neutral: p[2] ?? 0, porn: p[3] ?? 0, sexy: p[4] ?? 0 };
  } finally {
    input.dispose();
  }
}
