import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  drizzleValueImports,
  importGraph,
  oversizedFiles,
  SERVER_LAYERS,
  sqlOutsideRepositories,
  violations,
} from '../../scripts/import-graph.mjs';

/**
 * The server's layers point one way (README, Architecture: entry points → routes / job runners → services →
 * repositories / providers → db / storage, and the domain's errors and rules below them all), and no files of
 * server/, src/ or common/ import each other in a loop. Each failure names the importing file and line, the
 * file it imports and the rule it breaks (scripts/import-graph.mjs; `node scripts/import-graph.mjs` prints them).
 */
describe('import directions', () => {
  it('every import of server/, src/, common/ and workers/ keeps the layers, and none forms a cycle', () => {
    const graph = importGraph();
    // The graph is the real one: the entry point reaches the layers below it.
    expect(graph.get('server/main.ts')?.has('server/runtime.ts')).toBe(true);
    expect(graph.size).toBeGreaterThan(200);
    const problems = violations(graph);
    expect(problems, `\n${problems.join('\n')}\n`).toEqual([]);
  }, 120_000);

  describe('on a sample tree', () => {
    const base = mkdtempSync(join(tmpdir(), 'likeness-imports-'));
    afterAll(() => rmSync(base, { recursive: true, force: true }));
    const file = (path: string, text: string) => {
      mkdirSync(dirname(join(base, path)), { recursive: true });
      writeFileSync(join(base, path), text);
    };
    file('server/domain/errors.ts', 'export class AppError extends Error {}\n');
    file('server/http/error-response.ts', "import { AppError } from '../domain/errors.ts';\nexport const x = AppError;\n");
    file('server/services/ok.service.ts', "import { AppError } from '../domain/errors.ts';\nexport const ok = AppError;\n");
    file('server/services/speaks-http.service.ts', "import { x } from '../http/error-response.ts';\nexport const y = x;\n");
    file('server/jobs/runner.ts', "import { ok } from '../services/ok.service.ts';\nexport const run = ok;\n");
    file('server/repositories/a.repository.ts', "\nimport { run } from '../jobs/runner.ts';\nexport const a = run;\n");
    file('server/providers/p.ts', "import type { ok } from '../services/ok.service.ts';\nexport type P = typeof ok;\n");
    file('server/services/one.service.ts', "import { two } from './two.service.ts';\nexport const one = () => two;\n");
    file('server/services/two.service.ts', "export { one as two } from './one.service.ts';\n");
    file('server/misc/stray.ts', "import { one } from '../services/one.service.ts';\nexport const s = one;\n");
    file('src/page.tsx', "import { ok } from '../server/services/ok.service.ts';\nexport const Page = () => String(ok);\n");
    file('src/a.ts', "import { b } from '@/b.ts';\nexport const a = () => b;\n");
    file('src/b.ts', "export const b = async () => (await import('./a.ts')).a;\n");
    file('workers/checkout/index.ts', "import { ok } from '../../server/services/ok.service.ts';\nexport default { fetch: () => ok };\n");
    file('workers/shared/plans.ts', "import { x } from '../../common/x.ts';\nexport const y = x;\n");
    file('common/x.ts', 'export const x = 1;\n');
    // The web app: features import the shared layer and their own files, never another feature.
    file('src/session/api.ts', 'export const useMe = () => 1;\n');
    file('src/features/shoots/api.ts', "import { useMe } from '@/session/api.ts';\nexport const useShoots = useMe;\n");
    file('src/features/shoots/components/view.tsx', "import { useShoots } from '../api.ts';\nexport const View = useShoots;\n");
    file(
      'src/features/gallery/components/library.tsx',
      "import type { View } from '../../shoots/components/view.tsx';\n\nimport { useShoots } from '@/features/shoots/api.ts';\nexport const L = useShoots;\nexport type V = typeof View;\n",
    );
    file('src/lib/uses-a-feature.ts', "export const later = () => import('@/features/gallery/components/library.tsx');\n");

    const problems = violations(importGraph({ base }));
    const order = SERVER_LAYERS.map((l) => l.name).join(' → ');

    it('names an import against the layers, its line, and the order', () => {
      expect(problems).toContain(
        `server/services/speaks-http.service.ts:1 imports server/http/error-response.ts: services must not import routes / job runners (layers point one way: ${order})`,
      );
      expect(problems.some((p) => p.startsWith('server/services/ok.service.ts') || p.startsWith('server/jobs/runner.ts'))).toBe(false);
    });

    it('names a repository importing jobs and a provider importing services (type imports too)', () => {
      expect(problems).toContain('server/repositories/a.repository.ts:2 imports server/jobs/runner.ts: repositories never import jobs');
      expect(problems).toContain('server/providers/p.ts:1 imports server/services/ok.service.ts: providers never import services');
      expect(problems).toContain(
        'src/page.tsx:1 imports server/services/ok.service.ts: the web app never imports the server (common/ holds what both use)',
      );
    });

    it('names a worker importing the server, and lets it import common/', () => {
      expect(problems).toContain(
        'workers/checkout/index.ts:1 imports server/services/ok.service.ts: the workers share common/ with the server, never the server itself',
      );
      expect(problems.some((p) => p.startsWith('workers/shared/plans.ts'))).toBe(false);
    });

    it('names every file of a cycle and what ties them, through re-exports, aliases and import()', () => {
      expect(problems).toContain(
        'import cycle of 2 files: server/services/one.service.ts:1 → server/services/two.service.ts, server/services/two.service.ts:1 → server/services/one.service.ts',
      );
      expect(problems).toContain('import cycle of 2 files: src/a.ts:1 → src/b.ts, src/b.ts:1 → src/a.ts');
    });

    it('names a feature importing another feature (feature → feature), and the shared layer importing a feature', () => {
      const below = 'src/session/, src/queries/, src/components/, src/lib/, src/backend/';
      expect(problems).toContain(
        `src/features/gallery/components/library.tsx:1 imports src/features/shoots/components/view.tsx: feature → feature (features never import each other; what two need moves down to ${below})`,
      );
      expect(problems).toContain(
        `src/features/gallery/components/library.tsx:3 imports src/features/shoots/api.ts: feature → feature (features never import each other; what two need moves down to ${below})`,
      );
      expect(problems).toContain(
        `src/lib/uses-a-feature.ts:1 imports src/features/gallery/components/library.tsx: shared → feature (${below} sit below the features and never import one)`,
      );
      // A feature's own files and the shared layer are fine.
      expect(problems.some((p) => p.startsWith('src/features/shoots/') || p.startsWith('src/session/'))).toBe(false);
    });

    it('names a server file that no layer holds', () => {
      expect(problems).toContain(
        "server/misc/stray.ts is in no layer: add its folder to SERVER_LAYERS in scripts/import-graph.mjs (and to README's layer order)",
      );
    });
  });
});

/**
 * The server's shape (issue 48): SQL is written only in server/repositories and server/db (no value import of
 * drizzle-orm anywhere else in server/), routes only call services (no route imports a repository; checked
 * with the layers above), and no file in server/services, routes, jobs or repositories is over 400 lines.
 * Each failure names the file and the rule.
 */
describe('server shape', () => {
  it('writes SQL only in server/repositories and server/db', () => {
    const problems = sqlOutsideRepositories();
    expect(problems, `\n${problems.join('\n')}\n`).toEqual([]);
  });

  it('keeps every file of server/services, routes, jobs and repositories at 400 lines or fewer', () => {
    const problems = oversizedFiles();
    expect(problems, `\n${problems.join('\n')}\n`).toEqual([]);
  });

  describe('on a sample tree', () => {
    const base = mkdtempSync(join(tmpdir(), 'likeness-shape-'));
    afterAll(() => rmSync(base, { recursive: true, force: true }));
    const file = (path: string, text: string) => {
      mkdirSync(dirname(join(base, path)), { recursive: true });
      writeFileSync(join(base, path), text);
    };
    file('server/repositories/users.repository.ts', "import { eq } from 'drizzle-orm';\nexport const byId = eq;\n");
    file('server/db/index.ts', "import { sql } from 'drizzle-orm';\nexport const now = sql`now()`;\n");
    file(
      'server/services/typed.service.ts',
      "import type { SQL } from 'drizzle-orm';\nimport { type InferSelectModel } from 'drizzle-orm';\nexport type T = SQL | InferSelectModel<never>;\n",
    );
    file(
      'server/services/sql.service.ts',
      "import type { SQL } from 'drizzle-orm';\n\nimport { and, eq, type Column } from 'drizzle-orm';\nexport const x = [and, eq] as unknown as SQL & Column;\n",
    );
    file('server/auth/guard.ts', "import * as orm from 'drizzle-orm';\nexport const y = orm;\n");
    file('server/realtime/bus.ts', "export { sql } from 'drizzle-orm';\nexport const z = () => import('drizzle-orm/pg-core');\n");
    file('server/routes/users.routes.ts', "import { byId } from '../repositories/users.repository.ts';\nexport const r = byId;\n");
    file('server/routes/ok.routes.ts', "import { t } from '../services/typed.service.ts';\nexport const r = t;\n");
    file('server/services/long.service.ts', 'export const a = 1;\n'.repeat(401));
    file('server/services/just-right.service.ts', 'export const a = 1;\n'.repeat(400));
    file('server/providers/inference/long.ts', 'export const a = 1;\n'.repeat(500));
    file('server/jobs/long-runner.ts', 'export const a = 1;\n'.repeat(450));

    const sql = sqlOutsideRepositories({ base });
    const sizes = oversizedFiles({ base });
    const layers = violations(importGraph({ base }));
    const rule = 'SQL only in repositories (no value import of drizzle-orm in server/ outside server/repositories/ and server/db/)';

    it('names every value import of drizzle-orm outside repositories and db, with its line and names', () => {
      expect(sql).toEqual([
        `server/auth/guard.ts:1 imports drizzle-orm (* as orm): ${rule}`,
        `server/realtime/bus.ts:1 imports drizzle-orm (sql): ${rule}`,
        `server/realtime/bus.ts:2 imports drizzle-orm (import()): ${rule}`,
        `server/services/sql.service.ts:3 imports drizzle-orm (and, eq): ${rule}`,
      ]);
    });

    it('lets type-only imports of drizzle-orm through anywhere', () => {
      expect(drizzleValueImports("import type { SQL } from 'drizzle-orm';\nimport { type Column } from 'drizzle-orm';\n")).toEqual([]);
      expect(sql.some((p) => p.startsWith('server/services/typed.service.ts'))).toBe(false);
    });

    it('names a route importing a repository', () => {
      expect(layers).toContain(
        'server/routes/users.routes.ts:1 imports server/repositories/users.repository.ts: routes only call services: no route imports a repository',
      );
      expect(layers.some((p) => p.startsWith('server/routes/ok.routes.ts'))).toBe(false);
    });

    it('names each file over 400 lines in services, routes, jobs or repositories, and only those', () => {
      const limit =
        'small files with one job (no file in server/services, server/routes, server/jobs, server/repositories over 400 lines; split it by job)';
      expect(sizes).toEqual([
        `server/jobs/long-runner.ts has 450 lines: ${limit}`,
        `server/services/long.service.ts has 401 lines: ${limit}`,
      ]);
    });
  });
});
