import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { isSafeKey, type StorageProvider } from './index.ts';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** An S3-compatible endpoint (MinIO, R2, s3rver); AWS itself when unset. */
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Most S3-compatible servers need bucket-in-path addressing. */
  forcePathStyle: boolean;
}

/** S3 reports a missing object as NoSuchKey (GET) or a bare 404 NotFound (HEAD). */
function isMissing(err: unknown): boolean {
  return (
    err instanceof NoSuchKey ||
    err instanceof NotFound ||
    (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404)
  );
}

const unquote = (etag: string | undefined) => (etag ?? '').replace(/^W\//, '').replace(/"/g, '');

/**
 * Objects in an S3-compatible bucket. Keys are the same relative paths as on local disk; the bucket stays
 * private because the server serves every object itself at /media/<key> under the product's access rules.
 */
export function createS3Storage(opts: S3StorageOptions): StorageProvider {
  const client = new S3Client({
    region: opts.region,
    endpoint: opts.endpoint,
    forcePathStyle: opts.forcePathStyle,
    credentials:
      opts.accessKeyId && opts.secretAccessKey
        ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey }
        : undefined,
  });
  const Bucket = opts.bucket;
  const checked = (key: string) => {
    if (!isSafeKey(key)) throw new Error(`Unsafe storage key: ${key}`);
    return key;
  };

  return {
    name: 's3',
    async put(key, body, contentType) {
      const out = await client.send(new PutObjectCommand({ Bucket, Key: checked(key), Body: body, ContentType: contentType }));
      return { size: body.length, etag: unquote(out.ETag) };
    },
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: checked(key) }));
        return {
          body: out.Body as Readable,
          contentType: out.ContentType ?? 'application/octet-stream',
          size: out.ContentLength ?? 0,
          etag: unquote(out.ETag),
          lastModified: out.LastModified ?? new Date(0),
        };
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },
    async read(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: checked(key) }));
        return out.Body ? Buffer.from(await out.Body.transformToByteArray()) : Buffer.alloc(0);
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: checked(key) }));
    },
    async exists(key) {
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: checked(key) }));
        return true;
      } catch (err) {
        if (isMissing(err)) return false;
        throw err;
      }
    },
  };
}
