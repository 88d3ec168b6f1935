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
  const { data, width, height } = img;
  const out = new Float32Array(INPUT_SIZE * INPUT_SIZE * 3);
  // Each output column's two source columns (as byte offsets in a row) and its weight, computed once.
  const left = new Int32Array(INPUT_SIZE);
  const right = new Int32Array(INPUT_SIZE);
  const dxs = new Float32Array(INPUT_SIZE);
  const scaleX = (width - 1) / (INPUT_SIZE - 1);
  for (let x = 0; x < INPUT_SIZE; x++) {
    const sx = x * scaleX;
    left[x] = Math.floor(sx) * 3;
    right[x] = Math.min(width - 1, Math.ceil(sx)) * 3;
    dxs[x] = sx - Math.floor(sx);
  }
  const scaleY = (height - 1) / (INPUT_SIZE - 1);
  let k = 0;
  for (let y = 0; y < INPUT_SIZE; y++) {
    const sy = y * scaleY;
    const top = Math.floor(sy) * width * 3;
    const bottom = Math.min(height - 1, Math.ceil(sy)) * width * 3;
    const dy = sy - Math.floor(sy);
    for (let x = 0; x < INPUT_SIZE; x++) {
      const dx = dxs[x]!;
      for (let c = 0; c < 3; c++) {
        const tl = data[top + left[x]! + c]!;
        const tr = data[top + right[x]! + c]!;
        const bl = data[bottom + left[x]! + c]!;
        const br = data[bottom + right[x]! + c]!;
        const upper = tl + (tr - tl) * dx;
        const lower = bl + (br - bl) * dx;
        out[k++] = (upper + (lower - upper) * dy) / 255;
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
