/**
 * `node --import tsx bench/photo-eval/mean-face.ts`: writes server/vision/mean-face.json, the mean face the photo
 * check measures every face's embedding against (PHOTO_CHECK.minFaceness, minFacenessWithoutMesh):
 * the average embedding of the tuning half's 50 portraits, the main face of each whose mesh holds. Run it again
 * when FACE_EMBEDDING changes; tests/server/photo-eval.test.ts recomputes it and fails while the file is stale.
 */
import { writeFileSync } from 'node:fs';
import { FACE_EMBEDDING, meanEmbedding } from '../../common/face-match.ts';
import { meshEvidenceHolds } from '../../common/photo-check.ts';
import { MEAN_FACE_FILE, type MeanFace } from '../../server/vision/mean-face.ts';
import type { PhotoMeasures } from '../../server/vision/types.ts';
import { evalSet } from './set.ts';

/** The mean face of the tuning half's portraits, measured with `measure` (the vision worker or measurePhoto). */
export async function tuningMeanFace(measure: (photo: Buffer) => Promise<PhotoMeasures>): Promise<MeanFace> {
  const faces: number[][] = [];
  for (const { name, photo } of (await evalSet('tuning')).portraits) {
    const main = (await measure(photo)).decoded?.faces.find((f) => meshEvidenceHolds(f) && f.embedding);
    if (!main?.embedding) throw new Error(`no face with a holding mesh in the tuning portrait ${name}`);
    faces.push(main.embedding);
  }
  const values = meanEmbedding(faces)!.map((v) => Math.round(v * 1e6) / 1e6);
  return { embeddingVersion: FACE_EMBEDDING.version, faces: faces.length, values };
}

if (import.meta.main) {
  const { measurePhoto } = await import('../../server/vision/measure-photo.ts');
  const meanFace = await tuningMeanFace((photo) => measurePhoto(photo));
  writeFileSync(MEAN_FACE_FILE, `${JSON.stringify(meanFace)}\n`);
  console.log(`mean face of ${meanFace.faces} tuning portraits written to ${MEAN_FACE_FILE.pathname}`);
  process.exit(0);
}
