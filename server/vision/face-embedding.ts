import { countedPeople } from '../../common/photo-check.ts';
import { decodeRgb } from './analyse-image.ts';
import { detectFaces } from './human-model.ts';

/**
 * The face embedding of a photo's one person, for telling whether photos show the same person
 * (common/face-match.ts). Runs in the vision worker; the server reaches it through analyser.ts.
 */
export interface FaceEmbedding {
  /** Faces that count as people under the photo check's rule (common/photo-check.ts countedPeople). */
  faces: number;
  /** The main face's embedding scaled to length 1 when exactly one face counts, else null. */
  embedding: number[] | null;
}

/** Throws sharp's error for a file that is not a readable image (the worker reports it as a bad image). */
export async function faceEmbeddingOf(image: Buffer | Uint8Array): Promise<FaceEmbedding> {
  const people = countedPeople(await detectFaces(await decodeRgb(image)));
  return { faces: people.length, embedding: people.length === 1 ? people[0]!.embedding : null };
}
