// Starts the production build against a fresh data folder for the Playwright suites.
import { buildIfStale, node, run } from './lib.mjs';

const built = await buildIfStale();
if (built !== 0) process.exit(built);
process.exit(await run(node, ['--import', 'tsx', 'e2e/support/server.ts'], { env: { ...process.env } }));
