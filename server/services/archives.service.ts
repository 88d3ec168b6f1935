import { archiveEntryName, shootArchiveName } from '@common/photo-shoots.ts';
import type { Db } from '../db/index.ts';
import { notFound } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { StorageProvider } from '../providers/storage/index.ts';
import { generationsRepository } from '../repositories/generations.repository.ts';
import type { PageEnd } from '../repositories/keyset.ts';
import { shootsRepository } from '../repositories/shoots.repository.ts';
import type { ShootsService } from './shoots.service.ts';
import { storedFile, zipStream, type ZipEntry } from './zip-stream.ts';

const FAVORITES_PAGE = 200;

const extensionOf = (format: string) => (format === 'png' ? 'png' : 'jpg');

/** A ZIP to download: its stream and its file name. */
export interface Archive {
  stream: ReadableStream<Uint8Array>;
  name: string;
}

export type ArchivesService = ReturnType<typeof createArchivesService>;

/** The ZIPs of a photo shoot's photos and of the caller's favourites, streamed as they are read. */
export function createArchivesService(deps: { db: Db; storage: StorageProvider; logger: Logger; shoots: ShootsService }) {
  const { db, storage, logger } = deps;
  return {
    /** What has landed so far of the caller's shoot, in catalogue order: 01.jpg is the pack's first prompt. */
    async shoot(userId: string, shootId: string): Promise<Archive> {
      const shoot = await deps.shoots.get(userId, shootId);
      const photos = await shootsRepository.archivePhotos(db, shoot.id);
      const entries: ZipEntry[] = photos.map((p) => ({
        name: archiveEntryName(p.position, shoot.photo_count, extensionOf(p.outputFormat)),
        content: storedFile(storage, p.imageUrl),
      }));
      return {
        stream: zipStream(entries, (err) => logger.error({ err, shootId: shoot.id }, 'a shoot download was cut short')),
        name: shootArchiveName(shoot.character_name, shoot.pack_name),
      };
    },

    /** The caller's favourites, newest first as the page shows them, read a page at a time while the ZIP streams. */
    async favorites(userId: string): Promise<Archive> {
      const total = await generationsRepository.countFavorites(db, userId);
      if (total === 0) throw notFound('You have no favourites to download yet.');
      async function* entries(): AsyncGenerator<ZipEntry> {
        let index = 0;
        let after: PageEnd | undefined;
        for (;;) {
          const page = await generationsRepository.favoritesAfter(db, userId, after, FAVORITES_PAGE);
          for (const g of page)
            yield { name: archiveEntryName(index++, total, extensionOf(g.outputFormat)), content: storedFile(storage, g.imageUrl) };
          if (page.length < FAVORITES_PAGE) return;
          after = page[page.length - 1];
        }
      }
      return {
        stream: zipStream(entries(), (err) => logger.error({ err, userId }, 'a favourites download was cut short')),
        name: 'likeness-favorites.zip',
      };
    },
  };
}
