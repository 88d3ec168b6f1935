import { GENERATION_UNDO_SECONDS } from '@common/library.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import { keyFromMediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import { deletedGenerationsRepository as repo } from '../repositories/deleted-generations.repository.ts';
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

  return async function purge(stillHeld: () => Promise<boolean> = async () => true): Promise<number> {
    await repo.stampUnstamped(db);
    let removed = 0;
    for (;;) {
      const candidates = await repo.lapsedIds(db, undoSeconds, BATCH);
      if (candidates.length === 0 || !(await stillHeld())) break;
      removed += await db.transaction(async (tx) => {
        // Locked and checked again, as an Undo locks what it restores: one that got to a row first has made it
        // ACTIVE (it is skipped here), and one that comes while its files go waits, then finds them gone.
        const rows = await repo.lockLapsed(tx, candidates, undoSeconds);
        if (rows.length === 0) return 0;
        const shown = await repo.shownInExplore(
          tx,
          rows.map((r) => r.imageUrl),
        );
        let files = 0;
        for (const row of rows) {
          const key = keyFromMediaUrl(row.imageUrl);
          if (!key || shown.has(row.imageUrl)) continue;
          for (const file of withThumbnails(key)) await storage.delete(file);
          files++;
        }
        await repo.markFilesRemoved(
          tx,
          rows.map((r) => r.id),
        );
        return files;
      });
      if (candidates.length < BATCH) break;
    }
    if (removed) deps.logger.info({ removed }, 'removed the files of deleted generations');
    return removed;
  };
}
