import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACE_MATCH, faceSimilarity } from '@common/face-match.ts';
import { photoBadge, type PhotoCheck } from '@common/photo-check.ts';
import { NO_FACE, PORTRAITS, photoOf, type NoFaceKind } from '../../bench/photo-eval/set.ts';
import { startTestServer, type TestClient, type TestServer } from '../helpers/server.ts';

/**
 * The photo check on real photos of the evaluation set (bench/photo-eval): crops of photos shipped in npm
 * packages, through the real server, vision worker and models.
 */

let ts: TestServer;
let client: TestClient;
beforeAll(async () => {
  ts = await startTestServer();
  ({ client } = await ts.signUp());
});
afterAll(async () => {
  await ts?.stop();
});

async function verdict(photo: Buffer): Promise<PhotoCheck> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(photo)]), 'photo.jpg');
  const res = await client.fetch('/api/trainings/check-photo', { method: 'POST', body: form });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

const noFace = (name: string) => {
  const crop = NO_FACE.find((c) => c.name === name);
  if (!crop) throw new Error(`no no-face image named ${name}`);
  return crop;
};
const portrait = (name: string) => {
  const crop = PORTRAITS.find((c) => c.name === name);
  if (!crop) throw new Error(`no portrait named ${name}`);
  return crop;
};

describe('photo check on the evaluation set’s real photos', () => {
  const cases: [NoFaceKind, string][] = [
    // The two false faces first seen on party photos: 'Good' and 'Too dark' before the face mesh had a say.
    ['face-like object', 'door panel with a switch plate and handles'],
    ['clothing', 'plaid shirt with a wine glass'],
    ['face-like object', 'uniform shirt with a crest patch'],
    ['face-like object', 'three dice'],
    ['clothing', 'striped jumpsuit'],
    ['street or landscape', 'street façade at 6000, 0'],
    ['street or landscape', 'parked cars'],
    ['texture', 'tufted leather sofa, left'],
    ['texture', 'window blinds, left'],
    ['hands', 'drawn hands with a pencil'],
  ];
  it.each(cases)('finds no face in a %s: %s', async (kind, name) => {
    const crop = noFace(name);
    expect(crop.kind).toBe(kind);
    const check = await verdict(await photoOf(crop));
    expect(photoBadge(check)).toBe('No face found');
    expect(check).toMatchObject({ faces: 0, hash: null });
  });

  it('judges two photos of one man the same person and a photo of a woman not', async () => {
    const [first, second, other] = await Promise.all(
      ['grid cell 1.1', 'grid cell 1.3', 'party3 person 2'].map(async (name) => ts.rt.vision.faceEmbedding(await photoOf(portrait(name)))),
    );
    for (const e of [first, second, other]) expect(e!.faces).toBe(1);
    expect(faceSimilarity(first!.embedding!, second!.embedding!)).toBeGreaterThanOrEqual(FACE_MATCH);
    expect(faceSimilarity(first!.embedding!, other!.embedding!)).toBeLessThan(FACE_MATCH);
    expect(faceSimilarity(second!.embedding!, other!.embedding!)).toBeLessThan(FACE_MATCH);
  });

  it('gives each of them a portrait’s verdict: one face, no problem but its size', async () => {
    for (const name of ['grid cell 1.1', 'party3 person 2']) {
      const check = await verdict(await photoOf(portrait(name)));
      expect(check.faces).toBe(1);
      expect(check.problems.filter((p) => p !== 'too-small')).toEqual([]);
    }
  });
});
