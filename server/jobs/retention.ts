import type { Db } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import { keyFromMediaUrl, mediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import { generationsRepository } from '../repositories/generations.repository.ts';
import { uploadsRepository } from '../repositories/uploads.repository.ts';
import { GENERATION_KEY, withThumbnails } from '../services/media.service.ts';

/**
 * The retention sweep (product §1: originals are kept about 30 days). Runs as a scheduled job on one instance at
 * a time (scheduled-job.ts), so nothing is deleted twice; every step deletes the files first and the rows
 * after, so a sweep cut off half-way is finished by the next one.
 *
 * - Uploads (training archives, which hold the training photos, and prompt-extraction images) go when their
 *   expires_at (upload + UPLOAD_RETENTION_DAYS) has passed — except an archive a training still runs from.
 *   A finished training keeps working: its LoRA file lives under loras/ and is not an original.
 * - Generations (their image and thumbnails, and the row) go after GENERATION_RETENTION_DAYS when it is set:
 *   first marked deleted (an update their owner's open tabs hear, hosted ones through Realtime, whose publication
 *   carries no deletes), then removed by a sweep at least EXPIRY_NOTICE_MS later.
 * - Files under uploads/ and generations/ that never got their row (a crash between storing and recording)
 *   go once they are older than the grace period; so do thumbnails whose image is gone.
 */
export interface RetentionDeps {
  db: Db;
  storage: StorageProvider;
  logger: Logger;
  /** Generations older than this many days are deleted; undefined keeps them. */
  generationRetentionDays?: number;
  /** A file without its row is left alone this long: its row may still be on its way. */
  orphanGraceMs: number;
}

export interface RetentionReport {
  uploads: number;
  generations: number;
  orphans: number;
}

const BATCH = 100;
/** How long a generation retention marked deleted stays a row, so that its owner's tabs hear of it first. */
const EXPIRY_NOTICE_MS = 60_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Thumbnail keys are thumbs/<width>/<source key>.webp. */
const THUMBNAIL_KEY = /^thumbs\/\d+\/(.+)\.webp$/;

export function createRetentionSweep(deps: RetentionDeps) {
  const { db, storage } = deps;

  async function deleteFiles(keys: string[]): Promise<void> {
    for (const key of keys) await storage.delete(key);
  }

  async function expiredUploads(stillHeld: () => Promise<boolean>): Promise<number> {
    let deleted = 0;
    for (;;) {
      const rows = await uploadsRepository.expired(db, BATCH);
      if (rows.length === 0 || !(await stillHeld())) return deleted;
      await deleteFiles(rows.map((r) => r.storageKey));
      deleted += await uploadsRepository.deleteMany(
        db,
        rows.map((r) => r.id),
      );
      if (rows.length < BATCH) return deleted;
    }
  }

  async function oldGenerations(stillHeld: () => Promise<boolean>): Promise<number> {
    if (!deps.generationRetentionDays) return 0;
    const before = new Date(Date.now() - deps.generationRetentionDays * DAY_MS);
    for (;;) {
      const marked = await generationsRepository.expireCreatedBefore(db, before, BATCH);
      if (marked < BATCH || !(await stillHeld())) break;
    }
    const markedBefore = new Date(Date.now() - EXPIRY_NOTICE_MS);
    let deleted = 0;
    for (;;) {
      const rows = await generationsRepository.expiredBefore(db, before, markedBefore, BATCH);
      if (rows.length === 0 || !(await stillHeld())) return deleted;
      const keys = rows.flatMap((r) => {
        const key = keyFromMediaUrl(r.imageUrl);
        return key ? withThumbnails(key) : [];
      });
      await deleteFiles(keys);
      deleted += await generationsRepository.deleteMany(
        db,
        rows.map((r) => r.id),
      );
      if (rows.length < BATCH) return deleted;
    }
  }

  /** Files under `prefix` older than the grace period, in batches; `orphansOf` says which have no owner. */
  async function sweepPrefix(
    prefix: string,
    stillHeld: () => Promise<boolean>,
    orphansOf: (keys: string[]) => Promise<string[]>,
  ): Promise<number> {
    const graceEnd = Date.now() - deps.orphanGraceMs;
    let batch: string[] = [];
    let deleted = 0;
    const flush = async () => {
      const orphans = await orphansOf(batch);
      batch = [];
      if (orphans.length === 0) return true;
      if (!(await stillHeld())) return false;
      await deleteFiles(orphans);
      deleted += orphans.length;
      return true;
    };
    for await (const object of storage.list(prefix)) {
      if (object.lastModified.getTime() > graceEnd) continue;
      batch.push(object.key);
      if (batch.length === BATCH && !(await flush())) return deleted;
    }
    if (batch.length) await flush();
    return deleted;
  }

  async function orphans(stillHeld: () => Promise<boolean>): Promise<number> {
    const uploads = await sweepPrefix('uploads/', stillHeld, async (keys) => {
      const known = new Set(await uploadsRepository.existingUrls(db, keys.map(mediaUrl)));
      return keys.filter((k) => !known.has(mediaUrl(k)));
    });
    const generations = await sweepPrefix('generations/', stillHeld, async (keys) => {
      const ids = keys.map((k) => GENERATION_KEY.exec(k)?.[1]);
      const known = new Set(
        await generationsRepository.existingIds(
          db,
          ids.filter((id): id is string => Boolean(id)),
        ),
      );
      return keys.filter((_, i) => !ids[i] || !known.has(ids[i]!));
    });
    const thumbnails = await sweepPrefix('thumbs/', stillHeld, async (keys) => {
      const sources = keys.map((k) => THUMBNAIL_KEY.exec(k)?.[1]);
      // Most thumbnails are of generations: one query answers for the whole batch, not a storage request each.
      const generationIds = sources.map((source) => (source ? GENERATION_KEY.exec(source)?.[1] : undefined));
      const known = new Set(
        await generationsRepository.existingIds(
          db,
          generationIds.filter((id): id is string => Boolean(id)),
        ),
      );
      const gone: string[] = [];
      for (const [i, key] of keys.entries()) {
        const source = sources[i];
        const generationId = generationIds[i];
        const orphan = !source || (generationId ? !known.has(generationId) : !(await storage.exists(source)));
        if (orphan) gone.push(key);
      }
      return gone;
    });
    return uploads + generations + thumbnails;
  }

  return {
    async sweep(stillHeld: () => Promise<boolean>): Promise<RetentionReport> {
      const report = {
        uploads: await expiredUploads(stillHeld),
        generations: await oldGenerations(stillHeld),
        orphans: await orphans(stillHeld),
      };
      if (report.uploads || report.generations || report.orphans) deps.logger.info(report, 'retention sweep deleted files');
      return report;
    },
  };
}
