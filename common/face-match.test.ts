import { describe, expect, it } from 'vitest';
import { FACE_MATCH, faceSimilarity, isSameFace } from './face-match.ts';

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
