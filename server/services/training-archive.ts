import { unzipSync } from 'fflate';
import { sniffImageType } from '@common/media.ts';
import { LIMITS } from '@common/product.ts';
import { AppError, badRequest } from '../domain/errors.ts';
import { checkPixelBudget, imageSizeFromHeader } from '../domain/image-budget.ts';

/**
 * Checks a training archive before anyone pays for it: only images (recognised by their bytes), 4 to 50 of
 * them, each and all together of bounded size, no zip bomb, no path tricks. The central directory is read
 * by hand first because fflate does not expose the entries' Unix modes (symlinks) and because nothing may
 * be inflated before the declared sizes have been checked.
 */

export const ARCHIVE_LIMITS = {
  /** One photo, uncompressed. */
  maxEntryBytes: 25 * 1024 * 1024,
  /** All photos together, uncompressed. */
  maxTotalBytes: 250 * 1024 * 1024,
  /** Photos barely compress; anything squeezed harder than this is padding or a bomb. */
  maxCompressionRatio: 20,
} as const;

export interface ArchiveImage {
  name: string;
  bytes: Uint8Array;
  contentType: string;
}

interface CentralEntry {
  name: string;
  compressedSize: number;
  size: number;
  /** Unix mode from the external attributes (0 when the archive was made without one). */
  unixMode: number;
  encrypted: boolean;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;

const invalid = (message: string) => badRequest(message, 'invalid_training_archive');

function readCentralDirectory(zip: Uint8Array): CentralEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  // The end-of-central-directory record sits in the last 22 + up to 65535 (comment) bytes.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD_SIGNATURE) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw invalid('The training archive is not a valid ZIP file.');
  const count = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || offset === 0xffffffff) throw invalid('The training archive is too large (ZIP64 archives are not accepted).');
  const entries: CentralEntry[] = [];
  const decoder = new TextDecoder();
  for (let i = 0; i < count; i++) {
    if (offset + 46 > zip.length || view.getUint32(offset, true) !== CENTRAL_SIGNATURE) {
      throw invalid('The training archive is damaged.');
    }
    const flags = view.getUint16(offset + 8, true);
    const compressedSize = view.getUint32(offset + 20, true);
    const size = view.getUint32(offset + 24, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const madeBy = view.getUint16(offset + 4, true) >> 8;
    const external = view.getUint32(offset + 38, true);
    const name = decoder.decode(zip.subarray(offset + 46, offset + 46 + nameLength));
    // Host 3 is Unix: the mode is in the high 16 bits of the external attributes.
    entries.push({ name, compressedSize, size, unixMode: madeBy === 3 ? external >>> 16 : 0, encrypted: (flags & 1) === 1 });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

const isDirectory = (e: CentralEntry) => e.name.endsWith('/');

function checkPath(name: string): void {
  const parts = name.split(/[\\/]/);
  if (name.startsWith('/') || name.startsWith('\\') || /^[a-zA-Z]:/.test(name) || parts.includes('..') || name.includes('\0')) {
    throw invalid(`The training archive contains an unsafe path: ${JSON.stringify(name.slice(0, 80))}.`);
  }
}

/** Returns the archive's photos when it passes every check; throws a 400 AppError saying what is wrong. */
export async function checkTrainingArchive(zip: Uint8Array): Promise<ArchiveImage[]> {
  const entries = readCentralDirectory(zip);
  const files = entries.filter((e) => !isDirectory(e));
  for (const e of entries) checkPath(e.name);
  for (const e of files) {
    const type = e.unixMode & S_IFMT;
    if (type === S_IFLNK) throw invalid(`The training archive contains a symbolic link: ${JSON.stringify(e.name.slice(0, 80))}.`);
    if (type !== 0 && type !== S_IFREG)
      throw invalid(`The training archive contains something that is not a file: ${JSON.stringify(e.name.slice(0, 80))}.`);
    if (e.encrypted) throw invalid('The training archive must not be encrypted.');
  }
  if (files.length < LIMITS.trainingMinImages)
    throw invalid(`The training archive must contain at least ${LIMITS.trainingMinImages} photos.`);
  if (files.length > LIMITS.trainingMaxImages)
    throw invalid(`The training archive may contain at most ${LIMITS.trainingMaxImages} photos.`);
  let total = 0;
  for (const e of files) {
    if (e.size > ARCHIVE_LIMITS.maxEntryBytes)
      throw invalid(`${e.name} is too large (max ${ARCHIVE_LIMITS.maxEntryBytes / 1024 / 1024} MB per photo).`);
    if (e.size > Math.max(1, e.compressedSize) * ARCHIVE_LIMITS.maxCompressionRatio && e.size > 64 * 1024) {
      throw invalid('The training archive is compressed suspiciously well (a zip bomb?); upload the photos themselves.');
    }
    total += e.size;
  }
  if (total > ARCHIVE_LIMITS.maxTotalBytes)
    throw invalid(`The photos are too large together (max ${ARCHIVE_LIMITS.maxTotalBytes / 1024 / 1024} MB).`);

  let unpacked: Record<string, Uint8Array>;
  try {
    // fflate inflates each entry into a buffer of its declared size, so a lying header cannot grow past it.
    unpacked = unzipSync(zip, { filter: (f) => !f.name.endsWith('/') });
  } catch {
    throw invalid('The training archive is damaged.');
  }
  const images: ArchiveImage[] = [];
  for (const e of files) {
    const bytes = unpacked[e.name];
    if (!bytes || bytes.length !== e.size) throw invalid('The training archive is damaged.');
    const contentType = sniffImageType(bytes);
    if (!contentType) throw invalid(`${e.name} is not a photo (JPG, PNG or WEBP only).`);
    // The pixel budget from the header, before any trainer decodes it (four 16000×16000 PNGs zip small).
    try {
      checkPixelBudget(imageSizeFromHeader(bytes));
    } catch (err) {
      throw err instanceof AppError ? invalid(`${e.name}: ${err.message}`) : err;
    }
    images.push({ name: e.name, bytes, contentType });
  }
  return images;
}
