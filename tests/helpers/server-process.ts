import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../server/config.ts';
import { buildApp } from '../../server/app.ts';
import { startRuntime } from '../../server/runtime.ts';
import { installGracefulShutdown } from '../../server/ops/shutdown.ts';
import { createBuiltinGenerator } from '../../server/providers/inference/builtin-generator.ts';
import type { ImageGenerator } from '../../server/providers/inference/index.ts';
import type { BuiltinTrainer } from '../../server/providers/inference/builtin-trainer.ts';

/**
 * The server as a process of its own, for tests that stop it with a signal — SIGTERM or SIGINT (graceful
 * shutdown, as server/main.ts installs it) or SIGKILL (a crash) — and start another on the same data.
 * Configured by the environment like the real server; prints `listening <port>` when ready. With
 * TEST_GENERATION_DELAY_MS every generation takes that long first (so one is running when the signal comes),
 * giving up when its call is aborted, as a hosted provider's would; with TEST_TRAINING_DELAY_MS every
 * built-in training step does (a step that is still running when the signal comes).
 */
const config = loadConfig({
  ...process.env,
  NODE_ENV: 'test',
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  AUTH_RATE_LIMIT: '1000',
  SIGN_UP_RATE_LIMIT: '1000',
});
const delayMs = Number(process.env.TEST_GENERATION_DELAY_MS ?? 0);
const builtin = createBuiltinGenerator({ loadLora: async () => null });
const generator: ImageGenerator | undefined = delayMs
  ? {
      name: 'builtin',
      async generate(input, opts) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, delayMs);
          opts?.signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(opts.signal!.reason);
          });
        });
        return builtin.generate(input, opts);
      },
    }
  : undefined;
const trainingDelayMs = Number(process.env.TEST_TRAINING_DELAY_MS ?? 0);
const builtinTrainer: BuiltinTrainer | undefined = trainingDelayMs
  ? {
      name: 'builtin',
      async train() {
        await new Promise((resolve) => setTimeout(resolve, trainingDelayMs));
        throw new Error('a slow training step that never finishes in time');
      },
    }
  : undefined;
const rt = await startRuntime(config, { sseHeartbeatMs: 1000, generator, builtinTrainer });
const server = serve({ fetch: buildApp(rt).fetch, port: 0, hostname: '127.0.0.1' }, () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
installGracefulShutdown(server as Server, rt);
