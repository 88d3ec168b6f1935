import sharp from 'sharp';
import { UPLOAD_MESSAGES } from '@common/captions.ts';
import { LIMITS } from '@common/product.ts';
import { badRequest } from './errors.ts';

/**
 * The one pixel budget (LIMITS.imageMaxPixels) for every image the server decodes: uploads, training photos
 * and captions. A file's header states its size, so an image is measured from its first bytes — before it is
 * stored, charged for or decoded — and every decode of an image a user sent also passes `DECODE_LIMITS` to
 * sharp, which refuses to decode past the budget whatever the header said.
 */
export const DECODE_LIMITS = { limitInputPixels: LIMITS.imageMaxPixels } as const;

export interface ImageSize {
  width: number;
  height: number;
}

const u16be = (b: Uint8Array, at: number) => (b[at] << 8) | b[at + 1];
const u16le = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);
const u24le = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);
const u32be = (b: Uint8Array, at: number) => ((b[at] << 24) >>> 0) + ((b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]);
const ascii = (b: Uint8Array, at: number, text: string) => [...text].every((c, i) => b[at + i] === c.charCodeAt(0));

/** JPEG start-of-frame markers (every SOFn but DHT C4, JPG C8 and DAC CC) carry height and width. */
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/**
 * The pixel size a JPEG, PNG or WebP header states. `'incomplete'` while the header has not all arrived yet
 * (a JPEG's frame header follows its metadata segments); null when the bytes are not a readable header.
 */
export function imageSizeFromHeader(head: Uint8Array): ImageSize | 'incomplete' | null {
  if (head.length < 12) return 'incomplete';
  if (head[0] === 0x89 && ascii(head, 1, 'PNG')) {
    if (head.length < 24) return 'incomplete';
    return ascii(head, 12, 'IHDR') ? { width: u32be(head, 16), height: u32be(head, 20) } : null;
  }
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WEBP')) {
    if (head.length < 30) return 'incomplete';
    if (ascii(head, 12, 'VP8X')) return { width: u24le(head, 24) + 1, height: u24le(head, 27) + 1 };
    if (ascii(head, 12, 'VP8L')) {
      if (head[20] !== 0x2f) return null;
      const bits = (head[21] | (head[22] << 8) | (head[23] << 16) | (head[24] << 24)) >>> 0;
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    if (ascii(head, 12, 'VP8 ')) return { width: u16le(head, 26) & 0x3fff, height: u16le(head, 28) & 0x3fff };
    return null;
  }
  if (head[0] === 0xff && head[1] === 0xd8) {
    let at = 2;
    for (;;) {
      if (at + 4 > head.length) return 'incomplete';
      if (head[at] !== 0xff) return null;
      const marker = head[at + 1];
      if (marker === 0xff) {
        at += 1; // fill byte
        continue;
      }
      if (marker === 0xd9 || marker === 0xda) return null; // image data or end before any frame header
      if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
        at += 2;
        continue;
      }
      const length = u16be(head, at + 2);
      if (length < 2) return null;
      if (isStartOfFrame(marker)) {
        if (at + 9 > head.length) return 'incomplete';
        return { width: u16be(head, at + 7), height: u16be(head, at + 5) };
      }
      at += 2 + length;
    }
  }
  return null;
}

/** Throws the upload's 400 unless the size is a real image within the pixel budget. */
export function checkPixelBudget(size: ImageSize | 'incomplete' | null): ImageSize {
  if (!size || size === 'incomplete' || size.width < 1 || size.height < 1)
    throw badRequest(UPLOAD_MESSAGES.invalidType, 'unreadable_image');
  if (size.width * size.height > LIMITS.imageMaxPixels) throw badRequest(UPLOAD_MESSAGES.tooManyPixels, 'image_too_large');
  return size;
}

/**
 * Whether a whole image decodes within the budget (its header and every pixel): decoded through a tiny
 * thumbnail so the memory stays small (JPEG shrinks on load; libvips streams the rest).
 */
export async function decodesWithinBudget(image: Uint8Array): Promise<boolean> {
  const size = imageSizeFromHeader(image);
  if (!size || size === 'incomplete' || size.width * size.height > LIMITS.imageMaxPixels) return false;
  try {
    await sharp(image, { ...DECODE_LIMITS, failOn: 'truncated' })
      .resize(32, 32, { fit: 'inside' })
      .raw()
      .toBuffer();
    return true;
  } catch {
    return false;
  }
}
