import { Transform, type Readable } from 'node:stream';
import { Upload } from '@aws-sdk/lib-storage';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { isSafeKey, isSafePrefix, type StorageProvider } from './provider.ts';

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
  return err instanceof NoSuchKey || err instanceof NotFound || (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404);
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
      opts.accessKeyId && opts.secretAccessKey ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } : undefined,
  });
  const Bucket = opts.bucket;
  const checked = (key: string) => {
    if (!isSafeKey(key)) throw new Error(`Unsafe storage key: ${key}`);
    return key;
  };

  return {
    name: 's3',
    async put(key, body, contentType) {
      await client.send(new PutObjectCommand({ Bucket, Key: checked(key), Body: body, ContentType: contentType }));
      return { size: body.length };
    },
    async putStream(key, body, contentType) {
      let size = 0;
      const counted = body.pipe(
        new Transform({
          transform(chunk: Buffer, _enc, done) {
            size += chunk.length;
            done(null, chunk);
          },
        }),
      );
      // A failing source must fail the upload too (pipe does not forward errors).
      body.once('error', (err) => counted.destroy(err));
      // The SDK's managed upload: a single PUT for a small object, a multipart upload (aborted on failure,
      // so no object appears) for a large one; at most one 5 MB part is held in memory at a time.
      const upload = new Upload({ client, params: { Bucket, Key: checked(key), Body: counted, ContentType: contentType }, queueSize: 1 });
      await upload.done();
      return { size };
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
    async deleteAll(prefix) {
      if (!isSafePrefix(prefix)) throw new Error(`Unsafe storage prefix: ${prefix}`);
      let deleted = 0;
      // Each round lists what is left (at most 1000 keys) and deletes it, until nothing is left.
      for (;;) {
        const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix }));
        const keys = (page.Contents ?? []).map((o) => o.Key).filter((k): k is string => Boolean(k));
        if (keys.length === 0) return deleted;
        const out = await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }));
        if (out.Errors?.length)
          throw new Error(`S3 could not delete ${out.Errors.length} objects under ${prefix}: ${out.Errors[0].Message}`);
        deleted += keys.length;
      }
    },
    async *list(prefix) {
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken }));
        for (const object of page.Contents ?? []) {
          if (object.Key) yield { key: object.Key, lastModified: object.LastModified ?? new Date(0) };
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },
  };
}
