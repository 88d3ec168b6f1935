import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isSafeKey, type StorageProvider } from './index.ts';

const TYPES: Record<string, string> = {
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  zip: 'application/zip',
  json: 'application/json',
  safetensors: 'application/octet-stream',
};

/** Files on local disk under <DATA_DIR>/files. The content type follows the key's extension. */
export function createLocalStorage(root: string): StorageProvider {
  const pathOf = (key: string) => {
    if (!isSafeKey(key)) throw new Error(`Unsafe storage key: ${key}`);
    return join(root, key);
  };
  const typeOf = (key: string) => TYPES[key.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream';

  return {
    name: 'local',
    async put(key, body) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // Write then rename, so a reader never sees half a file.
      const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
      await writeFile(tmp, body);
      await rename(tmp, path);
      return { size: body.length, etag: createHash('sha1').update(body).digest('hex') };
    },
    async get(key) {
      const path = pathOf(key);
      const info = await stat(path).catch(() => null);
      if (!info?.isFile()) return null;
      return {
        body: createReadStream(path),
        contentType: typeOf(key),
        size: info.size,
        // Size and mtime identify a version: objects are written once and never edited in place.
        etag: `${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}`,
        lastModified: info.mtime,
      };
    },
    async read(key) {
      return readFile(pathOf(key)).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null;
        throw err;
      });
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async exists(key) {
      return (await stat(pathOf(key)).catch(() => null))?.isFile() ?? false;
    },
  };
}
