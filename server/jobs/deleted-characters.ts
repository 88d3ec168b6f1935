import { CHARACTER_UNDO_SECONDS } from '@common/training.ts';
import type { Logger } from '../logger.ts';
import type { CharactersService } from '../services/characters.service.ts';

/** How often the purge looks for deleted characters whose Undo has lapsed (one cheap indexed query). */
export const DELETED_CHARACTERS_POLL_MS = 5_000;
const BATCH = 20;

/**
 * A deleted character's files (LoRA, stored copy, photo archive) stay for its Undo window, then this removes
 * them (product §4), as server/jobs/deleted-generations.ts does for images. Runs as a scheduled job on one
 * instance at a time; each batch is one transaction holding the rows' locks, the lock an Undo takes, so an
 * Undo and the purge never both win. A batch cut short is rolled back and done again by the next pass.
 */
export function createDeletedCharactersPurge(deps: { characters: CharactersService; logger: Logger; undoSeconds?: number }) {
  const undoSeconds = deps.undoSeconds ?? CHARACTER_UNDO_SECONDS;
  return async function purge(stillHeld: () => Promise<boolean> = async () => true): Promise<number> {
    let purged = 0;
    let files = 0;
    for (;;) {
      if (!(await stillHeld())) break;
      const pass = await deps.characters.purgeLapsed(undoSeconds, BATCH);
      purged += pass.characters;
      files += pass.files;
      if (!pass.more) break;
    }
    if (purged) deps.logger.info({ characters: purged, files }, 'removed the files of deleted characters');
    return purged;
  };
}
