import { afterAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { faceSimilarity } from '../../common/face-match.ts';
import { derivedPhotos, portraitPhoto } from '../../tests/helpers/photos.ts';
import { createVisionAnalyser } from './analyser.ts';

// The real models in the real worker, on real photos cut from @vladmandic/human's sample images.
const analyser = createVisionAnalyser({ timeoutMs: 60_000 });
afterAll(() => analyser.close());

const length = (v: readonly number[]) => Math.hypot(...v);

describe('face embedding through the vision worker', () => {
  it('gives a portrait one face and its embedding scaled to length 1', async () => {
    const { faces, embedding } = await analyser.faceEmbedding(await portraitPhoto('man'));
    expect(faces).toBe(1);
    expect(embedding?.length).toBeGreaterThan(100);
    expect(length(embedding!)).toBeCloseTo(1, 5);
  });

  it('finds the same face more alike in a re-encoded, smaller copy than in another person', async () => {
    const man = await portraitPhoto('man');
    const copy = await sharp(man).resize({ width: 560 }).jpeg({ quality: 80 }).toBuffer();
    const [a, b, other] = await Promise.all([man, copy, await portraitPhoto('smilingWoman')].map((p) => analyser.faceEmbedding(p)));
    const same = faceSimilarity(a.embedding!, b.embedding!);
    expect(same).toBeGreaterThan(0.9);
    expect(faceSimilarity(a.embedding!, other.embedding!)).toBeLessThan(same);
  });

  it('gives no embedding without a face or with two people', async () => {
    const { noFace, twoFaces } = await derivedPhotos();
    expect(await analyser.faceEmbedding(noFace)).toEqual({ faces: 0, embedding: null });
    expect(await analyser.faceEmbedding(twoFaces)).toEqual({ faces: 2, embedding: null });
  });

  it('reports a file that is not an image as a bad image', async () => {
    await expect(analyser.faceEmbedding(Buffer.from('not a photo'))).rejects.toMatchObject({ kind: 'bad-image' });
  });
});
