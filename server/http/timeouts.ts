import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';

/**
 * How long the server waits on a client while it is *sending*, chosen so that a phone on a poor mobile
 * link (~0.5 Mbit/s up, several seconds of silence while a cell hands over) still gets through, and a client
 * that trickles or stalls on purpose is dropped instead of holding a socket for Node's default 300 s:
 *
 * - headers: 20 s from connection to the end of the headers (one or two packets; room for ~5 TCP retries);
 * - body idle: 30 s without a single byte of the request body closes the connection;
 * - whole request: 15 min to receive everything, the time a 50 MB training archive takes at ~450 kbit/s.
 *
 * Waiting for the *answer* is not limited here: a generation may take minutes, and event streams stay open
 * (their 15 s heartbeats keep proxies from closing them).
 */
export const SERVER_TIMEOUTS = {
  headersMs: 20_000,
  bodyIdleMs: 30_000,
  requestMs: 15 * 60_000,
  /**
   * An idle kept-alive connection is closed after this. Node's 5 s is shorter than the idle timeout of load
   * balancers (60 s on AWS's ALB, Google's 600 s) and of clients' own pools: a request sent on a connection the
   * server closes at that moment fails (a 502 from the balancer, ECONNRESET at the client). Longer than theirs,
   * the client side closes first.
   */
  keepAliveMs: 65_000,
} as const;

export type ServerTimeouts = { headersMs: number; bodyIdleMs: number; requestMs: number; keepAliveMs: number };

/** Options for http.createServer (via @hono/node-server's `serverOptions`). */
export function serverTimeoutOptions(t: ServerTimeouts = SERVER_TIMEOUTS) {
  return {
    headersTimeout: t.headersMs,
    requestTimeout: t.requestMs,
    keepAliveTimeout: t.keepAliveMs,
    // Node checks the two above on this interval; its default (30 s) would stretch a 20 s limit to 50.
    connectionsCheckingInterval: Math.min(5_000, t.headersMs),
  };
}

/** Whether a request announces a body (a length above zero, or chunks). */
const announcesBody = (header: (name: string) => string | string[] | undefined) =>
  Number(header('content-length') ?? 0) > 0 || header('transfer-encoding') !== undefined;

/** Drops a connection whose request body stops arriving for `bodyIdleMs`; no limit once the body is in. */
export function dropStalledBodies(server: Server, t: ServerTimeouts = SERVER_TIMEOUTS): void {
  server.on('request', (req) => {
    if (!announcesBody((name) => req.headers[name])) return;
    // One listener per request, taken off again: a keep-alive socket serves many requests.
    const { socket } = req;
    const drop = () => socket.destroy();
    const done = () => {
      socket.setTimeout(0);
      socket.off('timeout', drop);
    };
    socket.setTimeout(t.bodyIdleMs);
    socket.on('timeout', drop);
    req.once('end', done);
    req.once('close', done);
  });
}

/**
 * Serves `fetch` as the product's server does: the timeouts above and the stalled-body guard. Every server that
 * answers a browser uses it, the test suites' included, so that none falls back to Node's 5 s keep-alive (a client
 * reusing a connection idle that long could have it reset under its next request).
 */
export function serveWithTimeouts(
  options: { fetch: (request: Request) => Response | Promise<Response>; port: number; hostname: string; timeouts?: ServerTimeouts },
  onListening?: (info: AddressInfo) => void,
): Server {
  const timeouts = options.timeouts ?? SERVER_TIMEOUTS;
  const server = serve(
    { fetch: options.fetch, port: options.port, hostname: options.hostname, serverOptions: serverTimeoutOptions(timeouts) },
    onListening,
  ) as Server;
  dropStalledBodies(server, timeouts);
  return server;
}

/**
 * A request refused before its body was read (too large, too many uploads, not signed in) leaves the rest of
 * that body on the connection, and the server drops it once it stops draining. Saying `Connection: close`
 * on such an answer tells the client to open a new connection for its next request instead of reusing one
 * about to close under it.
 */
export function closeAfterRefusedBody(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (announcesBody((name) => c.req.header(name)) && c.res.status >= 400) c.res.headers.set('Connection', 'close');
  };
}
