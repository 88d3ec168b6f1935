/**
 * Whether two faces are the same person, from the face embeddings the vision worker's description model
 * gives (server/vision/face-embedding.ts). Shared so the page's badge and the server's re-check agree.
 */

/**
 * Similarity (0..1) from which two faces count as the same person. Measured on the evaluation set's tuning half
 * (bench/photo-eval): the 45 pairs of one man's 10 photos measured 0.49–0.86 (median 0.66), the 945 pairs of
 * different people 0.17–0.70 (median 0.36, 95 % under 0.52). From 0.53, 43 of the 45 same-person pairs
 * (95.6 %) are accepted and 96.2 % of the different-person pairs told apart; the two overlap, so no value
 * reaches both fully (0.50: 97.8 % and 93.1 %; 0.55: 88.9 % and 97.4 %). `npm run bench -- photo-check` prints
 * both shares on the held-out half.
 */
export const FACE_MATCH = 0.53;

/**
 * Cosine similarity of two face embeddings, clamped to 0..1 (the description model's embeddings are
 * non-negative, so unrelated faces sit near 0.5, not below 0). 0 when either is empty or their lengths differ.
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
