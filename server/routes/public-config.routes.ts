import { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';

/** What the public site may know about the server's configuration: the contact address and how long originals are kept. */
export interface PublicConfig {
  supportEmail: string;
  /** UPLOAD_RETENTION_DAYS, stated by the legal pages and the FAQ. */
  uploadRetentionDays: number;
}

export function publicConfigRoutes(config: PublicConfig) {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.json<PublicConfig>({ supportEmail: config.supportEmail, uploadRetentionDays: config.uploadRetentionDays });
  });
  return app;
}
