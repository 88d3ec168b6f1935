/**
 * The likeness check (docs/decisions/017-likeness-check.md): every finished image made with a character is
 * held against the character's reference face. The server scores, both adapters show the same fields, and
 * the SPA words them with the texts below.
 */

export type LikenessVerdict = 'strong' | 'weak' | 'no_face';
export const LIKENESS_VERDICTS: readonly LikenessVerdict[] = ['strong', 'weak', 'no_face'];

/** A check's outcome as stored on the generation: likeness 0–100 (0 without a face) and its verdict. */
export interface LikenessScore {
  likeness: number;
  verdict: LikenessVerdict;
}

export const LIKENESS = {
  /**
   * Likeness (the face similarity × 100, rounded) from which a photo counts as a strong likeness. A photo is held
   * against a reference, the mean of the person's agreeing photos, which is more like each of their photos than
   * one photo is like another, so this is not the photo check's pairwise FACE_MATCH (0.55). Measured on the
   * evaluation set's tuning half (bench/photo-eval/embeddings.ts): each of its man's 10 photos against a reference
   * from his other 9 measured 0.73–0.90, and the 35 other people's photos against those 10 references (350 pairs)
   * 0.25–0.52, so every value from 53 to 73 tells all of them apart; 63 is the middle. How well it separates the
   * held-out half's same-person pairs from its different-person pairs is what `npm run bench -- likeness` prints.
   */
  strongFrom: 63,
  /** A shoot re-takes at most ⌈N / 4⌉ of its N photos for likeness. */
  retakeShare: 4,
  /** A generation whose check failed (the vision worker crashed or timed out) is tried again this often, then left unscored. */
  maxChecks: 3,
} as const;

/** The likeness on the API's 0–100 scale of a face similarity (0..1). */
export function likenessOf(similarity: number): number {
  if (!Number.isFinite(similarity)) return 0;
  return Math.max(0, Math.min(100, Math.round(similarity * 100)));
}

/** A checked image's score: no single face is 'no_face'; otherwise strong from LIKENESS.strongFrom. */
export function scoreLikeness(similarity: number | null): LikenessScore {
  if (similarity === null) return { likeness: 0, verdict: 'no_face' };
  const likeness = likenessOf(similarity);
  return { likeness, verdict: likeness >= LIKENESS.strongFrom ? 'strong' : 'weak' };
}

/** A shoot photo judged this is taken again once (when the shoot's cap allows). */
export const needsRetake = (score: LikenessScore | null) => score !== null && score.verdict !== 'strong';

/** The most re-takes a shoot of `photoCount` photos may spend. */
export const retakeCap = (photoCount: number) => Math.ceil(photoCount / LIKENESS.retakeShare);

/**
 * Which of a photo and its re-take to keep: the higher score; a tie or an unscored re-take keeps the first
 * (it is the photo the person paid for).
 */
export function keepRetake(first: LikenessScore | null, retake: LikenessScore | null): boolean {
  if (!retake) return false;
  if (!first) return true;
  const rank = (s: LikenessScore) => (s.verdict === 'no_face' ? -1 : s.likeness);
  return rank(retake) > rank(first);
}

export const LIKENESS_TEXTS = {
  badge: { strong: 'Strong likeness', weak: 'Weak likeness', no_face: 'No face found' } satisfies Record<LikenessVerdict, string>,
  hint: (name: string) => `This doesn't look much like ${name}. Try again with another seed.`,
  filter: 'Weak likeness',
  retaken: (n: number) => `${n} re-taken for likeness`,
  /** Where the badge would be, for a character without a reference face (its photos did not agree). */
  noReference: 'No likeness check: its training photos showed different people',
} as const;

/** The verdicts the 'Weak likeness' filter of My Generations shows (a faceless photo misses the person too). */
export const WEAK_VERDICTS: readonly LikenessVerdict[] = ['weak', 'no_face'];
