import type { Context } from 'hono';
import { attachmentDisposition } from '@common/media.ts';
import type { CallerEnv } from './context.ts';

/** A streamed ZIP as a download named `filename`, never cached (it is the person's own data). */
export function zipDownload<E extends CallerEnv>(c: Context<E>, body: ReadableStream<Uint8Array>, filename: string): Response {
  return c.body(body, 200, {
    'Content-Type': 'application/zip',
    'Content-Disposition': attachmentDisposition(filename),
    'Cache-Control': 'private, no-store',
  });
}
