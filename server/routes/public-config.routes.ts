import { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';

/** What the public site may know about the server's configuration (the footer's and legal pages' contact address). */
export interface PublicConfig {
  supportEmail: string;
}

export function publicConfigRoutes(config: PublicConfig) {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.json<PublicConfig>({ supportEmail: config.supportEmail });
  });
  return app;
}
