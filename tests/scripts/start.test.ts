import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The first line `npm start` prints (scripts/start.mjs), then stops it before it builds or serves anything. */
function firstLine(env: Record<string, string>): Promise<string> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'PORT' && !name.startsWith('VITEST')));
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('error', reject);
    child.stdout.on('data', (d) => {
      out += d;
      if (!out.includes('\n')) return;
      process.kill(-child.pid!, 'SIGKILL');
      resolve(out.split('\n')[0]!);
    });
    child.on('exit', () => reject(new Error(`npm start ended before printing a line: ${out}`)));
  });
}

describe('npm start', () => {
  it("says first where to open the product: the server's default port", async () => {
    expect(await firstLine({})).toBe(`Likeness will be at http://localhost:${loadConfig({}).PORT} (open it once it says it is running).`);
  });

  it('or the PORT it is given', async () => {
    expect(await firstLine({ PORT: '4123' })).toBe('Likeness will be at http://localhost:4123 (open it once it says it is running).');
  });
});
