/**
 * Product media: the URLs the SPA builds (grid thumbnails are WebP renditions served next to the originals),
 * and the image formats accepted, recognised by their first bytes.
 */

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

/**
 * The image formats the product accepts and the trainers read — JPEG, PNG and WEBP — by sharp's format name,
 * with their content types.
 */
export const IMAGE_CONTENT_TYPES = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' } as const;
export type ImageContentType = (typeof IMAGE_CONTENT_TYPES)[keyof typeof IMAGE_CONTENT_TYPES];
/** The same formats as a set of sharp's format names (`metadata().format`). */
export const IMAGE_FORMATS: ReadonlySet<string> = new Set(Object.keys(IMAGE_CONTENT_TYPES));

const startsWith = (head: Uint8Array, bytes: number[], at = 0) => bytes.every((b, i) => head[at + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/**
 * The image type a file's first bytes (12 are enough) say it is, or null when it is none of IMAGE_CONTENT_TYPES.
 * The file's name and declared type are not trusted.
 */
export function sniffImageType(head: Uint8Array): ImageContentType | null {
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) return 'image/webp';
  return null;
}

/**
 * `attachment` with a file name (RFC 6266): an ASCII `filename` every client reads (a header carries bytes 0–255
 * only, so a name in another script would make the header fail), and the exact name as `filename*` (RFC 8187).
 */
export function attachmentDisposition(fileName: string): string {
  const extension = /\.[A-Za-z0-9]{1,8}$/.exec(fileName)?.[0] ?? '';
  const base = fileName
    .slice(0, fileName.length - extension.length)
    .normalize('NFKD')
    .replace(/[^\x20-\x7e]|["\\]/g, '')
    .replace(/^[-.\s]+/, '');
  const ascii = `${base || 'download'}${extension}`;
  if (ascii === fileName) return `attachment; filename="${ascii}"`;
  const exact = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/** The file name a Content-Disposition gives: its exact `filename*` when there is one, else `filename`. */
export function fileNameOfDisposition(header: string | null): string | null {
  const exact = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(header ?? '');
  if (exact) {
    try {
      return decodeURIComponent(exact[1]);
    } catch {
      // A malformed encoding: the plain name below.
    }
  }
  return /filename\s*=\s*"?([^";]+)"?/i.exec(header ?? '')?.[1] ?? null;
}
