import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

describe('the pinned Node', () => {
  it("is approved to install: the `node` package's install script is what puts node_modules/.bin/node there", () => {
    expect(pkg.allowScripts.node).toBe(true);
  });

  it('runs the suite (the machine’s own Node is older)', () => {
    const pinnedMajor = Number(String(pkg.dependencies.node).replace(/^\D*/, '').split('.')[0]);
    expect(Number(process.versions.node.split('.')[0])).toBe(pinnedMajor);
  });
});
