import { describe, expect, it } from 'vitest';
import {
  acrossPhotos,
  PHOTO_PROBLEM_HINTS,
  countedPeople,
  duplicateOf,
  faceEvidenceHolds,
  isSamePhoto,
  landmarksInPlace,
  meshEvidenceHolds,
  PHOTO_CHECK,
  PHOTO_PROBLEMS,
  photoBadge,
  photoSummary,
  trainingPolicyRefusal,
  type PhotoProblem,
} from './photo-check.ts';

const UPRIGHT = { rightEye: [0.33, 0.38], leftEye: [0.67, 0.38], nose: [0.5, 0.58], mouth: [0.5, 0.75] } as const;
const face = (over: Partial<Parameters<typeof faceEvidenceHolds>[0]> = {}) => ({
  box: [0.3, 0.2, 0.3, 0.25] as const,
  score: 0.9,
  meshScore: 0.99,
  landmarks: UPRIGHT,
  embedding: [0.6, 0.8],
  faceness: 0.6 as number | null,
  ...over,
});

describe('training photo verdicts', () => {
  it('badges the first problem in the fixed order, or Good', () => {
    expect(photoBadge({ problems: [] })).toBe('Good');
    expect(photoBadge({ problems: ['blurry'] })).toBe('Blurry');
    expect(photoBadge({ problems: ['blurry'] }, { sameAs: 2 })).toBe('Same as photo 2');
    expect(photoBadge({ problems: ['several-people'] }, { sameAs: 2 })).toBe('More than one person');
    // Another person's face comes after 'More than one person' and before the copy.
    expect(photoBadge({ problems: ['blurry'] }, { sameAs: 2, differentPerson: true })).toBe('Not the same person');
    expect(photoBadge({ problems: ['several-people'] }, { differentPerson: true })).toBe('More than one person');
    expect(PHOTO_PROBLEM_HINTS['different-person']).toBe('Most of your photos show someone else. Use photos of one person only.');
    expect(photoBadge({ problems: ['too-small'] })).toBe('Too small (at least 512 px)');
    expect(photoBadge({ problems: ['unreadable'] })).toBe("Can't be read");
  });

  it('reads each problem once: the hint after the badge adds to it and never repeats it', () => {
    const words = (text: string) =>
      text
        .replace(/\(.*\)/, '')
        .toLowerCase()
        .replace(/\bwas\b/g, '')
        .split(/[^a-z0-9']+/)
        .filter(Boolean);
    // A one-word badge must not be in its hint; a longer one shares no two words in a row with it.
    const phrases = (badge: string) => {
      const w = words(badge);
      return w.length === 1 ? w : w.slice(1).map((word, i) => `${w[i]} ${word}`);
    };
    for (const problem of PHOTO_PROBLEMS) {
      const badge = photoBadge({ problems: problem === 'duplicate' ? [] : [problem] }, problem === 'duplicate' ? { sameAs: 2 } : undefined);
      const hint = ` ${words(PHOTO_PROBLEM_HINTS[problem]).join(' ')} `;
      for (const phrase of phrases(badge)) expect(hint, `${badge}. ${PHOTO_PROBLEM_HINTS[problem]}`).not.toContain(` ${phrase} `);
    }
    // The sentence the issue quoted reads once now.
    expect(`${photoBadge({ problems: ['no-face'] })}. ${PHOTO_PROBLEM_HINTS['no-face']}`).toBe(
      'No face found. Use a photo where the face is clearly visible, turned towards the camera.',
    );
  });

  it('finds the earlier photo a photo repeats, within a few bits', () => {
    expect(isSamePhoto('ffff0000ffff0000', 'ffff0000ffff003f')).toBe(true); // 6 bits apart
    expect(isSamePhoto('ffff0000ffff0000', 'ffff0000ffff007f')).toBe(false); // 7 bits apart
    expect(isSamePhoto(null, null)).toBe(false);
    expect(duplicateOf(['ffff0000ffff0000', null, '0f0f0f0f0f0f0f0f', 'ffff0000ffff0001', '0f0f0f0f0f0f0f0f'])).toEqual([
      null,
      null,
      null,
      1,
      3,
    ]);
  });

  it('compares each photo with the others: copies of an earlier one, and a face most others do not match', () => {
    const dana = [1, 0, 0];
    const alex = [0, 1, 0];
    const check = (hash: string | null, embedding: number[] | null, problems: PhotoProblem[] = []) => ({ problems, hash, embedding });
    expect(
      acrossPhotos([
        check('ffff0000ffff0000', dana),
        check('0f0f0f0f0f0f0f0f', dana),
        null,
        check('ffff0000ffff0001', dana),
        check('00ff00ff00ff00ff', alex),
        check(null, null),
        // A face too dark or too small to measure is neither accused nor counted.
        check('0000ffff0000ffff', alex, ['too-dark']),
        check('ff00ff00ff00ff00', alex, ['face-too-small']),
      ]),
    ).toEqual([
      { sameAs: null, differentPerson: false },
      { sameAs: null, differentPerson: false },
      { sameAs: null, differentPerson: false },
      { sameAs: 1, differentPerson: false },
      { sameAs: null, differentPerson: true },
      { sameAs: null, differentPerson: false },
      { sameAs: null, differentPerson: false },
      { sameAs: null, differentPerson: false },
    ]);
  });

  it('summarises the photos in words', () => {
    expect(photoSummary({ total: 12, good: 10, problems: 2, pending: 0 })).toBe('12 photos: 10 good, 2 with problems');
    expect(photoSummary({ total: 5, good: 3, problems: 1, pending: 1 })).toBe('5 photos: 3 good, 1 with a problem, 1 being checked');
    expect(photoSummary({ total: 1, good: 1, problems: 0, pending: 0 })).toBe('1 photo: 1 good');
    expect(photoSummary({ total: 6, good: 5, problems: 1, pending: 0, differentPeople: true })).toBe(
      '6 photos: 5 good, 1 with a problem, photos show different people',
    );
  });

  it('refuses NSFW photos by number first, then too few photos of one person', () => {
    const good = { problems: [], faces: 1 };
    const nsfw = { problems: ['not-allowed' as const], faces: 1 };
    const group = { problems: ['several-people' as const], faces: 3 };
    expect(trainingPolicyRefusal([good, good, good, good])).toBeNull();
    expect(trainingPolicyRefusal([good, good, nsfw, good, good])).toBe(
      'Photo 3 is not allowed: NSFW content is prohibited. Remove it to continue.',
    );
    expect(trainingPolicyRefusal([nsfw, good, nsfw, good, nsfw], (i) => `${i + 1} (p${i + 1}.jpg)`)).toBe(
      'Photos 1 (p1.jpg), 3 (p3.jpg) and 5 (p5.jpg) are not allowed: NSFW content is prohibited. Remove them to continue.',
    );
    expect(trainingPolicyRefusal([good, group, good, good, { problems: ['no-face' as const], faces: 0 }])).toBe(
      'At least 4 photos must show exactly one face; only 3 do. Add photos of the person alone.',
    );
    expect(trainingPolicyRefusal([group, group, group, group])).toBe(
      'At least 4 photos must show exactly one face; none does. Add photos of the person alone.',
    );
  });

  it('counts a detection as a face only when its evidence holds together', () => {
    expect(faceEvidenceHolds(face())).toBe(true);
    expect(faceEvidenceHolds(face({ score: 0.4 }))).toBe(false);
    expect(faceEvidenceHolds(face({ embedding: null }))).toBe(false);
    // A mesh that could not be fitted with confidence counts against a face, whatever the detector says,
    // unless the embedding itself lies close to a face's (a face in profile, behind mirrored glasses).
    expect(faceEvidenceHolds(face({ score: 0.9, meshScore: 0.65, faceness: 0.45 }))).toBe(false);
    expect(faceEvidenceHolds(face({ meshScore: 0.19, landmarks: null, faceness: 0.39 }))).toBe(false);
    expect(faceEvidenceHolds(face({ meshScore: 0.19, landmarks: null, faceness: PHOTO_CHECK.minFacenessWithoutMesh }))).toBe(true);
    // An animal's head: its embedding lies too far from a person's face, with or without a mesh (decision 016, "Animals").
    expect(faceEvidenceHolds(face({ meshScore: 0.19, landmarks: null, faceness: 0.455 }))).toBe(false);
    expect(faceEvidenceHolds(face({ faceness: 0.43 }))).toBe(false);
    expect(faceEvidenceHolds(face({ faceness: PHOTO_CHECK.minFaceness }))).toBe(true);
    expect(faceEvidenceHolds(face({ faceness: null }))).toBe(false);
    expect(faceEvidenceHolds(face({ meshScore: 0.19, landmarks: null, faceness: 0.6, embedding: null }))).toBe(false);
    expect(faceEvidenceHolds(face({ score: 0.4, meshScore: 0.19, landmarks: null, faceness: 0.6 }))).toBe(false);
    expect(meshEvidenceHolds(face())).toBe(true);
    expect(meshEvidenceHolds(face({ embedding: null }))).toBe(true);
    // A fitted mesh whose mouth sits above the eyes, or whose eyes are one point, is not a face.
    expect(faceEvidenceHolds(face({ landmarks: { ...UPRIGHT, mouth: [0.5, 0.2] }, faceness: 0.45 }))).toBe(false);
    expect(faceEvidenceHolds(face({ landmarks: { ...UPRIGHT, leftEye: [0.34, 0.38] }, faceness: 0.45 }))).toBe(false);
  });

  it('reads landmarks along the face’s own axis, so a tilted head is still a face', () => {
    const turn = (p: readonly [number, number], a: number): [number, number] => [
      0.5 + (p[0] - 0.5) * Math.cos(a) - (p[1] - 0.5) * Math.sin(a),
      0.5 + (p[0] - 0.5) * Math.sin(a) + (p[1] - 0.5) * Math.cos(a),
    ];
    const tilted = (a: number) => ({
      rightEye: turn(UPRIGHT.rightEye, a),
      leftEye: turn(UPRIGHT.leftEye, a),
      nose: turn(UPRIGHT.nose, a),
      mouth: turn(UPRIGHT.mouth, a),
    });
    expect(landmarksInPlace(tilted(0.5))).toBe(true);
    expect(landmarksInPlace(tilted(-0.5))).toBe(true);
    // Upside down in the face's own frame: the nose and mouth above the eye line.
    expect(landmarksInPlace({ ...UPRIGHT, nose: [0.5, 0.2], mouth: [0.5, 0.1] })).toBe(false);
    expect(landmarksInPlace(null)).toBe(false);
  });

  it('counts other people only by faces of a comparable size', () => {
    const main = face({ box: [0.3, 0.2, 0.3, 0.25] });
    const far = face({ box: [0.8, 0.1, 0.05, 0.05] });
    const near = face({ box: [0.0, 0.2, 0.2, 0.2] });
    expect(countedPeople([main, far])).toEqual([main]);
    expect(countedPeople([main, near, far])).toEqual([main, near]);
    expect(countedPeople([face({ score: 0.2 })])).toEqual([]);
  });
});
