/**
 * A PostgREST subset for tests: the requests the hosted SPA's data store makes through
 * `@supabase/supabase-js` (product §4 user sync, §7 data-store queries), answered against the real PostgreSQL
 * with supabase/migrations applied, the way PostgREST answers them. Only the URL → SQL mapping is ours;
 * grants, row-level security, defaults, triggers and constraints are the database's own.
 *
 * Served by `startSupabaseFakes` (./supabase-stack.ts) at `<url>/rest/v1/<table>`. Per request, like
 * PostgREST (PostgREST/postgrest src/PostgREST/Query/PreQuery.hs, hosted-research.md §3.2): one
 * transaction (read only for GET/HEAD), `set_config('role', anon|authenticated, true)` (= SET LOCAL ROLE),
 * `set_config('request.jwt.claims', <claims with role>, true)` plus request.method/path/headers, then the
 * statement with every value from the request passed as a parameter (identifiers come only from the
 * schema cache, never from the request).
 *
 * What it understands (the encoding of the installed @supabase/postgrest-js, read in its dist/index.mjs):
 *   tables   users, generations, lora_trainings, explore_gallery, user_public_meta, photo_packs, photo_pack_prompts,
 *            photo_shoots, shoot_photos; the views explore_filter_options, shoot_photo_views and credit_history
 *   methods  GET, HEAD (select), POST (insert, object or array body), PATCH (update); OPTIONS (CORS)
 *   select   `*`, columns, `alias:column`, one level of embedding `table(cols)` / `alias:table(cols)` along a
 *            single-column foreign key: many-to-one → one object or null, one-to-many → an array ([] for none),
 *            in no promised order (PostgREST orders embedded rows only when asked, `<table>.order`, which is
 *            not supported); no relationship → 400 PGRST200, more than one → 300 PGRST201, as PostgREST
 *   filters  eq, neq, lt, lte, gt, gte, is (null|true|false), in.(…), each optionally under not. (`not.is.null`);
 *            or=(…) of such filters, one level (no and(…)/or(…) inside), values double-quoted where they hold , . : ( )
 *   modifiers order=col[.asc|.desc][.nullsfirst|.nullslast],… · limit · offset (what .range(a,b) sends)
 *   Prefer   return=representation|minimal, count=exact (→ Content-Range a-b/total, 206 for a part)
 *   Accept   application/json, application/vnd.pgrst.object+json (.single(): one row or 406 PGRST116)
 *   max-rows a read returns at most `maxRows` rows (Supabase's default: 1,000), whatever its limit, silently, as
 *            PostgREST's db-max-rows does (the exact count still counts them all)
 * Anything else — another table, method, operator, parameter, Prefer or Accept value, a Range header —
 * is answered 501 with a JSON body naming it, so a changed query fails loudly instead of half-working.
 *
 * Errors are PostgREST's JSON `{code, message, details, hint}`: database errors keep their SQLSTATE with
 * PostgREST's status (42501 → 401 for anon, 403 when signed in; 23505 → 409; 42P01 → 404; others 400/500),
 * an unknown column is 400 42703, a bad or expired token is 401 PGRST301 / PGRST303 (see supabase-stack.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type pg from 'pg';
import type { Claims } from '../helpers/supabase-db.ts';

/** The outcome of checking a request's bearer token (or its absence). */
export type AuthResult =
  { ok: true; role: 'anon' | 'authenticated'; claims: Claims } | { ok: false; status: number; code: string; message: string };

/** Turns the bearer token of a request (null without one) into the role and claims it runs as. */
export type Authenticate = (bearer: string | null) => Promise<AuthResult>;

/** One answered request, for tests that assert what was asked and as whom. */
export interface RestRequestRecord {
  method: string;
  /** Path and query string after /rest/v1, as received. */
  path: string;
  role: 'anon' | 'authenticated' | 'service_role' | null;
  status: number;
}

export interface PostgrestFake {
  /** Handles one node:http request under /rest/v1/ (the stack routes to it). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Every request answered so far, in order. */
  requests: RestRequestRecord[];
}

export interface PostgrestFakeOptions {
  /** Connections as the database owner; each request switches role inside its own transaction. */
  pool: pg.Pool;
  /** The project's anon (publishable) key: required in `apikey`; as a bearer token it means anon. */
  anonKey: string;
  /**
   * The project's secret key (`sb_secret_…`): as `apikey`, with no bearer token or itself as one, the request runs
   * as service_role, which row-level security does not apply to (the checkout and portal workers read users so).
   */
  serviceKey?: string;
  authenticate: Authenticate;
  /** PostgREST's db-max-rows: the most rows one read returns. Supabase's default is 1,000. */
  maxRows?: number;
}

/** Supabase projects' default db-max-rows ("Max rows" in the API settings). */
export const SUPABASE_MAX_ROWS = 1000;

/** The tables (and views) the SPA reads and writes through Supabase (product §7). */
export const SERVED_TABLES = [
  'users',
  'generations',
  'lora_trainings',
  'explore_gallery',
  'user_public_meta',
  'explore_filter_options',
  'photo_packs',
  'photo_pack_prompts',
  'photo_shoots',
  'shoot_photos',
  'shoot_photo_views',
  'credit_history',
] as const;

const IDENT = /^[a-z_][a-z0-9_]*$/;
const OBJECT_MEDIA = 'application/vnd.pgrst.object+json';
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, POST, PATCH, OPTIONS',
  'access-control-allow-headers':
    'authorization, apikey, content-type, prefer, accept, accept-profile, content-profile, x-client-info, x-retry-count',
  'access-control-expose-headers': 'content-range',
};

/** An error answered as PostgREST's JSON. */
class RestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: string | null = null,
    readonly hint: string | null = null,
  ) {
    super(message);
  }
}

/** A request shape this fake does not know: 501, naming it. */
function unsupported(what: string): RestError {
  return new RestError(
    501,
    'FAKE_UNSUPPORTED',
    `The PostgREST test fake does not support ${what}`,
    null,
    'tests/fakes/postgrest-server.ts answers only the requests the SPA makes; extend it deliberately if a query changed.',
  );
}

/** A foreign key seen from one of its tables: the embedded table's rows are one (many-to-one) or many. */
interface Relation {
  cardinality: 'many-to-one' | 'one-to-many';
  /** The column of this table and the column of the embedded table that the key joins. */
  local: string;
  remote: string;
  constraint: string;
}

interface TableInfo {
  columns: Map<string, string>;
  /** Every single-column foreign key between this table and another served one, by the other table. */
  relations: Map<string, Relation[]>;
}
type SchemaCache = Map<string, TableInfo>;

async function loadSchemaCache(pool: pg.Pool): Promise<SchemaCache> {
  const tables = [...SERVED_TABLES];
  const { rows: cols } = await pool.query<{ table: string; column: string; type: string }>(
    `select c.relname as table, a.attname as column, t.typname as type
       from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace join pg_type t on t.oid = a.atttypid
      where n.nspname = 'public' and c.relname = any($1) and a.attnum > 0 and not a.attisdropped
      order by c.relname, a.attnum`,
    [tables],
  );
  const { rows: fks } = await pool.query<{ name: string; from_table: string; from_column: string; to_table: string; to_column: string }>(
    `select k.conname as name, src.relname as from_table, sa.attname as from_column, dst.relname as to_table, da.attname as to_column
       from pg_constraint k
       join pg_class src on src.oid = k.conrelid join pg_namespace n on n.oid = src.relnamespace
       join pg_class dst on dst.oid = k.confrelid
       join pg_attribute sa on sa.attrelid = k.conrelid and sa.attnum = k.conkey[1]
       join pg_attribute da on da.attrelid = k.confrelid and da.attnum = k.confkey[1]
      where k.contype = 'f' and n.nspname = 'public' and cardinality(k.conkey) = 1`,
  );
  const cache: SchemaCache = new Map();
  for (const t of tables) cache.set(t, { columns: new Map(), relations: new Map() });
  for (const c of cols) cache.get(c.table)!.columns.set(c.column, c.type);
  const relate = (table: string, other: string, relation: Relation) => {
    const relations = cache.get(table)!.relations;
    relations.set(other, [...(relations.get(other) ?? []), relation]);
  };
  for (const fk of fks) {
    if (!cache.has(fk.from_table) || !cache.has(fk.to_table) || fk.from_table === fk.to_table) continue;
    relate(fk.from_table, fk.to_table, { cardinality: 'many-to-one', local: fk.from_column, remote: fk.to_column, constraint: fk.name });
    relate(fk.to_table, fk.from_table, { cardinality: 'one-to-many', local: fk.to_column, remote: fk.from_column, constraint: fk.name });
  }
  return cache;
}

// ── Request parsing ───────────────────────────────────────────────────────────────────────────────────

type SelectItem =
  { kind: 'star' } | { kind: 'column'; name: string; alias: string } | { kind: 'embed'; table: string; alias: string; items: SelectItem[] };

/** Splits on commas outside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function parseSelect(text: string, nested: boolean): SelectItem[] {
  return splitTopLevel(text).map((raw) => {
    if (raw === '*') return { kind: 'star' } as const;
    const m = /^(?:([a-z_][a-z0-9_]*):)?([a-z_][a-z0-9_]*)(?:\((.*)\))?$/.exec(raw);
    if (!m) throw unsupported(`the select item "${raw}"`);
    const [, alias, name, inner] = m;
    if (inner === undefined) return { kind: 'column', name, alias: alias ?? name } as const;
    if (nested) throw unsupported(`nested embedding "${raw}"`);
    return { kind: 'embed', table: name, alias: alias ?? name, items: parseSelect(inner, true) } as const;
  });
}

const COMPARISONS = { eq: '=', neq: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;
type Comparison = keyof typeof COMPARISONS;

interface Condition {
  column: string;
  negate: boolean;
  op: Comparison | 'is' | 'in';
  /** eq, neq, lt…: the value; is: null|true|false; in: the list. */
  value: string | string[];
}
/** A column's filter, or `or=(…)`: any of its conditions. */
type Filter = Condition | { any: Condition[] };

/** PostgREST's list syntax for in.(…): comma-separated, double quotes around values holding , ( or ). */
function parseList(text: string): string[] {
  const values: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      let value = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\') i++;
        value += text[i++];
      }
      values.push(value);
      i += 2; // closing quote and comma
    } else {
      const end = text.indexOf(',', i);
      values.push(text.slice(i, end === -1 ? text.length : end));
      i = end === -1 ? text.length : end + 1;
    }
  }
  return values;
}

/** A value inside or=(…): double quotes (with backslash escapes) around one that holds a reserved character. */
function unquote(text: string): string {
  if (!text.startsWith('"')) return text;
  if (!text.endsWith('"') || text.length < 2) throw new RestError(400, 'PGRST100', `"failed to parse logic tree (${text})"`);
  return text.slice(1, -1).replace(/\\(.)/g, '$1');
}

/** or=(a.eq.1,b.lt."x,y"): its conditions, split on commas outside quotes and parentheses. */
function parseOr(expression: string): Filter {
  const list = /^\((.*)\)$/.exec(expression);
  if (!list) throw new RestError(400, 'PGRST100', `"failed to parse logic tree (${expression})"`);
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  const text = list[1];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return {
    any: parts.map((part) => {
      if (/^(not\.)?(and|or)\(/.test(part)) throw unsupported(`nested logic "${part}" in or=${expression}`);
      const dot = part.indexOf('.');
      const column = part.slice(0, dot);
      if (dot === -1 || !IDENT.test(column)) throw unsupported(`the condition "${part}" in or=${expression}`);
      return parseFilter(column, part.slice(dot + 1), true);
    }),
  };
}

function parseFilter(column: string, expression: string, inLogicTree = false): Condition {
  let rest = expression;
  const negate = rest.startsWith('not.');
  if (negate) rest = rest.slice(4);
  const dot = rest.indexOf('.');
  const op = dot === -1 ? rest : rest.slice(0, dot);
  const operand = dot === -1 ? '' : rest.slice(dot + 1);
  switch (op) {
    case 'eq':
    case 'neq':
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      return { column, negate, op, value: inLogicTree ? unquote(operand) : operand };
    case 'is':
      if (!['null', 'true', 'false'].includes(operand)) throw unsupported(`the operand "is.${operand}" in ${column}=${expression}`);
      return { column, negate, op, value: operand };
    case 'in': {
      const list = /^\((.*)\)$/.exec(operand);
      if (!list) throw new RestError(400, 'PGRST100', `"failed to parse filter (${expression})" (line 1, column ${op.length + 1})`);
      return { column, negate, op, value: parseList(list[1]) };
    }
    default:
      throw unsupported(`the operator "${op}" in ${column}=${expression}`);
  }
}

interface OrderTerm {
  column: string;
  direction: 'asc' | 'desc';
  nulls: 'first' | 'last' | null;
}

function parseOrder(text: string): OrderTerm[] {
  return text.split(',').map((term) => {
    const [column, ...mods] = term.split('.');
    if (!IDENT.test(column)) throw unsupported(`the order term "${term}"`);
    const order: OrderTerm = { column, direction: 'asc', nulls: null };
    for (const mod of mods) {
      if (mod === 'asc' || mod === 'desc') order.direction = mod;
      else if (mod === 'nullsfirst' || mod === 'nullslast') order.nulls = mod === 'nullsfirst' ? 'first' : 'last';
      else throw unsupported(`the order modifier "${mod}" in "${term}"`);
    }
    return order;
  });
}

function nonNegativeInt(name: string, text: string | null): number | null {
  if (text === null) return null;
  if (!/^\d+$/.test(text)) throw new RestError(400, 'PGRST100', `"failed to parse ${name} parameter (${text})"`);
  return Number(text);
}

interface Preferences {
  representation: boolean;
  exactCount: boolean;
}

function parsePrefer(header: string | undefined): Preferences {
  const prefs: Preferences = { representation: false, exactCount: false };
  for (const raw of (header ?? '').split(',')) {
    const pref = raw.trim();
    if (!pref) continue;
    if (pref === 'return=representation') prefs.representation = true;
    else if (pref === 'return=minimal') prefs.representation = false;
    else if (pref === 'count=exact') prefs.exactCount = true;
    else throw unsupported(`the preference "Prefer: ${pref}"`);
  }
  return prefs;
}

/** true for .single() (one object), false for a JSON array. */
function wantsObject(accept: string | undefined): boolean {
  const types = (accept ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (types.length === 0) return false;
  if (types.includes(OBJECT_MEDIA)) return true;
  if (types.some((t) => t === 'application/json' || t === '*/*' || t.startsWith('application/json;'))) return false;
  throw unsupported(`the media type "Accept: ${accept}"`);
}

// ── SQL building (identifiers from the schema cache only; values as $n parameters) ──────────────────────

const q = (ident: string) => `"${ident}"`;

class SqlBuilder {
  readonly values: unknown[] = [];
  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

function requireColumn(cache: SchemaCache, table: string, column: string): void {
  if (!cache.get(table)!.columns.has(column)) {
    throw new RestError(400, '42703', `column ${table}.${column} does not exist`);
  }
}

function selectList(cache: SchemaCache, table: string, items: SelectItem[]): string {
  return items
    .map((item) => {
      if (item.kind === 'star') return `${q(table)}.*`;
      if (item.kind === 'column') {
        requireColumn(cache, table, item.name);
        return `${q(table)}.${q(item.name)} as ${q(item.alias)}`;
      }
      if (!cache.has(item.table)) throw unsupported(`embedding the table "${item.table}"`);
      const relations = cache.get(table)!.relations.get(item.table) ?? [];
      if (relations.length === 0) {
        throw new RestError(400, 'PGRST200', `Could not find a relationship between '${table}' and '${item.table}' in the schema cache`);
      }
      if (relations.length > 1) {
        throw new RestError(
          300,
          'PGRST201',
          `Could not embed because more than one relationship was found for '${table}' and '${item.table}'`,
          relations.map((r) => `${r.cardinality} via ${r.constraint}`).join('; '),
          `Try changing '${item.table}' to one of the following: ${relations.map((r) => `'${item.table}!${r.constraint}'`).join(', ')}.`,
        );
      }
      const [{ cardinality, local, remote }] = relations;
      // Embedded rows are read under the embedded table's own policies (the statement runs as the request's role).
      const rows = `select ${selectList(cache, item.table, item.items)} from public.${q(item.table)} as ${q(item.table)} where ${q(item.table)}.${q(remote)} = ${q(table)}.${q(local)}`;
      // Many-to-one: one object, or null. One-to-many: an array of objects, [] when there is none.
      return cardinality === 'many-to-one'
        ? `(select row_to_json(pgrst_embed) from (${rows}) pgrst_embed) as ${q(item.alias)}`
        : `coalesce((select json_agg(pgrst_embed) from (${rows}) pgrst_embed), '[]'::json) as ${q(item.alias)}`;
    })
    .join(', ');
}

function whereClause(cache: SchemaCache, table: string, filters: Filter[], sql: SqlBuilder): string {
  if (filters.length === 0) return 'true';
  const condition = (f: Condition) => {
    requireColumn(cache, table, f.column);
    const col = `${q(table)}.${q(f.column)}`;
    let expr: string;
    if (f.op === 'in') expr = `${col} = any(${sql.param(f.value)})`;
    else if (f.op === 'is') expr = `${col} is ${f.value === 'null' ? 'null' : f.value === 'true' ? 'true' : 'false'}`;
    // Compared as the column's type, as PostgREST sends values (unknown-typed literals).
    else expr = `${col} ${COMPARISONS[f.op]} ${sql.param(f.value)}`;
    return f.negate ? `not (${expr})` : expr;
  };
  return filters.map((f) => ('any' in f ? `(${f.any.map(condition).join(' or ')})` : condition(f))).join(' and ');
}

function orderClause(cache: SchemaCache, table: string, order: OrderTerm[]): string {
  if (order.length === 0) return '';
  return ` order by ${order
    .map((o) => {
      requireColumn(cache, table, o.column);
      return `${q(table)}.${q(o.column)} ${o.direction}${o.nulls ? ` nulls ${o.nulls}` : ''}`;
    })
    .join(', ')}`;
}

/** PostgREST's status for a database error (docs.postgrest.org references/errors, "HTTP Status Codes"). */
function statusForSqlState(code: string, authenticated: boolean): number {
  if (code === '42501') return authenticated ? 403 : 401;
  if (code === '23503' || code === '23505') return 409;
  if (code === '25006') return 405;
  if (code === '42883' || code === '42P01') return 404;
  if (code === '42P17' || code === '53400') return 500;
  if (code === 'P0001') return 400;
  const cls = code.slice(0, 2);
  if (['08', '53'].includes(cls)) return 503;
  if (['0L', '0P', '28'].includes(cls)) return 403;
  if (['09', '25', '2D', '38', '39', '3B', '40', '54', '55', '57', '58', 'F0', 'HV', 'P0', 'XX'].includes(cls)) return 500;
  return 400;
}

// ── The handler ─────────────────────────────────────────────────────────────────────────────────────

interface ParsedRequest {
  method: 'GET' | 'HEAD' | 'POST' | 'PATCH';
  table: string;
  items: SelectItem[] | null;
  filters: Filter[];
  order: OrderTerm[];
  limit: number | null;
  offset: number | null;
  prefs: Preferences;
  object: boolean;
  /** Insert/update body: rows (insert) or one object (update). */
  body: Record<string, unknown>[] | null;
}

const READ_PARAMS = new Set(['select', 'order', 'limit', 'offset']);

function parseRequest(method: string, url: URL, headers: IncomingMessage['headers'], rawBody: string, cache: SchemaCache): ParsedRequest {
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST' && method !== 'PATCH') throw unsupported(`the method ${method}`);
  const table = decodeURIComponent(url.pathname.slice('/rest/v1/'.length));
  if (!(SERVED_TABLES as readonly string[]).includes(table)) throw unsupported(`the resource "/${table}"`);
  if (headers.range) throw unsupported('the Range header (supabase-js sends offset and limit)');
  const profile = (headers['accept-profile'] ?? headers['content-profile']) as string | undefined;
  if (profile !== undefined && profile !== 'public') {
    throw new RestError(406, 'PGRST106', 'The schema must be one of the following: public', null, null);
  }
  const prefs = parsePrefer(headers.prefer as string | undefined);
  if (prefs.exactCount && method !== 'GET' && method !== 'HEAD') throw unsupported(`Prefer: count=exact on ${method}`);
  const object = wantsObject(headers.accept as string | undefined);

  const filters: Filter[] = [];
  for (const [key, value] of url.searchParams) {
    if (READ_PARAMS.has(key)) continue;
    if (key === 'columns' && method === 'POST') continue;
    // `or`/`and` are logical operators, not columns; anything else not shaped like a column is unknown too.
    if (key === 'or') {
      filters.push(parseOr(value));
      continue;
    }
    if (key === 'and' || !IDENT.test(key)) throw unsupported(`the query parameter "${key}"`);
    filters.push(parseFilter(key, value));
  }
  if (url.searchParams.getAll('select').length > 1) throw unsupported('several select parameters');
  const selectText = url.searchParams.get('select');
  const items = selectText === null ? null : parseSelect(selectText, false);
  const order = url.searchParams.has('order') ? parseOrder(url.searchParams.get('order')!) : [];
  const limit = nonNegativeInt('limit', url.searchParams.get('limit'));
  const offset = nonNegativeInt('offset', url.searchParams.get('offset'));

  let body: Record<string, unknown>[] | null = null;
  if (method === 'POST' || method === 'PATCH') {
    if (order.length || limit !== null || offset !== null) throw unsupported(`order, limit or offset on ${method}`);
    if (method === 'POST' && filters.length) throw unsupported('filters on an insert');
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawBody);
    } catch {
      throw new RestError(400, 'PGRST102', 'Empty or invalid json');
    }
    const rows = Array.isArray(parsed) ? parsed : [parsed];
    if (method === 'PATCH' && Array.isArray(parsed)) throw unsupported('an array body on PATCH');
    if (rows.length === 0 || rows.some((r) => typeof r !== 'object' || r === null || Array.isArray(r))) {
      throw new RestError(400, 'PGRST102', 'All object keys must match');
    }
    body = rows as Record<string, unknown>[];
    const info = cache.get(table)!;
    for (const row of body) {
      for (const key of Object.keys(row)) {
        if (!info.columns.has(key))
          throw new RestError(400, 'PGRST204', `Could not find the '${key}' column of '${table}' in the schema cache`);
      }
    }
    if (method === 'PATCH' && Object.keys(body[0]).length === 0) throw unsupported('an empty update');
  } else if (rawBody) {
    throw unsupported(`a body on ${method}`);
  }
  return { method, table, items, filters, order, limit, offset, prefs, object, body };
}

interface Statement {
  text: string;
  values: unknown[];
  /** Whether the statement returns rows for the answer (reads, or writes with return=representation). */
  returnsBody: boolean;
}

function buildStatement(r: ParsedRequest, cache: SchemaCache, maxRows: number): Statement {
  const sql = new SqlBuilder();
  const list = selectList(cache, r.table, r.items ?? [{ kind: 'star' }]);
  const t = q(r.table);
  if (r.method === 'GET' || r.method === 'HEAD') {
    const where = whereClause(cache, r.table, r.filters, sql);
    const limit = Math.min(r.limit ?? maxRows, maxRows);
    const page = ` limit ${sql.param(limit)}${r.offset !== null ? ` offset ${sql.param(r.offset)}` : ''}`;
    const total = r.prefs.exactCount ? `(select count(*) from public.${t} as ${t} where ${where})` : 'null::bigint';
    return {
      text: `with pgrst_source as (select ${list} from public.${t} as ${t} where ${where}${orderClause(cache, r.table, r.order)}${page})
             select ${total} as total, count(pgrst_row) as rows, coalesce(json_agg(pgrst_row), '[]')::text as body from pgrst_source pgrst_row`,
      values: sql.values,
      returnsBody: true,
    };
  }
  const rows = r.body!;
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  let write: string;
  if (r.method === 'POST') {
    // As PostgREST does: the JSON body becomes rows of the table's type, so Postgres converts every value.
    const cols = keys.map(q).join(', ');
    write = `insert into public.${t} as ${t} (${cols}) select ${cols} from json_populate_recordset(null::public.${t}, ${sql.param(JSON.stringify(rows))}::json)`;
  } else {
    const sets = keys.map((k) => `${q(k)} = pgrst_body.${q(k)}`).join(', ');
    write = `update public.${t} as ${t} set ${sets} from (select * from json_populate_record(null::public.${t}, ${sql.param(JSON.stringify(rows[0]))}::json)) pgrst_body where ${whereClause(cache, r.table, r.filters, sql)}`;
  }
  if (!r.prefs.representation) return { text: write, values: sql.values, returnsBody: false };
  return {
    text: `with pgrst_source as (${write} returning ${t}.*)
           select null::bigint as total, count(pgrst_row) as rows, coalesce(json_agg(pgrst_row), '[]')::text as body
             from (select ${list} from pgrst_source as ${t}) pgrst_row`,
    values: sql.values,
    returnsBody: true,
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function contentRange(offset: number, rows: number, total: number | null): string {
  const range = rows === 0 ? '*' : `${offset}-${offset + rows - 1}`;
  return `${range}/${total ?? '*'}`;
}

export function createPostgrestFake(opts: PostgrestFakeOptions): PostgrestFake {
  let cache: Promise<SchemaCache> | null = null;
  const requests: RestRequestRecord[] = [];

  function send(res: ServerResponse, status: number, headers: Record<string, string>, body?: string): void {
    res.writeHead(status, { ...CORS_HEADERS, ...headers });
    res.end(body);
  }

  function sendError(res: ServerResponse, err: RestError, extra: Record<string, string> = {}): void {
    send(
      res,
      err.status,
      { 'content-type': 'application/json; charset=utf-8', ...extra },
      JSON.stringify({ code: err.code, details: err.details, hint: err.hint, message: err.message }),
    );
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const record: RestRequestRecord = { method, path: url.pathname.slice('/rest/v1'.length) + url.search, role: null, status: 0 };
    requests.push(record);
    const reply = (status: number, headers: Record<string, string>, body?: string) => {
      record.status = status;
      send(res, status, headers, body);
    };
    const fail = (err: RestError, extra?: Record<string, string>) => {
      record.status = err.status;
      sendError(res, err, extra);
    };

    if (method === 'OPTIONS') return reply(200, {});
    const rawBody = await readBody(req);

    // The API gateway in front of PostgREST: the project's key is required on every request.
    const apikey = req.headers.apikey;
    if (!apikey)
      return fail(new RestError(401, '', 'No API key found in request', null, 'No `apikey` request header or url param was found.'));
    const service = opts.serviceKey !== undefined && apikey === opts.serviceKey;
    if (apikey !== opts.anonKey && !service)
      return fail(new RestError(401, '', 'Invalid API key', null, 'Double check your Supabase `anon` or `service_role` API key.'));

    const authorization = req.headers.authorization;
    const bearer = authorization?.startsWith('Bearer ') ? authorization.slice(7) : null;
    if (authorization && bearer === null) return fail(new RestError(401, 'PGRST301', 'Unsupported authorization scheme'));
    const auth: { ok: true; role: NonNullable<RestRequestRecord['role']>; claims: Claims } | Exclude<AuthResult, { ok: true }> =
      service && (bearer === null || bearer === opts.serviceKey)
        ? { ok: true, role: 'service_role', claims: { role: 'service_role' } }
        : await opts.authenticate(bearer);
    if (!auth.ok) {
      return fail(new RestError(auth.status, auth.code, auth.message), {
        'www-authenticate': `Bearer error="invalid_token", error_description="${auth.message}"`,
      });
    }
    record.role = auth.role;

    let parsed: ParsedRequest;
    let statement: Statement;
    try {
      cache ??= loadSchemaCache(opts.pool);
      const schema = await cache;
      parsed = parseRequest(method, url, req.headers, rawBody, schema);
      statement = buildStatement(parsed, schema, opts.maxRows ?? SUPABASE_MAX_ROWS);
    } catch (err) {
      if (err instanceof RestError) return fail(err);
      throw err;
    }

    const client = await opts.pool.connect();
    const read = parsed.method === 'GET' || parsed.method === 'HEAD';
    try {
      await client.query(read ? 'begin isolation level read committed read only' : 'begin isolation level read committed');
      const headersJson = JSON.stringify(
        Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(', ') : v])),
      );
      await client.query(
        `select set_config('search_path', 'public', true), set_config('role', $1, true), set_config('request.jwt.claims', $2, true),
                set_config('request.method', $3, true), set_config('request.path', $4, true), set_config('request.headers', $5, true)`,
        [auth.role, JSON.stringify({ ...auth.claims, role: auth.role }), method, url.pathname.slice('/rest/v1'.length), headersJson],
      );
      const result = await client.query<{ total: string | null; rows: string; body: string }>(statement.text, statement.values);

      if (!statement.returnsBody) {
        await client.query('commit');
        return reply(parsed.method === 'POST' ? 201 : 204, { 'content-range': `*/*` });
      }
      const { total: totalText, rows: rowsText, body } = result.rows[0];
      const rows = Number(rowsText);
      const total = totalText === null ? null : Number(totalText);
      if (parsed.object && rows !== 1) {
        await client.query('rollback');
        return fail(
          new RestError(406, 'PGRST116', 'JSON object requested, multiple (or no) rows returned', `The result contains ${rows} rows`),
        );
      }
      await client.query('commit');

      const offset = parsed.offset ?? 0;
      if (total !== null && offset > 0 && offset >= total) {
        return fail(
          new RestError(
            416,
            'PGRST103',
            'Requested range not satisfiable',
            `An offset of ${offset} was requested, but there are only ${total} rows.`,
          ),
          { 'content-range': `*/${total}` },
        );
      }
      const status = parsed.method === 'POST' ? 201 : total !== null && rows < total ? 206 : 200;
      const headers = {
        'content-type': `${parsed.object ? OBJECT_MEDIA : 'application/json'}; charset=utf-8`,
        'content-range': parsed.method === 'PATCH' || parsed.method === 'POST' ? `*/*` : contentRange(offset, rows, total),
      };
      const payload = parsed.object ? JSON.stringify((JSON.parse(body) as unknown[])[0]) : body;
      return reply(status, headers, parsed.method === 'HEAD' ? undefined : payload);
    } catch (err) {
      await client.query('rollback').catch(() => {});
      const pgErr = err as { code?: string; message: string; detail?: string; hint?: string };
      if (typeof pgErr.code === 'string' && /^[0-9A-Z]{5}$/.test(pgErr.code)) {
        return fail(
          new RestError(
            statusForSqlState(pgErr.code, auth.role === 'authenticated'),
            pgErr.code,
            pgErr.message,
            pgErr.detail ?? null,
            pgErr.hint ?? null,
          ),
        );
      }
      throw err;
    } finally {
      client.release();
    }
  }

  return {
    requests,
    async handle(req, res) {
      try {
        await handle(req, res);
      } catch (err) {
        // Not a database error: a bug in the fake, answered so the test fails with its message.
        if (!res.headersSent) sendError(res, new RestError(500, 'FAKE_ERROR', (err as Error).message));
      }
    },
  };
}
