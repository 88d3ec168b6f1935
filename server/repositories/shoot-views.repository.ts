import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../db/index.ts';
import { shootPhotoViews } from '../db/schema.ts';

export type ShootPhotoViewRow = typeof shootPhotoViews.$inferSelect;

/**
 * The shoot page's reads: a shoot's photos from shoot_photo_views (migration 0020), the one definition of what a
 * photo shows (kept image, deleted, likeness, queue position) that the hosted SPA reads through PostgREST too.
 */
export const shootViewsRepository = {
  /** A shoot's photos in catalogue order, as the page shows them. */
  photos(db: Executor, shootId: string): Promise<ShootPhotoViewRow[]> {
    return db.select().from(shootPhotoViews).where(eq(shootPhotoViews.shoot_id, shootId)).orderBy(asc(shootPhotoViews.position));
  },
};
