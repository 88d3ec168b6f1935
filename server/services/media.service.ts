import sharp from 'sharp';
import { THUMB_WIDTHS, type ThumbWidth } from '@common/media.ts';
import { PRODUCT_NAME } from '@common/product.ts';
import type { Db } from '../db/index.ts';
import { notFound } from '../domain/errors.ts';
import { isUuid } from '@common/ids.ts';
import type { Logger } from '../logger.ts';
import { keyFromMediaUrl, mediaUrl, type StorageProvider, type StoredObject } from '../providers/storage/index.ts';
import { exploreRepository } from '../repositories/explore.repository.ts';
import { mediaRepository } from '../repositories/media.repository.ts';
import { DECODE_LIMITS } from '../domain/image-budget.ts';
import { generationsRepository } from '../repositories/generations.repository.ts';

/**
 * Areas whose objects anyone holding the URL may read. Generated images are shared by URL ('Copy URL',
 * 'Share', the explore gallery) and their keys hold a random uuid, so the URL itself is the capability.
 * Photo-pack samples (packs/) are the catalogue's own pictures. Every other area is laid out `<area>/<userId>/…` (uploads/<userId>/…) and is readable by its owner only.
 */
const PUBLIC_AREAS = ['generations/', 'explore/', 'packs/'];
const THUMBNAIL_SOURCES = /\.(jpe?g|png|webp)$/i;
const THUMB_QUALITY = 78;

export function isPublicKey(key: string): boolean {
  return PUBLIC_AREAS.some((area) => key.startsWith(area));
}

/** Whether `viewerId` (null when signed out) may read the object at `key`. */
export function canRead(key: string, viewerId: string | null): boolean {
  if (isPublicKey(key)) return true;
  const owner = key.split('/')[1];
  return viewerId !== null && owner === viewerId;
}

/** A LoRA file our trainers write: loras/<userId>/<trainingId>.<ext>. */
const LORA_KEY = /^loras\/[^/]+\/([0-9a-f-]{36})\.[a-z]+$/;

/** The name of a shoot photo's likeness re-take (the generation's id is the photo's). */
export const retakeImageName = (photoId: string) => `${photoId}-retake`;

/**
 * Generation image keys are generations/<userId>/<generationId>[-n | -retake].<ext>: what the media route serves
 * to the owner and the orphan sweep keeps while the row is there.
 */
export const GENERATION_KEY = /^generations\/[^/]+\/([0-9a-f-]{36})(?:-\d+|-retake)?\.[a-z]+$/;

export function isThumbWidth(width: number): width is ThumbWidth {
  return (THUMB_WIDTHS as readonly number[]).includes(width);
}

export const thumbnailKey = (width: ThumbWidth, sourceKey: string) => `thumbs/${width}/${sourceKey}.webp`;

/** An image's key and the keys of every thumbnail that may have been rendered from it. */
export const withThumbnails = (key: string) => [key, ...THUMB_WIDTHS.map((width) => thumbnailKey(width, key))];

/** Areas whose objects are laid out `<area>/<userId>/…`: a person's generated images, uploads and LoRA files. */
const USER_AREAS = ['generations', 'uploads', 'loras'] as const;

/** Every storage folder that holds one person's files, their thumbnails included (erasure deletes them all). */
export function userStoragePrefixes(userId: string): string[] {
  const folders = USER_AREAS.map((area) => `${area}/${userId}/`);
  return [...folders, ...THUMB_WIDTHS.flatMap((width) => folders.map((folder) => `thumbs/${width}/${folder}`))];
}

export type MediaService = ReturnType<typeof createMediaService>;

export function createMediaService(deps: { db: Db; storage: StorageProvider; logger: Logger }) {
  const { db, storage, logger } = deps;
  /** Renders in progress, so a burst of first views of one image renders it once per instance. */
  const rendering = new Map<string, Promise<boolean>>();

  async function renderThumbnail(width: ThumbWidth, sourceKey: string, key: string): Promise<boolean> {
    const source = await storage.read(sourceKey);
    if (!source) return false;
    const webp = await sharp(source, { ...DECODE_LIMITS, failOn: 'error' })
      .rotate()
      .resize({ width, withoutEnlargement: true })
      .webp({ quality: THUMB_QUALITY })
      .toBuffer()
      .catch((err: Error) => {
        logger.warn({ err, sourceKey }, 'could not render a thumbnail');
        return null;
      });
    if (!webp) return false;
    await storage.put(key, webp, 'image/webp');
    return true;
  }

  return {
    /**
     * Whether the image at `key` (or a thumbnail of it) may be served at all. A generation's image is served
     * while the generation is ACTIVE, and no longer from the moment it is deleted, for everyone, its owner
     * included; an explore item that still names it (published before explore kept copies) keeps it served.
     * A character's LoRA is not served while the character is deleted (its Undo window). Every other key: yes
     * (canRead decides who).
     */
    async isServed(key: string): Promise<boolean> {
      // A deleted character's LoRA is kept only for its Undo (product §4): not served meanwhile.
      const lora = LORA_KEY.exec(key)?.[1];
      if (lora && isUuid(lora)) {
        return !(await mediaRepository.characterDeleted(db, lora));
      }
      if (!key.startsWith('generations/')) return true;
      const id = GENERATION_KEY.exec(key)?.[1];
      if (id && isUuid(id)) {
        if (await mediaRepository.generationActive(db, id)) return true;
      }
      return mediaRepository.shownInExplore(db, mediaUrl(key));
    },

    /** A stored object; null when it does not exist. The caller checks canRead first. */
    open(key: string): Promise<StoredObject | null> {
      return storage.get(key);
    },

    /** The WebP thumbnail of an image, rendered and kept in storage on first request. */
    async openThumbnail(width: ThumbWidth, sourceKey: string): Promise<StoredObject | null> {
      if (!THUMBNAIL_SOURCES.test(sourceKey)) return null;
      const key = thumbnailKey(width, sourceKey);
      const cached = await storage.get(key);
      if (cached) return cached;
      let job = rendering.get(key);
      if (!job) {
        job = renderThumbnail(width, sourceKey, key).finally(() => rendering.delete(key));
        rendering.set(key, job);
      }
      return (await job) ? storage.get(key) : null;
    },

    /**
     * What GET /api/download/<id> sends: the caller's own generation, or an explore item when `source` is
     * 'explore' (visible to every signed-in user, product §6). Named `likeness-<timestamp>.<ext>` (product §7).
     */
    async openDownload(userId: string, id: string, source: 'generation' | 'explore') {
      if (!isUuid(id)) throw notFound('No such image.');
      const row = source === 'explore' ? await exploreRepository.findById(db, id) : await generationsRepository.findOwned(db, userId, id);
      const imageUrl = row?.imageUrl;
      const key = imageUrl ? keyFromMediaUrl(imageUrl) : null;
      const object = key ? await storage.get(key) : null;
      if (!object) throw notFound('No such image.');
      const extension = object.contentType === 'image/png' ? 'png' : 'jpeg';
      return { object, filename: `${PRODUCT_NAME.toLowerCase()}-${Date.now()}.${extension}` };
    },
  };
}
