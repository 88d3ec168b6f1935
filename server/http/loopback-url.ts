import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import type { AppEnv } from './context.ts';

/**
 * The product's own webhook endpoint for the sandbox payment service, reached over loopback on the address
 * this request arrived at, so the sandbox's events travel the same HTTP path as a real provider's.
 */
export function sandboxWebhookUrl(c: Context<AppEnv>): string {
  const socket = socketOf(c);
  let origin = new URL(c.req.url).origin;
  if (socket?.localAddress && socket.localPort) {
    const host = socket.localAddress.replace(/^::ffff:/, '');
    origin = `http://${host.includes(':') ? `[${host}]` : host}:${socket.localPort}`;
  }
  return `${origin}/api/webhooks/sandbox`;
}

/**
 * Whether the request's connection comes from this machine, judged by the socket's peer address only (a header
 * such as X-Forwarded-For is written by the caller and proves nothing).
 */
export function fromThisMachine(c: Context<AppEnv>): boolean {
  const peer = socketOf(c)?.remoteAddress?.replace(/^::ffff:/, '') ?? '';
  return peer === '::1' || /^127\.\d+\.\d+\.\d+$/.test(peer);
}

function socketOf(c: Context<AppEnv>) {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
}
