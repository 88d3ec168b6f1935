import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dirname, join } from 'node:path';
import { isSafeKey, isSafePrefix, type StorageProvider } from './index.ts';

const TYPES: Record<string, string> = {
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  zip: 'application/zip',
  json: 'application/json',
  safetensors: 'application/octet-stream',
};

/** Bodies up to this size are written synchronously by `put` (a generated image is ~0.1–2 MB). */
const SYNC_PUT_MAX_BYTES = 2 * 1024 * 1024;

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
      // Write then rename, so a reader never sees half a file and two writers of one key (a shoot photo taken
      // over by another instance) replace it whole. The folder usually exists already (a user's generations
      // share one), so it is made only when the write says it is missing: one syscall less.
      const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
      if (body.length <= SYNC_PUT_MAX_BYTES) {
        // Synchronous for an image-sized body: open, write, close and rename cost ~0.3 ms of CPU on the event
        // loop against ~0.5 ms as four thread-pool round trips, and ~30 fewer syscalls
        // (docs/decisions/014-generate-path.md). The price: the loop waits for the kernel's work, mostly
        // creating the file (0.3–0.4 ms typically, 1–3 ms on a loaded machine). Larger bodies would hold it longer.
        try {
          writeFileSync(tmp, body);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(tmp, body);
        }
        renameSync(tmp, path);
        return { size: body.length };
      }
      await writeFile(tmp, body).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
        await mkdir(dirname(path), { recursive: true });
        await writeFile(tmp, body);
      });
      await rename(tmp, path);
      return { size: body.length };
    },
    async putStream(key, body) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // Same as put: written beside the final name, renamed into place only once complete.
      const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      let size = 0;
      const measure = new Transform({
        transform(chunk: Buffer, _enc, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      try {
        await pipeline(body, measure, createWriteStream(tmp));
        await rename(tmp, path);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      return { size };
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
      // Synchronous on purpose: the objects read whole are small (an upscale's or edit's source image, LoRA
      // artefacts, uploads under 5 MB) and usually in the page cache, where reading 130 KB takes ~10 µs, against
      // ~160 µs for the four thread-pool round trips of an asynchronous read (docs/decisions/014-generate-path.md).
      try {
        return readFileSync(pathOf(key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async exists(key) {
      return (await stat(pathOf(key)).catch(() => null))?.isFile() ?? false;
    },
    async deleteAll(prefix) {
      if (!isSafePrefix(prefix)) throw new Error(`Unsafe storage prefix: ${prefix}`);
      const dir = pathOf(prefix.slice(0, -1));
      const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return [];
        throw err;
      });
      await rm(dir, { recursive: true, force: true });
      return entries.filter((e) => e.isFile()).length;
    },
    async *list(prefix) {
      // The folder holding the prefix, walked depth first; keys are relative paths with '/'.
      const base = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
      const walk = async function* (dir: string): AsyncGenerator<string> {
        const entries = await readdir(join(root, dir), { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return [];
          throw err;
        });
        for (const entry of entries) {
          const key = dir ? `${dir}/${entry.name}` : entry.name;
          if (entry.isDirectory()) yield* walk(key);
          else if (entry.isFile() && key.startsWith(prefix)) yield key;
        }
      };
      for await (const key of walk(base)) {
        const info = await stat(join(root, key)).catch(() => null);
        if (info) yield { key, lastModified: info.mtime };
      }
    },
  };
}
