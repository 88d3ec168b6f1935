// Helpers shared by the npm scripts (plain Node, no dependencies, so they run before anything is built).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { BUILD_MODE_FILE, buildMode } from './build-mode.mjs';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const bin = (name) => join(root, 'node_modules', '.bin', name);
/**
 * The project's pinned Node (node_modules/.bin/node), whatever node started this script. Missing only when the
 * `node` package's install script did not run (package.json's allowScripts must approve it); the machine's own
 * Node is older and breaks the image checks, so say so instead of falling back to it.
 */
export const node = bin('node');
if (!existsSync(node)) {
  console.error(
    "The project's Node is missing (node_modules/.bin/node): the `node` package's install script did not run. " +
      'Keep "node": true in package.json\'s allowScripts, then run `npm rebuild node`.',
  );
  process.exit(1);
}

/** Child processes of `run` still running (a script stopping early ends them first). */
export const running = new Set();

export function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
    running.add(child);
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal ? 1 : 0));
    });
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

export const distDir = join(root, process.env.DIST_DIR ?? 'dist');

/** The VITE_ variables of the .env files Vite reads for a production build (the environment wins over them). */
function viteEnvFiles() {
  const files = ['.env', '.env.local', '.env.production', '.env.production.local'].map((f) => join(root, f)).filter(existsSync);
  return Object.assign({}, ...files.map((f) => parseEnv(readFileSync(f, 'utf8'))));
}

/**
 * Builds the SPA into `outDir` unless it is newer than every source it is built from and of the mode `env`
 * asks for (scripts/build-mode.mjs: hosted with the VITE_ hosted variables, else local).
 */
export async function buildIfStale({ outDir = distDir, env = process.env } = {}) {
  const mode = buildMode({ ...viteEnvFiles(), ...env });
  const built = join(outDir, 'index.html');
  const modeFile = join(outDir, BUILD_MODE_FILE);
  const sources = ['src', 'common', 'public', 'index.html', 'vite.config.ts', 'package.json'].map((p) => join(root, p)).filter(existsSync);
  const sameMode = existsSync(modeFile) && readFileSync(modeFile, 'utf8') === mode;
  if (sameMode && existsSync(built) && statSync(built).mtimeMs > Math.max(...sources.map(newestMtime))) return 0;
  console.log(`Building the web app (${mode})…`);
  return run(node, [bin('vite'), 'build', '--logLevel', 'warn', '--outDir', outDir, '--emptyOutDir'], { env });
}
