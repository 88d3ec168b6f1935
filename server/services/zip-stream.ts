import { Readable } from 'node:stream';
import { Zip, ZipPassThrough } from 'fflate';
import { keyFromMediaUrl, type StorageProvider } from '../providers/storage/index.ts';

export interface ZipEntry {
  name: string;
  /** The stored image behind a /media URL. */
  imageUrl: string;
}

/**
 * A ZIP of stored images, streamed: each object is read from storage chunk by chunk and written through
 * uncompressed (JPEGs do not shrink), and the archive's bytes are handed on as they are made, so memory stays
 * flat whatever the number of photos. An object missing from storage is left out.
 */
export function streamZip(storage: StorageProvider, entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>): Readable {
  async function* bytes(): AsyncGenerator<Uint8Array> {
    const ready: Uint8Array[] = [];
    let failure: Error | null = null;
    const zip = new Zip((err, data) => {
      if (err) failure = err;
      else ready.push(data);
    });
    const drain = function* () {
      if (failure) throw failure;
      while (ready.length) yield ready.shift()!;
    };
    for await (const entry of entries) {
      const key = keyFromMediaUrl(entry.imageUrl);
      const object = key ? await storage.get(key) : null;
      if (!object) continue;
      const file = new ZipPassThrough(entry.name);
      zip.add(file);
      try {
        for await (const chunk of object.body as AsyncIterable<Buffer>) {
          file.push(chunk);
          yield* drain();
        }
      } finally {
        object.body.destroy();
      }
      file.push(new Uint8Array(0), true);
      yield* drain();
    }
    zip.end();
    yield* drain();
  }
  return Readable.from(bytes(), { objectMode: false, highWaterMark: 64 * 1024 });
}
