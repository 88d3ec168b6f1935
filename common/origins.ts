import { z } from 'zod';

/**
 * A comma-separated list of web origins (scheme://host[:port], nothing after it), as ALLOWED_ORIGINS and
 * CLERK_AUTHORIZED_PARTIES are written: the server's configuration and the checkout and portal workers' read it alike.
 */
export const originListSchema = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const origins: string[] = [];
    for (const item of (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      let origin: string | undefined;
      try {
        const parsed = new URL(item);
        if (/^https?:$/.test(parsed.protocol) && parsed.origin === item.replace(/\/$/, '')) origin = parsed.origin;
      } catch {
        // reported below
      }
      if (!origin) {
        ctx.addIssue({ code: 'custom', message: `"${item}" is not an origin like https://app.example.com` });
        return z.NEVER;
      }
      origins.push(origin);
    }
    return [...new Set(origins)];
  });
