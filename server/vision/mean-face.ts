import { readFileSync } from 'node:fs';
import { FACE_EMBEDDING, faceSimilarity } from '../../common/face-match.ts';

/**
 * The mean face: the average embedding (FACE_EMBEDDING, scaled to length 1) of the main faces of the evaluation
 * set's 50 tuning portraits (bench/photo-eval), written by `node --import tsx bench/photo-eval/mean-face.ts`
 * into mean-face.json beside this file. A test recomputes it. Any face the description model sees lies near
 * it; the crops of objects and animals the detector mistakes for faces lie further off (PHOTO_CHECK.minFaceness).
 */
export interface MeanFace {
  /** FACE_EMBEDDING.version of the embeddings it was averaged from. */
  embeddingVersion: number;
  faces: number;
  values: number[];
}

export const MEAN_FACE_FILE = new URL('./mean-face.json', import.meta.url);

let meanFace: number[] | null | undefined;

/** The mean face's values, or null when the file is of another embedding (then recompute it: the test says so). */
function loadMeanFace(): number[] | null {
  if (meanFace === undefined) {
    const file = JSON.parse(readFileSync(MEAN_FACE_FILE, 'utf8')) as MeanFace;
    const current = file.embeddingVersion === FACE_EMBEDDING.version && file.values.length === FACE_EMBEDDING.size;
    meanFace = current ? file.values : null;
  }
  return meanFace;
}

/**
 * How face-like an embedding is: its cosine similarity to the mean face (common/photo-check.ts minFaceness);
 * null without a current mean face.
 */
export function facenessOf(embedding: readonly number[]): number | null {
  const mean = loadMeanFace();
  return mean && faceSimilarity(embedding, mean);
}
