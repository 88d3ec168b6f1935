import { describe, expect, it } from 'vitest';
import type { Box, FaceEvidence, NsfwScores, PhotoMeasures } from '../vision/types.ts';
import { judgePhoto } from './photo-check.service.ts';

const SAFE: NsfwScores = { drawing: 0.02, hentai: 0.01, neutral: 0.95, porn: 0.01, sexy: 0.01 };
/** A detection whose evidence holds: a mesh fitted with confidence, landmarks where a face has them, a face's embedding. */
function face(box: Box, score: number, over: Partial<FaceEvidence> = {}): FaceEvidence {
  return {
    box,
    score,
    meshScore: 0.95,
    landmarks: { rightEye: [0.33, 0.38], leftEye: [0.67, 0.38], nose: [0.5, 0.58], mouth: [0.5, 0.75] },
    embedding: [0.6, 0.8],
    faceness: 0.6,
    ...over,
  };
}

const EXPLICIT: NsfwScores = { drawing: 0.01, hentai: 0.05, neutral: 0.04, porn: 0.85, sexy: 0.05 };

function measures(over: Partial<NonNullable<PhotoMeasures['decoded']>> = {}, size = { width: 800, height: 1000 }): PhotoMeasures {
  return {
    format: 'jpeg',
    ...size,
    error: null,
    decoded: {
      faces: [face([0.35, 0.2, 0.3, 0.25], 0.9)],
      face: { brightness: 0.4, blur: 0.4 },
      hash: 'ffff0000ffff0000',
      nsfw: SAFE,
      nsfwFacesMasked: null,
      ...over,
    },
  };
}

describe('judging a photo from its measures', () => {
  it('refuses what the classifier finds explicit with and without faces, not a close-up it misreads', () => {
    expect(judgePhoto(measures()).problems).toEqual([]);
    expect(judgePhoto(measures({ nsfw: EXPLICIT, nsfwFacesMasked: EXPLICIT })).problems).toEqual(['not-allowed']);
    // A face filling the frame scored explicit as a whole, but nothing explicit is left once it is masked.
    expect(judgePhoto(measures({ nsfw: EXPLICIT, nsfwFacesMasked: SAFE })).problems).toEqual([]);
    // Without a face there is nothing to mask: the whole image's verdict stands.
    expect(judgePhoto(measures({ faces: [], face: null, nsfw: EXPLICIT })).problems).toEqual(['not-allowed', 'no-face']);
  });

  it('counts people by faces of a comparable size, and compares only photos of one person', () => {
    const far = face([0.8, 0.1, 0.03, 0.04], 0.8);
    const near = face([0.05, 0.2, 0.25, 0.22], 0.8);
    const weak = face([0.05, 0.2, 0.25, 0.22], 0.4);
    const main = face([0.35, 0.2, 0.3, 0.25], 0.9);
    expect(judgePhoto(measures({ faces: [main, far] }))).toMatchObject({ problems: [], faces: 1, hash: 'ffff0000ffff0000' });
    expect(judgePhoto(measures({ faces: [main, weak] }))).toMatchObject({ problems: [], faces: 1 });
    expect(judgePhoto(measures({ faces: [main, near] }))).toMatchObject({ problems: ['several-people'], faces: 2, hash: null });
  });

  it('reports every problem in badge order', () => {
    const v = judgePhoto(measures({ face: { brightness: 0.05, blur: 0.9 } }, { width: 400, height: 500 }));
    expect(v.problems).toEqual(['too-small', 'too-dark', 'blurry']);
    expect(judgePhoto({ format: 'gif', width: 10, height: 10, error: null, decoded: null })).toMatchObject({
      problems: ['unreadable'],
      detail: 'GIF files cannot be used. Choose JPG, PNG or WEBP.',
    });
  });
});
