// The project's TypeScript import graph, and the rules it must keep (README, Architecture): the server's layers
// point one way, the web app, the server and the Cloudflare workers share only common/, and no files of server/,
// src/, common/ or workers/ import each other in a loop. Read with the TypeScript compiler's
// own scanner and module resolution (tsconfig.json's paths), so `import type`, `export … from` and `import('…')`
// with a literal count like any import. `node scripts/import-graph.mjs` prints every broken rule;
// tests/scripts/import-layers.test.ts fails on any.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The server's layers, top first: a file may import files of its own layer or of a layer below it, never one
 * above. Each layer lists path prefixes under server/ (a folder ends with `/`); the longest prefix wins.
 */
export const SERVER_LAYERS = [
  // ops/shutdown.ts drains the whole runtime on SIGTERM: main.ts's part.
  { name: 'entry points', paths: ['main.ts', 'runtime.ts', 'app.ts', 'admin/', 'ops/shutdown.ts', 'db/supabase-migrations.ts'] },
  { name: 'routes / job runners', paths: ['routes/', 'http/', 'jobs/'] },
  { name: 'services', paths: ['services/', 'auth/'] },
  { name: 'repositories / providers', paths: ['repositories/', 'providers/', 'realtime/', 'ops/', 'mail/'] },
  { name: 'db / storage', paths: ['db/', 'vision/'] },
  { name: 'foundation', paths: ['config.ts', 'logger.ts', 'domain/'] },
];

/** Imports forbidden whatever the layers say: `from` prefix must not import `to` prefix. */
export const FORBIDDEN = [
  { from: 'server/repositories/', to: 'server/jobs/', why: 'repositories never import jobs' },
  { from: 'server/providers/', to: 'server/services/', why: 'providers never import services' },
  // Rule "routes only call services" (issue 48): a route reaches data through a service, never a repository.
  { from: 'server/routes/', to: 'server/repositories/', why: 'routes only call services: no route imports a repository' },
  { from: 'server/', to: 'src/', why: 'the server never imports the web app' },
  { from: 'src/', to: 'server/', why: 'the web app never imports the server (common/ holds what both use)' },
  { from: 'common/', to: 'server/', why: 'common/ imports neither side' },
  { from: 'common/', to: 'src/', why: 'common/ imports neither side' },
  { from: 'common/', to: 'workers/', why: 'common/ imports neither side' },
  { from: 'workers/', to: 'server/', why: 'the workers share common/ with the server, never the server itself' },
  { from: 'workers/', to: 'src/', why: 'the workers never import the web app' },
  { from: 'server/', to: 'workers/', why: 'the server never imports the workers' },
  { from: 'src/', to: 'workers/', why: 'the web app never imports the workers' },
];

/** Folders whose files are graphed (tests and their fixtures are not part of either program). */
export const GRAPHED = ['server', 'src', 'common', 'workers'];

const isTest = (path) => /\.test\.tsx?$/.test(path);
const isSource = (path) => /\.(ts|tsx|mts)$/.test(path) && !path.endsWith('.d.ts') && !isTest(path);

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'migrations') yield* walk(full);
    } else if (isSource(entry.name)) yield full;
  }
}

const posix = (path) => path.split(sep).join('/');

/** The source files of `folders` under `base`: full path and path relative to `base` (posix). */
function sourceFiles(base, folders) {
  return folders.flatMap((folder) => {
    try {
      return [...walk(join(base, folder))].map((full) => ({ full, path: posix(relative(base, full)) }));
    } catch {
      return [];
    }
  });
}

/**
 * The import graph of `folders` under `base`: Map of file (relative, posix) → files it imports (only files of
 * the graph, each once, with the line of its first import).
 */
export function importGraph({ base = root, folders = GRAPHED } = {}) {
  const { config } = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, base);
  const host = ts.createCompilerHost(options);
  const files = folders.flatMap((folder) => {
    try {
      return [...walk(join(base, folder))];
    } catch {
      return [];
    }
  });
  const known = new Set(files.map((f) => posix(relative(base, f))));
  const graph = new Map();
  for (const file of files) {
    const from = posix(relative(base, file));
    const text = readFileSync(file, 'utf8');
    const imports = new Map();
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      const resolved = ts.resolveModuleName(ref.fileName, file, options, host).resolvedModule;
      if (!resolved || resolved.isExternalLibraryImport) continue;
      const to = posix(relative(base, resolved.resolvedFileName));
      if (!known.has(to) || imports.has(to)) continue;
      imports.set(to, text.slice(0, ref.pos).split('\n').length);
    }
    graph.set(from, imports);
  }
  return graph;
}

/** The layer of a server file (index into SERVER_LAYERS), or null for a file no layer names. */
export function layerOf(file) {
  if (!file.startsWith('server/')) return null;
  const path = file.slice('server/'.length);
  let best = null;
  SERVER_LAYERS.forEach((layer, index) => {
    for (const prefix of layer.paths) {
      const hit = prefix.endsWith('/') ? path.startsWith(prefix) : path === prefix;
      if (hit && (!best || prefix.length > best.length)) best = { index, length: prefix.length };
    }
  });
  return best?.index ?? null;
}

/** Loops of files that import each other: strongly connected components of more than one file (or a self-import). */
export function cycles(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.has(v)) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

// ── The web app's layers (README, Architecture): app/ and pages/ → features/<feature>/ → the shared layer ──────────

/** The web app's shared layer, below its features: any feature may import it; it imports no feature. */
export const SPA_SHARED = ['src/session/', 'src/queries/', 'src/components/', 'src/lib/', 'src/backend/'];

/** The feature a file of src/features/<feature>/ belongs to, or null. */
export const featureOf = (file) => /^src\/features\/([^/]+)\//.exec(file)?.[1] ?? null;

/**
 * The web app's rules, one sentence each naming the importing file and line, the import and the rule:
 * "feature → feature" (a file of src/features/A imports one of src/features/B: what two features need moves down
 * to the shared layer) and "shared → feature" (the shared layer imports a feature).
 */
export function spaViolations(graph) {
  const problems = [];
  const below = SPA_SHARED.join(', ');
  for (const [from, imports] of [...graph].sort(([a], [b]) => a.localeCompare(b))) {
    const feature = featureOf(from);
    const shared = SPA_SHARED.some((prefix) => from.startsWith(prefix));
    for (const [to, line] of imports) {
      const toFeature = featureOf(to);
      if (!toFeature) continue;
      if (feature && feature !== toFeature) {
        problems.push(
          `${from}:${line} imports ${to}: feature → feature (features never import each other; what two need moves down to ${below})`,
        );
      } else if (shared) {
        problems.push(`${from}:${line} imports ${to}: shared → feature (${below} sit below the features and never import one)`);
      }
    }
  }
  return problems;
}

/** Every broken rule of `graph`, one sentence each naming the importing file and line, the import and the rule. */
export function violations(graph) {
  const problems = [];
  for (const [from, imports] of [...graph].sort(([a], [b]) => a.localeCompare(b))) {
    const fromLayer = layerOf(from);
    if (from.startsWith('server/') && fromLayer === null) {
      problems.push(`${from} is in no layer: add its folder to SERVER_LAYERS in scripts/import-graph.mjs (and to README's layer order)`);
    }
    for (const [to, line] of imports) {
      const rule = FORBIDDEN.find((r) => from.startsWith(r.from) && to.startsWith(r.to));
      if (rule) {
        problems.push(`${from}:${line} imports ${to}: ${rule.why}`);
        continue;
      }
      const toLayer = layerOf(to);
      if (fromLayer !== null && toLayer !== null && toLayer < fromLayer) {
        problems.push(
          `${from}:${line} imports ${to}: ${SERVER_LAYERS[fromLayer].name} must not import ${SERVER_LAYERS[toLayer].name} (layers point one way: ${SERVER_LAYERS.map((l) => l.name).join(' → ')})`,
        );
      }
    }
  }
  problems.push(...spaViolations(graph));
  for (const loop of cycles(graph)) {
    const ties = loop.flatMap((from) =>
      loop.filter((to) => graph.get(from).has(to)).map((to) => `${from}:${graph.get(from).get(to)} → ${to}`),
    );
    problems.push(`import cycle of ${loop.length} files: ${ties.join(', ')}`);
  }
  return problems;
}

// ── Server shape rules (issue 48): SQL only in repositories, and small files with one job. Each names its rule.

/** Folders of server/ where drizzle-orm may be imported as a value: the only places SQL is written. */
export const SQL_FOLDERS = ['server/repositories/', 'server/db/'];

const isDrizzle = (specifier) => specifier === 'drizzle-orm' || specifier.startsWith('drizzle-orm/');

/**
 * The value imports of drizzle-orm in one file's text: `{ line, names }` for each `import`, `export … from` or
 * `import('…')` of drizzle-orm that brings a value (an `import type`, or one whose every name is `type`, does not).
 */
export function drizzleValueImports(text, fileName = 'file.ts') {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const found = [];
  const lineOf = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && isDrizzle(node.moduleSpecifier.text)) {
      const clause = node.importClause;
      const names = [];
      if (!clause) names.push('(side effects)');
      else if (!clause.isTypeOnly) {
        if (clause.name) names.push(clause.name.text);
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) names.push(`* as ${bindings.name.text}`);
        if (bindings && ts.isNamedImports(bindings)) names.push(...bindings.elements.filter((e) => !e.isTypeOnly).map((e) => e.name.text));
      }
      if (names.length) found.push({ line: lineOf(node), names });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      isDrizzle(node.moduleSpecifier.text)
    ) {
      const values = node.isTypeOnly
        ? []
        : node.exportClause && ts.isNamedExports(node.exportClause)
          ? node.exportClause.elements.filter((e) => !e.isTypeOnly).map((e) => e.name.text)
          : ['*'];
      if (values.length) found.push({ line: lineOf(node), names: values });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0]) &&
      isDrizzle(node.arguments[0].text)
    ) {
      found.push({ line: lineOf(node), names: ['import()'] });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Rule "SQL only in repositories": no value import of drizzle-orm in server/ outside repositories/ and db/. */
export function sqlOutsideRepositories({ base = root } = {}) {
  const problems = [];
  for (const file of sourceFiles(base, ['server'])) {
    if (SQL_FOLDERS.some((folder) => file.path.startsWith(folder))) continue;
    for (const { line, names } of drizzleValueImports(readFileSync(file.full, 'utf8'), file.full)) {
      problems.push(
        `${file.path}:${line} imports drizzle-orm (${names.join(', ')}): SQL only in repositories (no value import of drizzle-orm in server/ outside ${SQL_FOLDERS.join(' and ')})`,
      );
    }
  }
  return problems;
}

/** Folders whose files stay small (rule "small files with one job"), and how small. */
export const SIZE_LIMITED = ['server/services/', 'server/routes/', 'server/jobs/', 'server/repositories/'];
export const MAX_LINES = 400;

/** Rule "small files with one job": no file in server/services, routes, jobs or repositories over MAX_LINES lines. */
export function oversizedFiles({ base = root } = {}) {
  const problems = [];
  for (const file of sourceFiles(base, ['server'])) {
    if (!SIZE_LIMITED.some((folder) => file.path.startsWith(folder))) continue;
    const text = readFileSync(file.full, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES) {
      problems.push(
        `${file.path} has ${lines} lines: small files with one job (no file in ${SIZE_LIMITED.map((f) => f.slice(0, -1)).join(', ')} over ${MAX_LINES} lines; split it by job)`,
      );
    }
  }
  return problems;
}

/** The server shape rules' problems (SQL only in repositories, small files), one sentence each. */
export const serverShapeViolations = ({ base = root } = {}) => [...sqlOutsideRepositories({ base }), ...oversizedFiles({ base })];

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const problems = [...violations(importGraph()), ...serverShapeViolations()];
  for (const p of problems) console.log(p);
  console.log(problems.length ? `\n${problems.length} import(s) break the rules.` : 'Every import keeps the rules.');
  process.exit(problems.length ? 1 : 0);
}
