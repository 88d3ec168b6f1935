import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface ServerProcess {
  url: string;
  port: number;
  child: ChildProcess;
  kill(signal: NodeJS.Signals): void;
  /** The exit code (null after a signal that was not handled). */
  exited: Promise<number | null>;
}

/** Starts tests/helpers/server-process.ts with this environment and waits until it listens. */
export async function spawnServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'server-process.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      const m = /listening (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    void exited.then((code) => reject(new Error(`server process exited (${code}) before listening`)));
  });
  return { url: `http://127.0.0.1:${port}`, port, child, kill: (signal) => child.kill(signal), exited };
}
