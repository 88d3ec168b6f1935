import { join } from 'node:path';
import type { Config } from '../../config.ts';
import { createLocalStorage } from './local.ts';
import type { StorageProvider } from './provider.ts';

export * from './provider.ts';

/**
 * The storage this instance uses: an S3-compatible bucket when S3_BUCKET is set, else files under
 * DATA_DIR/files. S3's SDK is loaded only in the mode that uses it.
 */
export async function createStorage(config: Config): Promise<StorageProvider> {
  if (!config.S3_BUCKET) return createLocalStorage(join(config.dataDir, 'files'));
  const { createS3Storage } = await import('./s3.ts');
  return createS3Storage({
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    accessKeyId: config.S3_ACCESS_KEY_ID,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
  });
}
