/**
 * Runs ./supabase-stack-process.ts as a child process and hands its addresses to a jsdom test:
 *
 *   const stack = await startSupabaseStackProcess(clerk.publicKeyPem);   // beforeAll
 *   stack.url, stack.anonKey, stack.databaseUrl (seed it as the owner with pg)
 *   await stack.stop();                                                 // afterAll: drops the database
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface SupabaseStackProcess {
  url: string;
  anonKey: string;
  databaseUrl: string;
  stop(): Promise<void>;
}

export function startSupabaseStackProcess(jwtKeyPem: string): Promise<SupabaseStackProcess> {
  const root = join(import.meta.dirname, '..', '..');
  const child = spawn(join(root, 'node_modules/.bin/node'), ['--import', 'tsx', join(root, 'tests/helpers/supabase-stack-process.ts')], {
    cwd: root,
    env: { ...process.env, STACK_JWT_KEY: jwtKeyPem },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`the Supabase stack process stopped (${code}) before it was ready`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (!out.includes('\n')) return;
      const ready = JSON.parse(line) as Omit<SupabaseStackProcess, 'stop'>;
      resolve({
        ...ready,
        async stop() {
          child.stdin.end();
          await exited;
        },
      });
    });
  });
}
