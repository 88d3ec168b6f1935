// `npm start`: builds the SPA when needed and serves the production build in local mode.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildIfStale, node, root, run } from './lib.mjs';

const built = await buildIfStale();
if (built !== 0) process.exit(built);
const envFile = join(root, '.env');
const args = [...(existsSync(envFile) ? [`--env-file=${envFile}`] : []), '--import', 'tsx', 'server/main.ts'];
process.exit(await run(node, args, { env: { NODE_ENV: 'production', ...process.env } }));
