// Types of build-mode.mjs, for vite.config.ts and the bench.
export const HOSTED_BUILD_VARIABLES: readonly string[];
export function buildMode(env: Record<string, string | undefined>): 'local' | 'hosted';
export const BUILD_MODE_FILE: string;
