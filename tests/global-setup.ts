// Once per Vitest run, before any test file: things every worker may copy instead of making again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../server/db/index.ts';
import { createLogger } from '../server/logger.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PGlite folder with every migration applied and nothing else (see freshPglite in helpers/server.ts). */
    pgliteTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  // Made by the server's own start on an empty data folder: initdb and every migration, as on a first start.
  const dataDir = mkdtempSync(join(tmpdir(), 'likeness-pglite-template-'));
  const database = await openDatabase({ dataDir, logger: createLogger('silent') });
  await database.close();
  project.provide('pgliteTemplate', join(dataDir, 'db'));
  return () => rmSync(dataDir, { recursive: true, force: true });
}
