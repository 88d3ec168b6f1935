import { and, eq, isNotNull } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { exploreGallery, generations, loraTrainings } from '../db/schema.ts';

/** What decides whether a stored file may be served (server/services/media.service.ts isServed). */
export const mediaRepository = {
  /** Whether the character is deleted (in its Undo window). */
  async characterDeleted(db: Executor, characterId: string): Promise<boolean> {
    const [deleted] = await db
      .select({ id: loraTrainings.id })
      .from(loraTrainings)
      .where(and(eq(loraTrainings.id, characterId), isNotNull(loraTrainings.deletedAt)));
    return Boolean(deleted);
  },

  /** Whether the generation exists and is ACTIVE. */
  async generationActive(db: Executor, generationId: string): Promise<boolean> {
    const [row] = await db
      .select({ id: generations.id })
      .from(generations)
      .where(and(eq(generations.id, generationId), eq(generations.status, 'ACTIVE')));
    return Boolean(row);
  },

  /** Whether an explore item shows the image at `imageUrl`. */
  async shownInExplore(db: Executor, imageUrl: string): Promise<boolean> {
    const [shown] = await db.select({ id: exploreGallery.id }).from(exploreGallery).where(eq(exploreGallery.imageUrl, imageUrl)).limit(1);
    return Boolean(shown);
  },
};
