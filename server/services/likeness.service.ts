import { FACE_EMBEDDING, faceSimilarity, matchesMost, meanEmbedding } from '@common/face-match.ts';
import { scoreLikeness, type LikenessScore } from '@common/likeness.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import { keyFromMediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import type { EventBus } from '../realtime/event-bus.ts';
import { likenessRepository as repo } from '../repositories/likeness.repository.ts';
import { checkTrainingArchive } from './training-archive.ts';

/** What the vision worker says about the faces of one image (server/vision/face-embedding.ts). */
export interface FaceEmbedding {
  faces: number;
  embedding: number[] | null;
}

export interface LikenessDeps {
  db: Db;
  storage: StorageProvider;
  events: EventBus;
  logger: Logger;
  /** The face embedding of one image, measured in the vision worker (off the event loop). */
  faceEmbedding(image: Uint8Array): Promise<FaceEmbedding>;
}

export type LikenessService = ReturnType<typeof createLikenessService>;

/**
 * The reference face of a set of training photos: the normalised mean of the embeddings of the one-face photos
 * that agree with each other (each matches at least half of the other one-face photos, as the photo check's
 * same-person rule). Null when fewer than two agree: a lone face or a crowd of strangers is no reference.
 */
export function referenceFaceOf(embeddings: readonly number[][]): number[] | null {
  const agreeing = embeddings.filter((e, i) =>
    matchesMost(
      e,
      embeddings.filter((_, j) => j !== i),
    ),
  );
  if (agreeing.length < 2) return null;
  return meanEmbedding(agreeing);
}

/**
 * A reference as kept in `lora_trainings.reference_face` (real[]): the version of the embedding it was worked out
 * from (common/face-match.ts FACE_EMBEDDING.version) and then its values; null stays null (no reference).
 */
export function storedReference(reference: readonly number[] | null): number[] | null {
  return reference ? [FACE_EMBEDDING.version, ...reference] : null;
}

/**
 * The reference kept on a row, if it can be compared with today's embeddings: its values (null: the character has
 * none), or undefined when it is of another embedding — the bare values of version 1, kept before versions were
 * written, or any other version — and must be worked out again.
 */
export function currentReference(stored: readonly number[] | null): number[] | null | undefined {
  if (stored === null) return null;
  return stored.length === FACE_EMBEDDING.size + 1 && stored[0] === FACE_EMBEDDING.version ? stored.slice(1) : undefined;
}

/**
 * The likeness check (docs/decisions/017-likeness-check.md): a character's reference face is worked out from
 * its training photos (right after submit, or later for characters trained before the check while their photos
 * are kept), and every finished image made with it is scored against it in the vision worker.
 */
export function createLikenessService(deps: LikenessDeps) {
  const { db, storage, events, logger } = deps;

  /** The one-face embedding of an image, or null without exactly one face. Throws when the worker fails. */
  async function singleFace(image: Uint8Array): Promise<number[] | null> {
    const found = await deps.faceEmbedding(image);
    return found.faces === 1 && found.embedding?.length ? found.embedding : null;
  }

  /**
   * The character's reference: the one kept, or worked out now from its kept training archive when it never was or
   * was worked out from another embedding (FACE_EMBEDDING.version); with no archive kept it is none. Null: no
   * reference.
   */
  async function computeReference(trainingId: string): Promise<number[] | null> {
    const row = await repo.findReference(db, trainingId);
    if (!row || row.deletedAt) return null;
    const kept = row.referenceCheckedAt ? currentReference(row.referenceFace) : undefined;
    if (kept !== undefined) return kept;
    const key = row.uploadUrl ? keyFromMediaUrl(row.uploadUrl) : null;
    const zip = key ? await storage.read(key) : null;
    const embeddings: number[][] = [];
    if (zip) {
      let photos: Awaited<ReturnType<typeof checkTrainingArchive>> = [];
      try {
        photos = await checkTrainingArchive(zip);
      } catch (err) {
        logger.warn({ err, trainingId }, 'the training archive could not be read for its reference face');
      }
      for (const photo of photos) {
        // A photo the worker cannot read counts as no face; a worker failure throws (tried again later).
        const face = await singleFace(photo.bytes).catch((err: unknown) => {
          if (err instanceof Error && 'kind' in err && err.kind === 'bad-image') return null;
          throw err;
        });
        if (face) embeddings.push(face);
      }
    }
    const reference = referenceFaceOf(embeddings);
    await repo.saveReference(db, trainingId, storedReference(reference));
    logger.info(
      {
        trainingId,
        faces: embeddings.length,
        reference: reference !== null,
        archive: !!zip,
        replaced: row.referenceCheckedAt ? 'another embedding' : undefined,
      },
      'character reference face worked out',
    );
    return reference;
  }

  /**
   * The character's reference (worked out now if it never was, or was from another embedding); null when it has
   * none. Calls for one character while it is being worked out share that work (a shoot reviews photos at once).
   */
  const working = new Map<string, Promise<number[] | null>>();
  function referenceOf(trainingId: string): Promise<number[] | null> {
    let reference = working.get(trainingId);
    if (!reference) {
      reference = computeReference(trainingId).finally(() => working.delete(trainingId));
      working.set(trainingId, reference);
    }
    return reference;
  }

  /** Scores one image against a reference: 'no_face' without exactly one face. Throws when the worker fails. */
  async function score(image: Uint8Array, reference: number[]): Promise<LikenessScore> {
    try {
      const face = await singleFace(image);
      return scoreLikeness(face ? faceSimilarity(face, reference) : null);
    } catch (err) {
      // An image the analyser cannot decode (corrupt, over the pixel budget) shows no face to compare.
      if (err instanceof Error && 'kind' in err && err.kind === 'bad-image') return scoreLikeness(null);
      throw err;
    }
  }

  /**
   * Scores one claimed generation and records it (with its upscales). A worker that fails leaves it
   * unscored: the next pass tries again, up to LIKENESS.maxChecks times.
   */
  async function checkGeneration(g: { id: string; lora_id: string; user_id: string; image_url: string }): Promise<LikenessScore | null> {
    const reference = await referenceOf(g.lora_id);
    if (!reference) return null;
    const key = keyFromMediaUrl(g.image_url);
    const image = key ? await storage.read(key) : null;
    if (!image) return null;
    const result = await score(image, reference);
    await db.transaction(async (tx) => {
      for (const id of await repo.saveScore(tx, g.id, result))
        await events.publish(tx, g.user_id, { type: 'generation', action: 'updated', id });
    });
    return result;
  }

  /**
   * Upscales whose source was scored after they read it take its score now (and those of theirs, a step per
   * round).
   */
  async function inheritScores(): Promise<void> {
    // An upscale's long side caps the chain at a few steps (common/finishing.ts); the bound only guards the loop.
    for (let step = 0; step < 8; step++) {
      const rows = await db.transaction(async (tx) => {
        const inherited = await repo.inheritScores(tx);
        for (const g of inherited) await events.publish(tx, g.user_id, { type: 'generation', action: 'updated', id: g.id });
        return inherited;
      });
      if (rows.length === 0) return;
    }
  }

  return { referenceOf, computeReference, score, checkGeneration, inheritScores };
}
