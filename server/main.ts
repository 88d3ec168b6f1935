import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from './config.ts';
import { DataDirInUseError } from './db/index.ts';
import { buildApp } from './app.ts';
import { spaContentSecurityPolicy } from './http/spa-policy.ts';
import { startRuntime } from './runtime.ts';
import { serveWithTimeouts } from './http/timeouts.ts';
import { installGracefulShutdown } from './ops/shutdown.ts';

const staticDir = fileURLToPath(new URL('../dist', import.meta.url));

async function main() {
  let config;
  try {
    config = loadConfig();
    // A hosted SPA whose settings cannot go into its Content-Security-Policy stops the start before anything runs.
    spaContentSecurityPolicy(staticDir, { publicUrl: config.PUBLIC_URL, clerkPublishableKey: config.clerk?.publishableKey });
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

  const app = buildApp(rt, { staticDir });
  const server = serveWithTimeouts({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
    const mode = config.DATABASE_URL ? 'Postgres' : `local (data in ${config.dataDir})`;
    rt.logger.info(`Likeness is running at http://localhost:${info.port} — ${mode}`);
  });

  installGracefulShutdown(server, rt);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
