import type { Readable } from 'node:stream';

export interface StoredObject {
  body: Readable;
  contentType: string;
  size: number;
  etag: string;
  lastModified: Date;
}

/**
 * Where the product keeps files: generated images, thumbnails, uploads, LoRA artefacts.
 * Keys are relative paths like `generations/<userId>/<id>.jpeg`; the server serves every key at
 * `/media/<key>` (see mediaUrl), so the browser never needs the storage's own address.
 */
export interface StorageProvider {
  readonly name: 'local' | 's3';
  put(key: string, body: Buffer, contentType: string): Promise<{ size: number }>;
  /**
   * Writes a stream as it arrives, memory staying small whatever its size. The object appears whole or not
   * at all: when the stream fails (a rule broken mid-upload) nothing is left under the key.
   */
  putStream(key: string, body: Readable, contentType: string): Promise<{ size: number }>;
  get(key: string): Promise<StoredObject | null>;
  /** Reads a whole object into memory (small objects only: LoRA artefacts, uploads under 5 MB). */
  read(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Deletes every object under a folder (`prefix` ends in '/'); returns how many there were. */
  deleteAll(prefix: string): Promise<number>;
  /** Every object whose key starts with `prefix` (e.g. 'uploads/'), in pages; the retention job's sweep for orphans. */
  list(prefix: string): AsyncIterable<ListedObject>;
}

export interface ListedObject {
  key: string;
  lastModified: Date;
}

export const MEDIA_PREFIX = '/media/';

/** The product's own URL of a stored object. */
export function mediaUrl(key: string): string {
  return MEDIA_PREFIX + key.split('/').map(encodeURIComponent).join('/');
}

/** The key behind one of the product's media URLs (absolute or relative), or null if it is not one. */
export function keyFromMediaUrl(url: string): string | null {
  let path = url;
  if (/^https?:\/\//.test(url)) {
    try {
      path = new URL(url).pathname;
    } catch {
      return null;
    }
  }
  if (!path.startsWith(MEDIA_PREFIX)) return null;
  let key: string;
  try {
    key = path.slice(MEDIA_PREFIX.length).split('/').map(decodeURIComponent).join('/');
  } catch {
    // A malformed % escape: not an address the product ever made.
    return null;
  }
  return isSafeKey(key) ? key : null;
}

/** A folder prefix as deleteAll takes it: a safe key followed by '/'. */
export function isSafePrefix(prefix: string): boolean {
  return prefix.endsWith('/') && isSafeKey(prefix.slice(0, -1));
}

/** Keys are plain relative paths: no traversal, no absolute paths, no odd characters. */
export function isSafeKey(key: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._\-/]*$/.test(key) && !key.split('/').some((part) => part === '..' || part === '.' || part === '');
}
