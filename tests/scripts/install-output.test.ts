import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import semver from 'semver';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm install` on a fresh machine prints nothing a newcomer reads as an error: every package accepts the oldest
 * Node the project declares for running npm (package.json's engines), and every install script that runs on this
 * platform is one package.json's allowScripts has reviewed.
 */
const root = new URL('../..', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
type Locked = { engines?: { node?: string }; hasInstallScript?: boolean; optional?: boolean; os?: string[]; cpu?: string[] };
const locked = Object.entries(JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')).packages as Record<string, Locked>)
  .filter(([path]) => path !== '')
  .map(([path, entry]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), ...entry }));

const dir = mkdtempSync(join(tmpdir(), 'likeness-install-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a clean install', () => {
  it("accepts the oldest Node the project declares, in every package's engines", () => {
    const oldest = semver.minVersion(pkg.engines.node)!.version;
    const refusing = locked
      .filter((p) => p.engines?.node && !semver.satisfies(oldest, p.engines.node))
      .map((p) => `${p.name} ${p.engines!.node}`);
    expect(refusing).toEqual([]);
  });

  it('runs only install scripts package.json has reviewed (allowScripts), on this platform', () => {
    const here = (list: string[] | undefined, value: string) =>
      !list || list.includes(value) || (list.some((v) => v.startsWith('!')) && !list.includes(`!${value}`));
    const unreviewed = locked
      .filter((p) => p.hasInstallScript && here(p.os, process.platform) && here(p.cpu, process.arch))
      .map((p) => p.name)
      .filter((name) => !(name in pkg.allowScripts));
    expect(unreviewed).toEqual([]);
  });

  it("prints no warning or error when npm, on the machine's Node, plans it from the lock file", () => {
    copyFileSync(new URL('package.json', root), join(dir, 'package.json'));
    copyFileSync(new URL('package-lock.json', root), join(dir, 'package-lock.json'));
    // The npm that started `npm test`, on the Node that runs it (not the project's pinned one); else the one on PATH.
    const npm =
      process.env.npm_execpath && process.env.npm_node_execpath ? [process.env.npm_node_execpath, process.env.npm_execpath] : ['npm'];
    const PATH = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((entry) => !entry.includes('node_modules'))
      .join(delimiter);
    const run = spawnSync(npm[0]!, [...npm.slice(1), 'ci', '--dry-run', '--no-audit', '--no-fund'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, PATH },
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(output.split('\n').filter((line) => /^npm (warn|error|ERR)/i.test(line))).toEqual([]);
  }, 120_000);
});
