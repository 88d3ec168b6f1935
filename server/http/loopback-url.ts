import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import type { AppEnv } from './context.ts';

/**
 * The product's own webhook endpoint for the sandbox payment service, reached over loopback on the address
 * this request arrived at, so the sandbox's events travel the same HTTP path as a real provider's.
 */
export function sandboxWebhookUrl(c: Context<AppEnv>): string {
  const socket = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
  let origin = new URL(c.req.url).origin;
  if (socket?.localAddress && socket.localPort) {
    const host = socket.localAddress.replace(/^::ffff:/, '');
    origin = `http://${host.includes(':') ? `[${host}]` : host}:${socket.localPort}`;
  }
  return `${origin}/api/webhooks/sandbox`;
}
