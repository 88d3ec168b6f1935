/** Product media URLs the SPA builds: grid thumbnails are WebP renditions served next to the originals. */

/** Widths the server renders thumbnails at: a 4-column grid card (384) and a 2x/large card (768). */
export const THUMB_WIDTHS = [384, 768] as const;
export type ThumbWidth = (typeof THUMB_WIDTHS)[number];

const MEDIA_PREFIX = '/media/';

/**
 * The thumbnail URL of a product image URL (`/media/<key>` → `/media/thumbs/<w>/<key>`), or the URL itself
 * when it is not one of the product's media URLs (e.g. an external explore image).
 */
export function thumbUrl(imageUrl: string, width: ThumbWidth): string {
  const match = /^(https?:\/\/[^/]+)?(\/media\/)(.+)$/.exec(imageUrl);
  if (!match || match[3].startsWith('thumbs/')) return imageUrl;
  return `${match[1] ?? ''}${MEDIA_PREFIX}thumbs/${width}/${match[3]}`;
}
