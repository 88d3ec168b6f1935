import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { constants, copyFile, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dirname, join } from 'node:path';
import { isSafeKey, isSafePrefix, type StorageProvider } from './provider.ts';

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

/** Empty files kept ready for `put`: refilled from the thread pool when fewer than `low` are left. */
const SPARE_FILES = { high: 16, low: 8, scarce: 4 } as const;
/** Where they wait: a name no key can have (keys start with a letter or a digit). */
const SPARE_DIR = '.spare';

/**
 * Empty files made ahead of need, off the event loop. Creating a file is the costly part of writing one: on this
 * project's ext4 machines 0.1–0.8 ms of kernel time, depending on how full the folder's block group is (inode
 * allocation), against ~0.03 ms to rename one and ~0.01 ms to open one that exists
 * (docs/decisions/014-generate-path.md). Any process on the same DATA_DIR may take any spare: taking one is a
 * rename, which only one taker can win, so the spares a stopped process left are used by the next.
 */
function spareFiles(root: string) {
  const dir = join(root, SPARE_DIR);
  // Spares are copies of this empty file: one thread-pool call each, where opening and closing a new file takes two,
  // and each costs the event loop a dispatch and a completion (docs/decisions/014-generate-path.md).
  const template = join(dir, '.empty');
  const ready: string[] = [];
  let refilling = false;
  let templateMade = false;
  const refill = async () => {
    if (refilling) return;
    refilling = true;
    try {
      if (!templateMade) {
        await mkdir(dir, { recursive: true });
        await writeFile(template, '');
        templateMade = true;
      }
      if (ready.length === 0) for (const name of await readdir(dir)) if (!name.startsWith('.')) ready.push(join(dir, name));
      while (ready.length < SPARE_FILES.high) {
        // One at a time while the takers leave it time: files made side by side hold the folder's lock that taking
        // one needs, and a put waited up to ~4 ms for it. Once fewer than `scarce` are left, all that are missing at
        // once: a loop kept busy by requests turns too seldom for one file a turn, and with one at a time nine puts in
        // ten under the bench's load created their own (docs/decisions/014-generate-path.md).
        const count = ready.length < SPARE_FILES.scarce ? SPARE_FILES.high - ready.length : 1;
        const made = await Promise.all(
          Array.from({ length: count }, async () => {
            const path = join(dir, `${process.pid}-${randomBytes(6).toString('hex')}`);
            await copyFile(template, path, constants.COPYFILE_EXCL);
            return path;
          }),
        );
        ready.push(...made);
      }
    } catch {
      // A full disk or a folder removed under us: `put` creates its files itself until a later refill succeeds.
      templateMade = false;
    } finally {
      refilling = false;
    }
  };
  void refill();
  return {
    /** Moves a spare to `path` (which must not exist) and reports whether it did; false: create the file. */
    takeAs(path: string): boolean {
      // Oldest first, so that those a stopped process left go before the new ones.
      const spare = ready.shift();
      if (ready.length < SPARE_FILES.low) void refill();
      if (!spare) return false;
      try {
        renameSync(spare, path);
        return true;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // ENOENT: path's folder is missing (the caller makes it and creates the file), or another process took
        // the spare; EXDEV: the key's folder is on another file system.
        if (code !== 'ENOENT' && code !== 'EXDEV') throw err;
        if (existsSync(spare)) ready.push(spare);
        return false;
      }
    },
  };
}

/** Files on local disk under <DATA_DIR>/files. The content type follows the key's extension. */
export function createLocalStorage(root: string): StorageProvider {
  const spares = spareFiles(root);
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
      // share one): it is looked for only when a spare could not be moved into it.
      const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
      if (body.length <= SYNC_PUT_MAX_BYTES) {
        // Synchronous for an image-sized body: open, write, close and rename cost ~0.3 ms of CPU on the event
        // loop against ~0.5 ms as four thread-pool round trips, and ~30 fewer syscalls
        // (docs/decisions/014-generate-path.md). Into a spare file when there is one, so that the loop does not
        // wait for the kernel to create a file. Larger bodies would hold the loop longer.
        let spare = spares.takeAs(tmp);
        if (!spare && !existsSync(dirname(path))) {
          mkdirSync(dirname(path), { recursive: true });
          spare = spares.takeAs(tmp);
        }
        // A spare is empty, so it is opened as it is ('r+'): truncating a file on ext4, even an empty one, makes its
        // close allocate its blocks and start writing it out, on the event loop (docs/decisions/014-generate-path.md).
        writeFileSync(tmp, body, { flag: spare ? 'r+' : 'w' });
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
