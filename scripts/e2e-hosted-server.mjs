// Builds the hosted SPA for the hosted Playwright suite (into dist-hosted/, with the suite's Clerk key, Supabase
// address and checkout and portal workers) and starts e2e/hosted/support/server.ts: the Supabase fakes, a fake Creem,
// the two workers in workerd and our server in Clerk mode.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildIfStale, node, root, run } from './lib.mjs';
import { HOSTED_E2E, HOSTED_E2E_BUILD_ENV } from '../e2e/hosted/support/ports.mjs';

const outDir = join(root, HOSTED_E2E.distDir);
// A build made with other settings (another E2E_PORT) is redone.
const record = join(outDir, 'hosted-build.json');
if (existsSync(record)) {
  const built = JSON.parse(readFileSync(record, 'utf8'));
  if (Object.entries(HOSTED_E2E_BUILD_ENV).some(([name, value]) => name !== 'VITE_SUPABASE_ANON_KEY' && built[name] !== value)) {
    rmSync(outDir, { recursive: true, force: true });
  }
}
const env = { ...process.env, ...HOSTED_E2E_BUILD_ENV, DIST_DIR: HOSTED_E2E.distDir };
const built = await buildIfStale({ outDir, env });
if (built !== 0) process.exit(built);
process.exit(await run(node, ['--import', 'tsx', 'e2e/hosted/support/server.ts'], { env }));
