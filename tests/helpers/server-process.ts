import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../server/config.ts';
import { buildApp } from '../../server/app.ts';
import { startRuntime } from '../../server/runtime.ts';

/**
 * The server as a process of its own, for tests that kill it without warning (SIGKILL) and start another on
 * the same data. Configured by the environment like the real server; prints `listening <port>` when ready.
 */
const config = loadConfig({ ...process.env, NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', AUTH_RATE_LIMIT: '1000' });
const rt = await startRuntime(config, { sseHeartbeatMs: 1000 });
const server = serve({ fetch: buildApp(rt).fetch, port: 0, hostname: '127.0.0.1' }, () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
