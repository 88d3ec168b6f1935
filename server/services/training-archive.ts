import { Inflate } from 'fflate';
import { sniffImageType } from '@common/media.ts';
import { LIMITS } from '@common/product.ts';
import { AppError, badRequest } from '../domain/errors.ts';
import { checkPixelBudget, imageSizeFromHeader } from '../domain/image-budget.ts';

/**
 * Checks a training archive before anyone pays for it: only images (recognised by their bytes), 4 to 50 of
 * them, each and all together of bounded size, no zip bomb, no path tricks. The central directory is read
 * by hand because fflate does not expose the entries' Unix modes (symlinks), because nothing may be inflated
 * before the declared sizes have been checked, and because each entry must be inflated from the directory that
 * was checked: fflate's own reader follows a ZIP64 locator to another directory, and decodes an entry's whole
 * stream even past the size it declares (a 1 MB stream of zeros is a gigabyte of work).
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
  /** 0 stored, 8 deflated. */
  method: number;
  localHeaderOffset: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
/** Compressed bytes handed to the inflater at a time: deflate expands at most ~1032×, so one step is at most ~4 MB. */
const INFLATE_STEP = 4096;
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
  const zip64 = eocd >= 20 && view.getUint32(eocd - 20, true) === ZIP64_LOCATOR_SIGNATURE;
  if (zip64 || count === 0xffff || offset === 0xffffffff)
    throw invalid('The training archive is too large (ZIP64 archives are not accepted).');
  const entries: CentralEntry[] = [];
  const decoder = new TextDecoder();
  for (let i = 0; i < count; i++) {
    if (offset + 46 > zip.length || view.getUint32(offset, true) !== CENTRAL_SIGNATURE) {
      throw invalid('The training archive is damaged.');
    }
    const flags = view.getUint16(offset + 8, true);
    const method = view.getUint16(offset + 10, true);
    const compressedSize = view.getUint32(offset + 20, true);
    const size = view.getUint32(offset + 24, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const madeBy = view.getUint16(offset + 4, true) >> 8;
    const external = view.getUint32(offset + 38, true);
    const localHeaderOffset = view.getUint32(offset + 42, true);
    const name = decoder.decode(zip.subarray(offset + 46, offset + 46 + nameLength));
    // Host 3 is Unix: the mode is in the high 16 bits of the external attributes.
    entries.push({
      name,
      compressedSize,
      size,
      unixMode: madeBy === 3 ? external >>> 16 : 0,
      encrypted: (flags & 1) === 1,
      method,
      localHeaderOffset,
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

const isDirectory = (e: CentralEntry) => e.name.endsWith('/');

/** An entry's bytes, inflated from where the checked directory says, never past the size it declares. */
function unpackEntry(zip: Uint8Array, entry: CentralEntry): Uint8Array {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const damaged = () => invalid('The training archive is damaged.');
  const local = entry.localHeaderOffset;
  if (local + 30 > zip.length || view.getUint32(local, true) !== LOCAL_SIGNATURE) throw damaged();
  const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
  const end = start + entry.compressedSize;
  if (end > zip.length) throw damaged();
  if (entry.method === 0) {
    if (entry.compressedSize !== entry.size) throw damaged();
    return zip.slice(start, end);
  }
  if (entry.method !== 8) throw invalid(`${entry.name} is compressed in a way that is not supported; use a plain ZIP file.`);
  const out = new Uint8Array(entry.size);
  let written = 0;
  const inflater = new Inflate((chunk) => {
    if (written + chunk.length > entry.size) throw damaged();
    out.set(chunk, written);
    written += chunk.length;
  });
  try {
    for (let at = start; at < end; at += INFLATE_STEP)
      inflater.push(zip.subarray(at, Math.min(at + INFLATE_STEP, end)), at + INFLATE_STEP >= end);
  } catch (err) {
    throw err instanceof AppError ? err : damaged();
  }
  if (written !== entry.size) throw damaged();
  return out;
}

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

  const images: ArchiveImage[] = [];
  for (const e of files) {
    const bytes = unpackEntry(zip, e);
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
