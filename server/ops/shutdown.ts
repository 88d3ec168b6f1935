import type { Server } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import type { Runtime } from '../runtime.ts';

/** After the grace period, cut-short generations get this long to refund and answer before sockets close. */
const CUT_SHORT_MS = 3000;
/** rt.close() waits for the database and workers; a step that ignores the end of the grace cannot hold the exit. */
const CLOSE_TIMEOUT_MS = 5000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)).unref());

/**
 * While the instance drains, every answer says `Connection: close`: a client on a kept-alive connection
 * would otherwise keep sending it requests (a closing Node server still serves them), instead of going
 * through the load balancer to another instance.
 */
export function closeConnectionsWhileStopping(isStopping: () => boolean): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (isStopping()) c.header('Connection', 'close');
  };
}

/**
 * Graceful shutdown on SIGTERM and SIGINT (a second signal does not start another): stop accepting, report
 * not ready, end event streams (browsers reconnect to another instance), stop taking jobs, let requests and
 * job steps in flight finish within SHUTDOWN_GRACE_SECONDS, then cut short what is left (generations are
 * refunded and answered), give every job lease back so other instances take the jobs at once, close, exit 0.
 */
export function installGracefulShutdown(server: Server, rt: Runtime, opts: { exit?: (code: number) => void } = {}) {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let stopping: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    stopping ??= shutDown(server, rt, signal).then(
      () => exit(0),
      (err: unknown) => {
        rt.logger.error({ err }, 'shutdown failed');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

async function shutDown(server: Server, rt: Runtime, signal: NodeJS.Signals): Promise<void> {
  const { logger } = rt;
  const graceMs = rt.config.SHUTDOWN_GRACE_SECONDS * 1000;
  const deadline = Date.now() + graceMs;
  logger.info({ signal, graceSeconds: rt.config.SHUTDOWN_GRACE_SECONDS }, 'shutting down');

  rt.readiness.stopping();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  rt.events.disconnectAll();
  // Shoot photos in flight go back to the queue at once, for another instance to take over.
  const jobsStopped = Promise.all([rt.trainingRunner.close(), rt.shootRunner.close()]);
  // Kept-alive connections that finished their request close now rather than at their idle timeout.
  const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
  server.closeIdleConnections();

  const finished = await Promise.race([
    Promise.all([closed, jobsStopped]).then(() => true),
    sleep(deadline - Date.now()).then(() => false),
  ]);
  if (!finished) {
    logger.warn('grace period over: cutting short the requests and job steps still running');
    rt.generations.abortAll();
    await Promise.race([closed, sleep(CUT_SHORT_MS)]);
    server.closeAllConnections();
  }
  clearInterval(idleSweep);

  await rt.leases.releaseAll();
  await Promise.race([rt.close(), sleep(CLOSE_TIMEOUT_MS)]);
  logger.info('stopped');
}
