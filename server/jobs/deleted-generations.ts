import { and, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import { GENERATION_UNDO_SECONDS } from '@common/library.ts';
import type { Db } from '../db/index.ts';
import { exploreGallery, generations } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import { keyFromMediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import { withThumbnails } from '../services/media.service.ts';

/** How often the purge looks for deleted generations whose Undo has lapsed (one cheap indexed query). */
export const DELETED_GENERATIONS_POLL_MS = 5_000;
const BATCH = 100;

/**
 * 'Deleted means gone': a deleted generation's image and thumbnails are refused at once (media routes), and
 * this removes them from storage once its Undo window has lapsed. Runs as a scheduled job on one instance at
 * a time. Files first, then the row is marked, so a purge cut short is finished by the next one. An image
 * an explore item still names (items published before explore kept copies of their own) stays.
 *
 * A delete that did not stamp deleted_at (hosted mode's PostgREST sets only the status) is stamped on the
 * first pass and purged once the window has lapsed from then.
 */
export function createDeletedGenerationsPurge(deps: { db: Db; storage: StorageProvider; logger: Logger; undoSeconds?: number }) {
  const { db, storage } = deps;
  const undoSeconds = deps.undoSeconds ?? GENERATION_UNDO_SECONDS;
  const waiting = and(eq(generations.status, 'DELETED'), isNull(generations.filesRemovedAt));

  return async function purge(stillHeld: () => Promise<boolean> = async () => true): Promise<number> {
    await db
      .update(generations)
      .set({ deletedAt: sql`now()` })
      .where(and(waiting, isNull(generations.deletedAt)));
    let removed = 0;
    const lapsed = lt(generations.deletedAt, sql`now() - make_interval(secs => ${undoSeconds})`);
    for (;;) {
      const candidates = await db.select({ id: generations.id }).from(generations).where(and(waiting, lapsed)).limit(BATCH);
      if (candidates.length === 0 || !(await stillHeld())) break;
      removed += await db.transaction(async (tx) => {
        // Locked and checked again, as an Undo locks what it restores: one that got to a row first has made it
        // ACTIVE (it is skipped here), and one that comes while its files go waits, then finds them gone.
        const rows = await tx
          .select({ id: generations.id, imageUrl: generations.imageUrl })
          .from(generations)
          .where(
            and(
              inArray(
                generations.id,
                candidates.map((r) => r.id),
              ),
              waiting,
              lapsed,
            ),
          )
          .for('update');
        if (rows.length === 0) return 0;
        const shown = new Set(
          (
            await tx
              .select({ imageUrl: exploreGallery.imageUrl })
              .from(exploreGallery)
              .where(
                inArray(
                  exploreGallery.imageUrl,
                  rows.map((r) => r.imageUrl),
                ),
              )
          ).map((r) => r.imageUrl),
        );
        let files = 0;
        for (const row of rows) {
          const key = keyFromMediaUrl(row.imageUrl);
          if (!key || shown.has(row.imageUrl)) continue;
          for (const file of withThumbnails(key)) await storage.delete(file);
          files++;
        }
        await tx
          .update(generations)
          .set({ filesRemovedAt: sql`now()` })
          .where(
            inArray(
              generations.id,
              rows.map((r) => r.id),
            ),
          );
        return files;
      });
      if (candidates.length < BATCH) break;
    }
    if (removed) deps.logger.info({ removed }, 'removed the files of deleted generations');
    return removed;
  };
}
