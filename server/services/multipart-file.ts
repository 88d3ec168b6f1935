import { PassThrough, type Readable } from 'node:stream';
import { badRequest, payloadTooLarge } from '../domain/errors.ts';

/**
 * Reads one file field from a multipart/form-data body as it streams in and hands its bytes on as a stream,
 * so an upload goes to storage as it arrives and is refused (413) the moment it passes its limit. Only a
 * chunk or two is ever held in memory, whatever the file's size. Other fields before the file are skipped.
 */

export interface FileTypeRule<K extends string> {
  kind: K;
  contentType: string;
  extension: string;
  maxBytes: number;
  /** True when the file's first bytes carry this type's signature. */
  matches(head: Uint8Array): boolean;
}

export interface ReceivedFile<K extends string> {
  rule: FileTypeRule<K>;
  fileName: string | null;
  /** The file's bytes as they arrive; fails with the 413/400 AppError when the body breaks a rule. */
  stream: Readable;
}

/** Bytes needed to recognise every supported type (WEBP: RIFF....WEBP). */
const SIGNATURE_BYTES = 12;
const MAX_PART_HEADER_BYTES = 16 * 1024;
/** Room for part headers and small fields around the file. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

/** The largest whole form body accepted for these rules: the largest file plus room for headers and fields. */
export function maxFormBytes(rules: FileTypeRule<string>[]): number {
  return Math.max(...rules.map((r) => r.maxBytes)) + FORM_OVERHEAD_BYTES;
}

function boundaryOf(contentType: string | undefined): string {
  const match = contentType?.match(/^multipart\/form-data\s*;.*boundary=(?:"([^"]+)"|([^\s;]+))/i);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw badRequest('Send the file as multipart/form-data with a field named "file".', 'invalid_upload');
  return boundary;
}

function parseDisposition(headers: string): { name: string | null; fileName: string | null } {
  const line = headers.split('\r\n').find((l) => /^content-disposition:/i.test(l)) ?? '';
  const name = line.match(/;\s*name="([^"]*)"/i)?.[1] ?? null;
  const fileName = line.match(/;\s*filename="([^"]*)"/i)?.[1] ?? null;
  return { name, fileName };
}

/** Waits until `stream` takes writes again or is gone, leaving no listener behind (it waits many times). */
function drainedOrClosed(stream: PassThrough): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/**
 * Starts reading the body; resolves as soon as the file's type is known from its first bytes (or rejects with
 * a 400/413 before then). The returned stream applies backpressure to the body: bytes are read only as fast
 * as the consumer takes them.
 */
export function openMultipartFile<K extends string>(
  body: ReadableStream<Uint8Array> | null,
  contentType: string | undefined,
  field: string,
  rules: FileTypeRule<K>[],
  unsupported: string,
): Promise<ReceivedFile<K>> {
  const boundary = boundaryOf(contentType);
  if (!body) throw badRequest('The upload is empty.', 'invalid_upload');
  const opening = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const reader = body.getReader();
  const out = new PassThrough({ highWaterMark: 64 * 1024 });

  let announce!: (file: ReceivedFile<K>) => void;
  let refuse!: (err: unknown) => void;
  const ready = new Promise<ReceivedFile<K>>((resolve, reject) => {
    announce = resolve;
    refuse = reject;
  });
  let announced = false;

  let pending = Buffer.alloc(0);
  let state: 'preamble' | 'headers' | 'skip' | 'file' = 'preamble';
  let fileName: string | null = null;
  let rule: FileTypeRule<K> | undefined;
  /** The file's first bytes, held until they show its type. */
  let head: Buffer[] = [];
  let size = 0;
  // Bytes outside the file are discarded as they stream, but a body may not go on for ever either.
  const maxBodyBytes = maxFormBytes(rules);
  let received = 0;

  const detect = (bytes: Buffer) => {
    const found = rules.find((r) => r.matches(bytes));
    if (!found) throw badRequest(unsupported, 'unsupported_type');
    rule = found;
    announced = true;
    announce({ rule: found, fileName, stream: out });
  };
  /** Hands bytes to the consumer, waiting while it is busy; false once it has gone away. */
  const emit = async (bytes: Buffer): Promise<boolean> => {
    if (out.destroyed) return false;
    if (!out.write(bytes)) await drainedOrClosed(out);
    return !out.destroyed;
  };
  const tooLarge = () => payloadTooLarge(`File is too large (max ${Math.round(rule!.maxBytes / 1024 / 1024)}MB).`);
  /** The file's next bytes: held until the type is known, then passed on; false once the consumer left. */
  const takeFileBytes = async (bytes: Buffer): Promise<boolean> => {
    if (bytes.length === 0) return true;
    size += bytes.length;
    if (!rule) {
      head.push(bytes);
      if (size < SIGNATURE_BYTES) return true;
      bytes = Buffer.concat(head);
      head = [];
      detect(bytes);
    }
    if (size > rule!.maxBytes) throw tooLarge();
    return emit(bytes);
  };

  const pump = async (): Promise<void> => {
    for (;;) {
      // Drain what is buffered for the current state; read more only when it needs more bytes.
      let progressed = true;
      while (progressed) {
        progressed = false;
        if (state === 'preamble') {
          const at = pending.indexOf(opening);
          if (at >= 0 && pending.length >= at + opening.length + 2) {
            pending = pending.subarray(at + opening.length + 2);
            state = 'headers';
            progressed = true;
          } else if (at < 0 && pending.length > opening.length) {
            pending = Buffer.from(pending.subarray(pending.length - opening.length));
          }
        } else if (state === 'headers') {
          const end = pending.indexOf('\r\n\r\n');
          if (end < 0 && pending.length > MAX_PART_HEADER_BYTES) throw badRequest('Malformed multipart body.', 'invalid_upload');
          if (end >= 0) {
            const part = parseDisposition(pending.subarray(0, end).toString('latin1'));
            pending = pending.subarray(end + 4);
            state = part.name === field && part.fileName !== null ? 'file' : 'skip';
            fileName = part.fileName;
            progressed = true;
          }
        } else {
          const at = pending.indexOf(delimiter);
          if (at >= 0) {
            if (state === 'file') {
              if (!(await takeFileBytes(Buffer.from(pending.subarray(0, at))))) return;
              if (!rule) {
                // A file shorter than a signature: its type is known only now.
                detect(Buffer.concat(head));
                if (head.length) await emit(Buffer.concat(head));
              }
              out.end();
              return;
            }
            // Another field ended; the next part's headers follow the delimiter's line break.
            pending = pending.subarray(at + delimiter.length);
            state = 'preamble';
            pending = Buffer.concat([opening, pending]);
            progressed = true;
          } else {
            // Keep a tail that could be the start of a delimiter split across chunks.
            const keep = Math.min(pending.length, delimiter.length - 1);
            if (state === 'file' && !(await takeFileBytes(Buffer.from(pending.subarray(0, pending.length - keep))))) return;
            pending = Buffer.from(pending.subarray(pending.length - keep));
          }
        }
      }
      // The client went away mid-upload (a closed tab, a lost connection): its request, not a fault of ours.
      const { value, done } = await reader.read().catch(() => {
        throw badRequest('The upload was interrupted. Please try again.', 'upload_interrupted');
      });
      if (done) break;
      received += value.length;
      if (received > maxBodyBytes) throw payloadTooLarge('The upload is too large.');
      pending = pending.length ? Buffer.concat([pending, value]) : Buffer.from(value);
    }
    throw badRequest(`The form has no complete file field named "${field}".`, 'invalid_upload');
  };

  pump()
    .catch((err: unknown) => {
      if (announced) out.destroy(err as Error);
      else refuse(err);
    })
    .finally(() => {
      // Stop reading; the rest of the body is discarded with the connection.
      void reader.cancel().catch(() => {});
    });
  return ready;
}

/** Opens the file field and reads it whole, for a file small enough to hold (its rule's `maxBytes` bounds it). */
export async function readMultipartFile<K extends string>(
  ...args: Parameters<typeof openMultipartFile<K>>
): Promise<ReceivedFile<K> & { bytes: Buffer }> {
  const file = await openMultipartFile(...args);
  const chunks: Buffer[] = [];
  for await (const chunk of file.stream) chunks.push(chunk as Buffer);
  return { ...file, bytes: Buffer.concat(chunks) };
}
