// `npm start`: builds the SPA when needed and serves the production build in local mode.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { buildIfStale, node, root, run } from './lib.mjs';

/** server/config.ts's default PORT (tests/scripts/start.test.ts keeps the two the same). */
const DEFAULT_PORT = '3000';

const envFile = join(root, '.env');
const fileEnv = existsSync(envFile) ? parseEnv(readFileSync(envFile, 'utf8')) : {};
// First, before a build that can take a minute: where the product will be.
console.log(
  `Likeness will be at http://localhost:${process.env.PORT ?? fileEnv.PORT ?? DEFAULT_PORT} (open it once it says it is running).`,
);

const built = await buildIfStale();
if (built !== 0) process.exit(built);
const args = [...(existsSync(envFile) ? [`--env-file=${envFile}`] : []), '--import', 'tsx', 'server/main.ts'];
process.exit(await run(node, args, { env: { NODE_ENV: 'production', ...process.env } }));
