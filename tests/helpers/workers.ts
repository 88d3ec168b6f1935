/**
 * The Cloudflare checkout and portal workers (workers/) as tests and the hosted e2e suite run them: built by wrangler
 * exactly as `wrangler deploy` builds them (`--dry-run --outdir`, offline), then run in workerd itself through
 * Miniflare, on a loopback port, with the bindings a test gives (the variables and secrets of wrangler.toml).
 *
 *   const checkout = await startWorker('checkout', { ALLOWED_ORIGINS: TEST_SPA_ORIGIN, CLERK_JWT_KEY: …, … });
 *   await fetch(checkout.url, { method: 'POST', headers: { origin, authorization }, body });
 *   checkout.logs;   // what the worker wrote to its console (stdout and stderr of workerd)
 *   await checkout.stop();
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Log, LogLevel, Miniflare } from 'miniflare';

export type WorkerName = 'checkout' | 'portal';

const root = fileURLToPath(new URL('../..', import.meta.url));
const builds = new Map<WorkerName, Promise<{ dir: string; compatibilityDate: string }>>();

/** The worker's bundle as `wrangler deploy` would upload it (built once per process). */
export function buildWorker(name: WorkerName): Promise<{ dir: string; compatibilityDate: string }> {
  let build = builds.get(name);
  if (!build) {
    build = (async () => {
      const dir = mkdtempSync(join(tmpdir(), `likeness-worker-${name}-`));
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      const config = join(root, 'workers', name, 'wrangler.toml');
      const output = await new Promise<string>((resolve, reject) => {
        const child = spawn(
          join(root, 'node_modules/.bin/node'),
          [join(root, 'node_modules/wrangler/bin/wrangler.js'), 'deploy', '--dry-run', '--outdir', dir, '-c', config],
          {
            cwd: root,
            // Offline and quiet: no metrics, no update check, no login.
            env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true', WRANGLER_LOG: 'error', NO_COLOR: '1' },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => (text += chunk));
        child.stderr.on('data', (chunk: Buffer) => (text += chunk));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrangler could not build ${name}:\n${text}`))));
      });
      if (!existsSync(join(dir, 'index.js'))) throw new Error(`wrangler wrote no bundle for ${name}:\n${output}`);
      const compatibilityDate = /^compatibility_date\s*=\s*"([\d-]+)"/m.exec(readFileSync(config, 'utf8'))?.[1];
      if (!compatibilityDate) throw new Error(`${config} has no compatibility_date`);
      return { dir, compatibilityDate };
    })();
    builds.set(name, build);
  }
  return build;
}

export interface RunningWorker {
  url: string;
  /** Lines the worker wrote with console.* (workerd's stdout and stderr). */
  logs: string[];
  stop(): Promise<void>;
}

/** Runs a built worker in workerd with these bindings, on 127.0.0.1 (`port` 0: any free port). */
export async function startWorker(
  name: WorkerName,
  bindings: Record<string, string>,
  opts: { port?: number } = {},
): Promise<RunningWorker> {
  const { dir, compatibilityDate } = await buildWorker(name);
  const logs: string[] = [];
  const collect = (stream: Readable) =>
    stream.on('data', (chunk: Buffer) => logs.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const mf = new Miniflare({
    name,
    modules: true,
    scriptPath: join(dir, 'index.js'),
    modulesRoot: dir,
    compatibilityDate,
    bindings,
    host: '127.0.0.1',
    port: opts.port ?? 0,
    log: new Log(LogLevel.NONE),
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      collect(stdout);
      collect(stderr);
    },
  });
  const url = (await mf.ready).origin;
  return { url, logs, stop: () => mf.dispose() };
}
