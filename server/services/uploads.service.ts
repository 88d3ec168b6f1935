import { randomUUID } from 'node:crypto';
import { LIMITS } from '@common/product.ts';
import type { Db } from '../db/index.ts';
import { maxFormBytes, readMultipartFile, type FileTypeRule } from '../http/multipart-file.ts';
import type { Logger } from '../logger.ts';
import { mediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import { uploadsRepository as repo, type UploadRow } from '../repositories/uploads.repository.ts';

export type UploadKind = 'image' | 'training-archive';

const startsWith = (head: Uint8Array, bytes: number[], at = 0) => bytes.every((b, i) => head[at + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** What the uploader accepts, recognised from the file's first bytes (its name and declared type are ignored). */
export const UPLOAD_TYPES: FileTypeRule<UploadKind>[] = [
  { kind: 'image', contentType: 'image/jpeg', extension: 'jpeg', maxBytes: LIMITS.uploadMaxBytes, matches: (h) => startsWith(h, [0xff, 0xd8, 0xff]) },
  { kind: 'image', contentType: 'image/png', extension: 'png', maxBytes: LIMITS.uploadMaxBytes, matches: (h) => startsWith(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { kind: 'image', contentType: 'image/webp', extension: 'webp', maxBytes: LIMITS.uploadMaxBytes, matches: (h) => startsWith(h, ascii('RIFF')) && startsWith(h, ascii('WEBP'), 8) },
  // The training archive (training_images.zip); its contents are checked by the training flow.
  { kind: 'training-archive', contentType: 'application/zip', extension: 'zip', maxBytes: LIMITS.trainingArchiveMaxBytes, matches: (h) => startsWith(h, [0x50, 0x4b, 0x03, 0x04]) },
];

const UNSUPPORTED = 'Invalid file type (JPG, PNG, WEBP only).';
const DAY_MS = 24 * 60 * 60 * 1000;
/** Content-Length past this is refused before a byte is read. */
const MAX_BODY_BYTES = maxFormBytes(UPLOAD_TYPES);

export interface UploadsDeps {
  db: Db;
  storage: StorageProvider;
}

export type UploadsService = ReturnType<typeof createUploadsService>;

export function createUploadsService(deps: UploadsDeps) {
  return {
    maxBodyBytes: MAX_BODY_BYTES,

    /** Streams one multipart upload into storage under the user, kept for the retention period. */
    async receive(userId: string, body: ReadableStream<Uint8Array> | null, contentType: string | undefined): Promise<UploadRow> {
      const file = await readMultipartFile(body, contentType, 'file', UPLOAD_TYPES, UNSUPPORTED);
      const key = `uploads/${userId}/${randomUUID()}.${file.rule.extension}`;
      await deps.storage.put(key, file.bytes, file.rule.contentType);
      try {
        return await repo.insert(deps.db, {
          userId,
          storageKey: key,
          url: mediaUrl(key),
          contentType: file.rule.contentType,
          sizeBytes: file.bytes.length,
          kind: file.rule.kind,
          expiresAt: new Date(Date.now() + LIMITS.originalsRetentionDays * DAY_MS),
        });
      } catch (err) {
        await deps.storage.delete(key);
        throw err;
      }
    },

    /** The caller's own live upload behind a media URL (absolute or relative), if it is one. */
    findOwned(userId: string, key: string) {
      return repo.findLiveByKey(deps.db, userId, key);
    },
  };
}

/**
 * Deletes originals past their retention date from storage and marks their rows deleted. Safe to run on
 * several instances at once: deleting a missing object and marking a row twice are both harmless.
 */
export async function purgeExpiredUploads(rt: { db: Db; storage: StorageProvider; logger: Logger }, now = new Date()): Promise<number> {
  let purged = 0;
  for (;;) {
    const batch = await repo.listExpired(rt.db, now, 100);
    for (const row of batch) {
      await rt.storage.delete(row.storageKey);
      await repo.markDeleted(rt.db, row.id);
      purged++;
    }
    if (batch.length < 100) break;
  }
  if (purged) rt.logger.info({ purged }, 'purged expired uploads');
  return purged;
}
