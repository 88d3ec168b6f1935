import { Hono, type Context } from 'hono';
import type { AppEnv } from '../http/context.ts';

/**
 * What the public site may know about the server's configuration: the contact address, how long originals are
 * kept, and whether this caller can open the local outbox page.
 */
export interface PublicConfig {
  supportEmail: string;
  /** UPLOAD_RETENTION_DAYS, stated by the legal pages and the FAQ. */
  uploadRetentionDays: number;
  /**
   * Whether /sandbox/mail shows this caller the local outbox (no SMTP_URL, and the page open to them): 'Check your
   * e-mail' after sign-up then says where the message is.
   */
  mailOutboxPage: boolean;
}

export function publicConfigRoutes(config: Omit<PublicConfig, 'mailOutboxPage'> & { mailOutboxPage: (c: Context<AppEnv>) => boolean }) {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => {
    // Per caller (the outbox page's rule may depend on the connection), so kept by the browser only.
    c.header('Cache-Control', 'private, max-age=300');
    return c.json<PublicConfig>({
      supportEmail: config.supportEmail,
      uploadRetentionDays: config.uploadRetentionDays,
      mailOutboxPage: config.mailOutboxPage(c),
    });
  });
  return app;
}
