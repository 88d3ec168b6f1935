// Which SPA a build makes (plain Node, shared by vite.config.ts and the npm scripts): with all of these
// set, the hosted SPA (Clerk + Supabase); with none, the local one. VITE_API_URL is optional.
export const HOSTED_BUILD_VARIABLES = ['VITE_CLERK_PUBLISHABLE_KEY', 'VITE_SUPABASE_URL', 'VITE_SUPABASE_ANON_KEY'];

/** The build's mode for these variables; a partial hosted configuration is refused, not built as local. */
export function buildMode(env) {
  const set = HOSTED_BUILD_VARIABLES.filter((name) => env[name]?.trim());
  if (set.length > 0 && set.length < HOSTED_BUILD_VARIABLES.length) {
    const missing = HOSTED_BUILD_VARIABLES.filter((name) => !set.includes(name));
    throw new Error(
      `The hosted build needs ${missing.join(' and ')} as well (set all of ${HOSTED_BUILD_VARIABLES.join(', ')}, or none for the local build)`,
    );
  }
  return set.length === HOSTED_BUILD_VARIABLES.length ? 'hosted' : 'local';
}

/** The file each build leaves in its output folder, naming its mode (so a stale build of the other mode is redone). */
export const BUILD_MODE_FILE = 'build-mode.txt';
