// Types of import-graph.mjs, for the test that runs it.
export const root: string;
export const SERVER_LAYERS: { name: string; paths: string[] }[];
export const FORBIDDEN: { from: string; to: string; why: string }[];
export const GRAPHED: string[];
/** File → the files it imports, each with the line of its first import. */
export type ImportGraph = Map<string, Map<string, number>>;
export function importGraph(opts?: { base?: string; folders?: string[] }): ImportGraph;
export function layerOf(file: string): number | null;
export function cycles(graph: ImportGraph): string[][];
export function violations(graph: ImportGraph): string[];
// Server shape rules (issue 48).
export const SQL_FOLDERS: string[];
export const SIZE_LIMITED: string[];
export const MAX_LINES: number;
export function drizzleValueImports(text: string, fileName?: string): { line: number; names: string[] }[];
export function sqlOutsideRepositories(opts?: { base?: string }): string[];
export function oversizedFiles(opts?: { base?: string }): string[];
export function serverShapeViolations(opts?: { base?: string }): string[];
