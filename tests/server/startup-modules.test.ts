import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** The npm packages a server process resolves while it starts and stops with `env`. */
async function packagesLoadedWith(env: Record<string, string>): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    join(root, 'node_modules/.bin/node'),
    ['--import', 'tsx', join(root, 'tests/helpers/loaded-packages-child.ts')],
    { cwd: root, env: { ...process.env, LOADED_PACKAGES_ENV: JSON.stringify(env) }, timeout: 60_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
}

/**
 * The SDKs of the modes not in use stay unloaded: Creem's alone holds 14 MB of heap, which every major GC
 * marks again (docs/decisions/014-generate-path.md, fifth pass).
 */
describe('what a server loads at start', () => {
  it("in local mode: better-auth, and neither Creem's SDK nor S3's", async () => {
    const loaded = await packagesLoadedWith({});
    expect(loaded).toContain('better-auth');
    expect(loaded).not.toContain('creem');
    expect(loaded.filter((name) => name.startsWith('@aws-sdk/'))).toEqual([]);
  }, 90_000);

  it('hosted, with Clerk, S3 and Creem configured: those, and not better-auth', async () => {
    const loaded = await packagesLoadedWith({
      CLERK_SECRET_KEY: 'sk_test_startup_modules',
      CLERK_API_URL: 'http://127.0.0.1:9',
      PUBLIC_URL: 'http://127.0.0.1:9',
      S3_BUCKET: 'likeness-test',
      S3_ENDPOINT: 'http://127.0.0.1:9',
      S3_ACCESS_KEY_ID: 'test',
      S3_SECRET_ACCESS_KEY: 'test',
      CREEM_API_KEY: 'creem_test_key',
      CREEM_WEBHOOK_SECRET: 'whsec_test',
      CREEM_PRODUCT_BASIC: 'prod_basic',
      CREEM_PRODUCT_STANDARD: 'prod_standard',
      CREEM_PRODUCT_PROFESSIONAL: 'prod_professional',
      CREEM_SERVER_URL: 'http://127.0.0.1:9',
      CLERK_WEBHOOK_SIGNING_SECRET: 'whsec_dGVzdA==',
    });
    expect(loaded).toContain('@clerk/backend');
    expect(loaded).toContain('creem');
    expect(loaded).toContain('@aws-sdk/client-s3');
    expect(loaded).not.toContain('better-auth');
  }, 90_000);
});
