import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { ConfigError, loadConfig } from './config.ts';
import { DataDirInUseError } from './db/index.ts';
import { buildApp } from './app.ts';
import { startRuntime } from './runtime.ts';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78);
    }
    throw err;
  }

  let rt;
  try {
    rt = await startRuntime(config);
  } catch (err) {
    if (err instanceof DataDirInUseError) {
      console.error(err.message);
      process.exit(73);
    }
    throw err;
  }

  const app = buildApp(rt, { staticDir: fileURLToPath(new URL('../dist', import.meta.url)) });
  const server = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
    const mode = config.DATABASE_URL ? 'Postgres' : `local (data in ${config.dataDir})`;
    rt.logger.info(`Likeness is running at http://localhost:${info.port} — ${mode}`);
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    rt.logger.info({ signal }, 'shutting down');
    server.close();
    // Open event streams would hold the server forever; give requests a moment, then close.
    setTimeout(() => void rt.close().finally(() => process.exit(0)), 500).unref();
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
