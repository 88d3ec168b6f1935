import { strToU8, Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { keyFromMediaUrl, type StorageProvider } from '../providers/storage/index.ts';

/** One file of a streamed ZIP. */
export interface ZipEntry {
  /** Its path inside the archive ('images/2026-11-25_abc.jpeg'); the caller keeps names unique. */
  name: string;
  /**
   * Its bytes or text, or a function that opens a stream of them when the entry's turn comes (so only one
   * source is open at a time); a function answering null leaves the entry out (a file that is gone).
   */
  content: Uint8Array | string | (() => Promise<AsyncIterable<Uint8Array> | null>);
  /** Deflate it (text does shrink); stored as it is otherwise (JPEG, PNG and ZIP are compressed already). */
  compress?: boolean;
  modified?: Date;
}

/**
 * A ZIP archive written as it is read: each entry's bytes go out as they arrive (fflate's streaming Zip), and
 * nothing is produced before the reader asks for more, so memory stays flat however large the archive is.
 * Used for 'Download my data', the download of selected images, and any other many-file download.
 *
 * A source that fails midway ends the stream with that error: the reader's download is cut short (an
 * incomplete archive, which ZIP tools report), and the caller's onError hears why.
 */
export function zipStream(
  entries: Iterable<ZipEntry> | AsyncIterable<ZipEntry>,
  onError?: (err: unknown) => void,
): ReadableStream<Uint8Array> {
  const chunks = zipChunks(entries)[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (err) {
          onError?.(err);
          controller.error(err);
        }
      },
      async cancel() {
        await chunks.return?.(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

async function* zipChunks(entries: Iterable<ZipEntry> | AsyncIterable<ZipEntry>): AsyncGenerator<Uint8Array> {
  const ready: Uint8Array[] = [];
  let failure: Error | null = null;
  // The synchronous Zip calls back during push()/end(), so what it wrote is in `ready` right after each call.
  const zip = new Zip((err, data) => {
    if (err) failure = err;
    else if (data.length) ready.push(data);
  });
  function* drain(): Generator<Uint8Array> {
    if (failure) throw failure;
    while (ready.length) yield ready.shift()!;
  }

  for await (const entry of entries) {
    const source = typeof entry.content === 'function' ? await entry.content() : entry.content;
    if (source === null) continue;
    const file = entry.compress ? new ZipDeflate(entry.name, { level: 6 }) : new ZipPassThrough(entry.name);
    if (entry.modified) file.mtime = entry.modified;
    zip.add(file);
    if (typeof source === 'string' || source instanceof Uint8Array) {
      file.push(typeof source === 'string' ? strToU8(source) : source, true);
    } else {
      for await (const chunk of source) {
        file.push(chunk instanceof Uint8Array ? chunk : strToU8(String(chunk)));
        yield* drain();
      }
      file.push(new Uint8Array(0), true);
    }
    yield* drain();
  }
  zip.end();
  yield* drain();
}

/** A file name safe in any ZIP tool and file system: no path separators, control characters or reserved marks. */
export function safeFileName(name: string, fallback = 'file'): string {
  const cleaned = name
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_')
    .replace(/^[.\s]+|[.\s]+$/g, '')
    .slice(0, 100);
  return cleaned || fallback;
}

/** An entry's content: the stored file behind a /media URL, opened when its turn comes; gone files are left out. */
export function storedFile(storage: StorageProvider, mediaUrl: string): () => Promise<AsyncIterable<Uint8Array> | null> {
  return async () => {
    const key = keyFromMediaUrl(mediaUrl);
    return key ? ((await storage.get(key))?.body ?? null) : null;
  };
}
