import { randomUUID } from 'node:crypto';
import { pipeline, Transform } from 'node:stream';
import { UPLOAD_MESSAGES } from '@common/captions.ts';
import { IMAGE_CONTENT_TYPES, sniffImageType } from '@common/media.ts';
import { LIMITS } from '@common/product.ts';
import type { Db, Executor } from '../db/index.ts';
import { payloadTooLarge, tooManyRequests } from '../domain/errors.ts';
import { maxFormBytes, openMultipartFile, type FileTypeRule } from './multipart-file.ts';
import { mediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import { uploadsRepository as repo, type UploadRow } from '../repositories/uploads.repository.ts';
import { usersRepository } from '../repositories/users.repository.ts';
import { createInFlightLimit } from './concurrency.ts';
import { checkPixelBudget, imageSizeFromHeader } from '../domain/image-budget.ts';

export type UploadKind = 'image' | 'training-archive';

/** What the uploader accepts, recognised from the file's first bytes (its name and declared type are ignored). */
export const UPLOAD_TYPES: FileTypeRule<UploadKind>[] = [
  // JPEG, PNG and WEBP, by the signatures every image check shares (common/media.ts).
  ...Object.entries(IMAGE_CONTENT_TYPES).map(([extension, contentType]) => ({
    kind: 'image' as const,
    contentType,
    extension,
    maxBytes: LIMITS.uploadMaxBytes,
    matches: (h: Uint8Array) => sniffImageType(h) === contentType,
  })),
  // The training archive (training_images.zip); its contents are checked by the training flow.
  {
    kind: 'training-archive',
    contentType: 'application/zip',
    extension: 'zip',
    maxBytes: LIMITS.trainingArchiveMaxBytes,
    matches: (h) => [0x50, 0x4b, 0x03, 0x04].every((b, i) => h[i] === b),
  },
];

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Uploads in flight at once: per user, more than the two screens that upload (a prompt image, a training
 * archive) ever need; per instance, enough for a crowd while bounding open files and storage connections.
 */
export const UPLOADS_IN_FLIGHT = { perUser: 3, perInstance: 32 } as const;
const quotaGb = LIMITS.uploadQuotaBytes / 1024 ** 3;
/** Content-Length past this is refused before a byte is read. */
const MAX_BODY_BYTES = maxFormBytes(UPLOAD_TYPES);

export interface UploadsDeps {
  db: Db;
  storage: StorageProvider;
  /** Days an original is kept (UPLOAD_RETENTION_DAYS); the retention job deletes it after. */
  retentionDays: number;
}

export type UploadsService = ReturnType<typeof createUploadsService>;

/**
 * Checks a file's bytes as they pass on their way to storage: the user's remaining quota and, for an image,
 * the header's pixel size within the budget as soon as the header has arrived. A broken rule fails the
 * stream, so storage never completes the object.
 */
function uploadInspector(kind: UploadKind, roomBytes: number, quotaFull: () => Error) {
  const budgetError = (header: ReturnType<typeof imageSizeFromHeader>): Error | null => {
    try {
      checkPixelBudget(header);
      return null;
    } catch (err) {
      return err as Error;
    }
  };
  let size = 0;
  let head: Buffer[] | null = kind === 'image' ? [] : null;
  let headBytes = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > roomBytes) return done(quotaFull());
      if (head) {
        head.push(chunk);
        headBytes += chunk.length;
        const header = imageSizeFromHeader(Buffer.concat(head, headBytes));
        if (header !== 'incomplete') {
          head = null;
          const error = budgetError(header);
          if (error) return done(error);
        }
      }
      done(null, chunk);
    },
    flush(done) {
      // The file ended before its image header did.
      done(head ? budgetError(null) : null);
    },
  });
}

const quotaFullError = (retentionDays: number) =>
  payloadTooLarge(
    `Your uploads have reached this account's ${quotaGb} GB storage limit. Uploads are deleted ${retentionDays} days after they were made; please try again later.`,
  );

export function createUploadsService(deps: UploadsDeps) {
  const quotaFull = () => quotaFullError(deps.retentionDays);
  const inFlight = createInFlightLimit({ perKey: UPLOADS_IN_FLIGHT.perUser, total: UPLOADS_IN_FLIGHT.perInstance });

  /** Streams the file into storage through the inspector; the first rule it breaks is the error. */
  async function store(key: string, file: Awaited<ReturnType<typeof openMultipartFile<UploadKind>>>, roomBytes: number) {
    let broken: unknown;
    const checked = pipeline(file.stream, uploadInspector(file.rule.kind, roomBytes, quotaFull), (err) => {
      broken ??= err;
    });
    try {
      return await deps.storage.putStream(key, checked, file.rule.contentType);
    } catch (err) {
      throw broken ?? err;
    }
  }

  return {
    maxBodyBytes: MAX_BODY_BYTES,

    /**
     * Streams one multipart upload into storage under the user, kept for the retention period: within the
     * in-flight limits (429), the type's size limit and the user's quota (413), and for an image within the
     * pixel budget (400), all before the object exists.
     */
    async receive(userId: string, body: ReadableStream<Uint8Array> | null, contentType: string | undefined): Promise<UploadRow> {
      const release = inFlight.tryEnter(userId);
      if (release === 'key')
        throw tooManyRequests('You have too many uploads in progress. Please wait for them to finish, then try again.');
      if (release === 'total') throw tooManyRequests('The server is busy with other uploads. Please try again in a moment.');
      try {
        const roomBytes = LIMITS.uploadQuotaBytes - (await repo.liveBytes(deps.db, userId));
        if (roomBytes <= 0) throw quotaFull();
        const file = await openMultipartFile(body, contentType, 'file', UPLOAD_TYPES, UPLOAD_MESSAGES.invalidType);
        const key = `uploads/${userId}/${randomUUID()}.${file.rule.extension}`;
        const stored = await store(key, file, roomBytes);
        const row = {
          userId,
          storageKey: key,
          url: mediaUrl(key),
          contentType: file.rule.contentType,
          sizeBytes: stored.size,
          kind: file.rule.kind,
          expiresAt: new Date(Date.now() + deps.retentionDays * DAY_MS),
        };
        let saved: UploadRow | undefined;
        try {
          // Parallel uploads each passed the early check above; the quota is decided here, one at a time.
          saved = await deps.db.transaction(async (tx) => {
            await usersRepository.lockRow(tx, userId);
            return repo.insertWithinQuota(tx, row, LIMITS.uploadQuotaBytes);
          });
        } catch (err) {
          await deps.storage.delete(key);
          throw err;
        }
        if (saved) return saved;
        await deps.storage.delete(key);
        throw quotaFull();
      } finally {
        release();
      }
    },

    /** The caller's own live upload behind a media URL (absolute or relative), if it is one. */
    findOwned(userId: string, key: string) {
      return repo.findLiveByKey(deps.db, userId, key);
    },

    /** Deletes the user's upload stored under `key` now, whether or not its retention had run out (file, then row; `db` may be a transaction). */
    async discardKey(userId: string, key: string, db: Executor = deps.db): Promise<void> {
      await deps.storage.delete(key);
      await repo.deleteByKey(db, userId, key);
    },

    /** Deletes an upload now (its file, then its row), instead of at the end of its retention. */
    async discard(upload: UploadRow): Promise<void> {
      await deps.storage.delete(upload.storageKey);
      await repo.deleteMany(deps.db, [upload.id]);
    },
  };
}
