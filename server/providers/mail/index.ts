import { join } from 'node:path';
import type { Config } from '../../config.ts';
import { createLocalOutbox, type LocalOutbox } from './local-outbox.ts';
import type { MailTransport } from './provider.ts';
import { createSmtpTransport } from './smtp.ts';

export * from './provider.ts';

/** Where this instance's mail goes: the SMTP server of SMTP_URL, else the local outbox in DATA_DIR/outbox. */
export function createMailTransport(config: Config): { transport: MailTransport; outbox?: LocalOutbox } {
  if (config.SMTP_URL) {
    return { transport: createSmtpTransport({ url: config.SMTP_URL, timeoutMs: config.MAIL_TIMEOUT_SECONDS * 1000 }) };
  }
  const outbox = createLocalOutbox(join(config.dataDir, 'outbox'));
  return { transport: outbox, outbox };
}
