/**
 * Run by tests/server/startup-modules.test.ts in a process of its own: starts a server runtime on the
 * configuration in the LOADED_PACKAGES_ENV variable (JSON) and prints, as one JSON line, the npm packages the
 * process resolved a module of.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const packages = new Set<string>();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    const name = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(resolved.url)?.[1];
    if (name) packages.add(name);
    return resolved;
  },
});

const { loadConfig } = await import('../../server/config.ts');
const { startRuntime } = await import('../../server/runtime.ts');
const dataDir = mkdtempSync(join(tmpdir(), 'likeness-modules-'));
const env = JSON.parse(process.env.LOADED_PACKAGES_ENV ?? '{}') as Record<string, string>;
await startRuntime(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PORT: '0', DATA_DIR: dataDir, ...env }));
console.log(JSON.stringify([...packages].sort()));
// Not closed: a close waits for the payment provider's first check, which retries an unreachable test address for
// 10 s; this process ends here anyway.
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
