import type { PhotoProblem } from '@common/photo-check';

/** What photos with each problem do, for one photo and for several ('may not show the same person'). */
const SAID: Record<PhotoProblem, readonly [one: string, many: string]> = {
  'not-allowed': ['is not allowed', 'are not allowed'],
  unreadable: ["can't be read", "can't be read"],
  'too-large': ['is too large', 'are too large'],
  'too-small': ['is too small', 'are too small'],
  duplicate: ['is a copy of another photo', 'are copies of other photos'],
  'no-face': ['shows no face', 'show no face'],
  'several-people': ['shows more than one person', 'show more than one person'],
  'different-person': ['may not show the same person', 'may not show the same person'],
  'face-too-small': ['shows the face too small', 'show the face too small'],
  'too-dark': ['is too dark', 'are too dark'],
  'too-bright': ['is too bright', 'are too bright'],
  blurry: ['is blurry', 'are blurry'],
};

/**
 * The one question Start Training asks when checked photos have problems (issue 54 item 5): '2 photos may not
 * show the same person — train anyway?' when they share a problem, else '3 photos have problems — train anyway?'.
 */
export function problemQuestion(problems: readonly PhotoProblem[]): string {
  const n = problems.length;
  const photos = n === 1 ? '1 photo' : `${n} photos`;
  const kinds = new Set(problems);
  const [only] = kinds;
  const said = kinds.size === 1 && only ? SAID[only][n === 1 ? 0 : 1] : n === 1 ? 'has a problem' : 'have problems';
  return `${photos} ${said} — train anyway?`;
}
