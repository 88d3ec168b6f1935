import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/index.ts';
import { createLogger } from '../../server/logger.ts';

/** A Postgres address that takes connections and never answers: a partitioned or overloaded server. */
let silent: Server;
const sockets = new Set<Socket>();
beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

it('fails to start in seconds, saying so, when Postgres takes the connection but never answers', async () => {
  const url = `postgres://postgres@127.0.0.1:${(silent.address() as AddressInfo).port}/test`;
  const started = Date.now();
  await expect(
    openDatabase({ databaseUrl: url, dataDir: '/nonexistent', logger: createLogger('silent'), connectTimeoutMs: 500 }),
  ).rejects.toThrow(/timeout/i);
  expect(Date.now() - started).toBeLessThan(5_000);
});
