// Helpers shared by the npm scripts (plain Node, no dependencies, so they run before anything is built).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const bin = (name) => join(root, 'node_modules', '.bin', name);
/** The project's pinned Node (node_modules/.bin/node), whatever node started this script. */
export const node = existsSync(bin('node')) ? bin('node') : process.execPath;

export function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function newestMtime(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** Builds the SPA unless dist/ is newer than every source it is built from. */
export const distDir = join(root, process.env.DIST_DIR ?? 'dist');

export async function buildIfStale() {
  const built = join(distDir, 'index.html');
  const sources = ['src', 'common', 'public', 'index.html', 'vite.config.ts', 'package.json'].map((p) => join(root, p)).filter(existsSync);
  if (existsSync(built) && statSync(built).mtimeMs > Math.max(...sources.map(newestMtime))) return 0;
  console.log('Building the web app…');
  return run(node, [bin('vite'), 'build', '--logLevel', 'warn', '--outDir', distDir, '--emptyOutDir']);
}
