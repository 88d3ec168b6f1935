import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  HOSTED_BUILD_FILE,
  LOCAL_CONTENT_SECURITY_POLICY,
  PolicyInputError,
  hostedContentSecurityPolicy,
  type HostedBuildRecord,
} from '@common/content-security-policy.ts';
import { ConfigError } from '../config.ts';

/** Which SPA a folder holds: vite.config.ts writes its mode to build-mode.txt (scripts/build-mode.mjs). */
function buildModeOf(staticDir: string): 'hosted' | 'local' | undefined {
  const file = join(staticDir, 'build-mode.txt');
  if (!existsSync(join(staticDir, 'index.html')) || !existsSync(file)) return undefined;
  return readFileSync(file, 'utf8').trim() === 'hosted' ? 'hosted' : 'local';
}

/**
 * The Content-Security-Policy of the SPA this server serves, decided once at start: the hosted SPA's
 * (Clerk's Frontend API, Clerk's images, the bot-protection challenge, the Supabase project) from what the
 * build in `staticDir` was made with (its hosted-build.json: the public VITE_ values baked into the bundle,
 * so the policy always fits the bundle), else the local one. A value that cannot go into a header, an http
 * Supabase under an https PUBLIC_URL, or another publishable key than CLERK_PUBLISHABLE_KEY stops the start
 * (ConfigError, naming the variable).
 */
export function spaContentSecurityPolicy(
  staticDir: string | undefined,
  opts: { publicUrl?: string; clerkPublishableKey?: string },
): { mode: 'hosted' | 'local'; policy: string } {
  if (!staticDir || buildModeOf(staticDir) !== 'hosted') return { mode: 'local', policy: LOCAL_CONTENT_SECURITY_POLICY };
  const where = `the hosted SPA in ${staticDir}`;
  let record: HostedBuildRecord;
  try {
    record = JSON.parse(readFileSync(join(staticDir, HOSTED_BUILD_FILE), 'utf8')) as HostedBuildRecord;
  } catch {
    throw new ConfigError([`${where} has no readable ${HOSTED_BUILD_FILE}: rebuild it with npm run build`]);
  }
  const issues: string[] = [];
  const publishableKey = String(record.VITE_CLERK_PUBLISHABLE_KEY ?? '');
  if (opts.clerkPublishableKey && opts.clerkPublishableKey !== publishableKey) {
    issues.push(`CLERK_PUBLISHABLE_KEY: differs from VITE_CLERK_PUBLISHABLE_KEY, the key ${where} was built with`);
  }
  try {
    const policy = hostedContentSecurityPolicy({
      publishableKey,
      supabaseUrl: String(record.VITE_SUPABASE_URL ?? ''),
      apiUrl: String(record.VITE_API_URL ?? ''),
      checkoutWorkerUrl: String(record.VITE_CHECKOUT_WORKER_URL ?? ''),
      portalWorkerUrl: String(record.VITE_PORTAL_WORKER_URL ?? ''),
      publicUrl: opts.publicUrl,
    });
    if (!issues.length) return { mode: 'hosted', policy };
  } catch (err) {
    if (!(err instanceof PolicyInputError)) throw err;
    issues.push(...err.issues.map((issue) => `${issue} (${where})`));
  }
  throw new ConfigError(issues);
}
