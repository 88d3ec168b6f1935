import { describe, expect, it } from 'vitest';
import { FACE_MATCH, faceSimilarity, isSameFace, matchesMost, notSamePerson } from './face-match.ts';

describe('face similarity', () => {
  it('is 1 for the same direction whatever the length, lower as embeddings part, and clamped to 0..1', () => {
    expect(faceSimilarity([0.6, 0.8, 0], [3, 4, 0])).toBeCloseTo(1, 10);
    expect(faceSimilarity([1, 0, 0], [0, 1, 0])).toBe(0);
    expect(faceSimilarity([1, 0], [-1, 0])).toBe(0);
    expect(faceSimilarity([1, 1, 0], [1, 0, 0])).toBeCloseTo(Math.SQRT1_2, 10);
  });

  it('is 0 for an empty embedding, one of another length, or an all-zero one', () => {
    expect(faceSimilarity([], [])).toBe(0);
    expect(faceSimilarity([1, 0], [1, 0, 0])).toBe(0);
    expect(faceSimilarity([0, 0], [1, 0])).toBe(0);
  });

  it('calls two faces the same person from FACE_MATCH up', () => {
    expect(FACE_MATCH).toBeGreaterThan(0);
    expect(FACE_MATCH).toBeLessThan(1);
    const angle = Math.acos(FACE_MATCH);
    const at = (a: number) => [Math.cos(a), Math.sin(a)];
    expect(isSameFace([1, 0], at(angle * 0.99))).toBe(true);
    expect(isSameFace([1, 0], at(angle * 1.01))).toBe(false);
  });
});

describe('the same-person check across photos', () => {
  const dana = [1, 0, 0];
  const alex = [0, 1, 0];
  const sam = [0, 0, 1];

  it('flags a face that matches fewer than half of the other one-face photos', () => {
    expect(notSamePerson([dana, dana, alex])).toEqual([false, false, true]);
    expect(notSamePerson([dana, null, dana, alex, dana])).toEqual([false, false, false, true, false]);
  });

  it('compares nothing while fewer than three photos show one face', () => {
    expect(notSamePerson([dana, alex])).toEqual([false, false]);
    expect(notSamePerson([dana, alex, null, []])).toEqual([false, false, false, false]);
  });

  it('flags every face of a set of strangers, and none of a set of one person', () => {
    expect(notSamePerson([dana, alex, sam])).toEqual([true, true, true]);
    expect(notSamePerson([dana, dana, dana, dana])).toEqual([false, false, false, false]);
  });

  it('needs at least one match and half of the others', () => {
    expect(matchesMost(dana, [dana, alex])).toBe(true);
    expect(matchesMost(dana, [dana, alex, sam])).toBe(false);
    expect(matchesMost(dana, [])).toBe(false);
  });
});
