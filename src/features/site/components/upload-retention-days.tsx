import { useUploadRetentionDays } from '@/queries/public-config';

/** The number of days original uploads are kept, as the server is configured (UPLOAD_RETENTION_DAYS). */
export function UploadRetentionDays() {
  return <>{useUploadRetentionDays()}</>;
}
