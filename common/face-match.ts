/**
 * Whether two faces are the same person, from the face embeddings the vision worker's description model
 * gives (server/vision/face-embedding.ts). Shared so the page's badge and the server's re-check agree.
 */

/**
 * Similarity (0..1) from which two faces count as the same person. Provisional: to be measured on the
 * evaluation set (bench/photo-check.bench.ts).
 */
export const FACE_MATCH = 0.6;

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
