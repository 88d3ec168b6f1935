/**
 * A Supabase database as Supabase's own services see it, on the real PostgreSQL of TEST_DATABASE_URL: a
 * scratch database with Supabase's roles, its `auth.jwt()`, `auth.uid()` and `auth.role()` exactly as
 * Supabase defines them, its default privileges, and `supabase/migrations/` applied in name order. Queries
 * run the way PostgREST runs each request (`asClaims` / `withClaims`), so grants and row-level security are
 * the real ones. Sources: shared/contracts/hosted-research.md §3.2–3.3 (supabase/auth
 * 20240624145325_recreate_auth_functions, supabase/postgres init-scripts, PostgREST PreQuery.hs).
 *
 *   const db = await createSupabaseDatabase();
 *   const mine = await db.asClaims(clerkClaims('user_A'), 'select credits from user_public_meta');
 *   await db.drop();
 *
 * Needs the run's PostgreSQL (testDatabaseUrl: `npm test` always provides one).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { SUPABASE_MIGRATIONS_DIR } from '../../server/db/supabase-migrations.ts';
import { sessionClaims } from './clerk.ts';
import { createScratchDatabase, testDatabaseUrl } from './server.ts';

/** JWT claims as PostgREST puts them in request.jwt.claims (a Clerk session token's, or `{ role: 'anon' }`). */
export type Claims = Record<string, unknown> & { role?: string; sub?: string };

/** The claims of a Clerk session token for `sub`, as Supabase receives them (hosted-research.md §1.1). */
export function clerkClaims(sub: string, extra: Record<string, unknown> = {}): Claims {
  return sessionClaims({ sub, sid: `sess_${sub}`, ...extra });
}

/** What a request without a token runs as. */
export const ANON: Claims = { role: 'anon' };

/** Key of the advisory lock that serialises role creation across test files and engineers (any value, fixed). */
const ROLES_LOCK = 73_110_011;
const DUPLICATE = new Set(['42710', '23505']);

/**
 * Supabase's API roles (supabase/postgres 00000000000000-initial-schema.sql). Roles belong to the whole
 * cluster, which many test files and engineers share, so this is idempotent and race-safe: one creator at a
 * time (an advisory lock taken in the base database everyone connects to), and a role another process
 * created meanwhile counts as created.
 */
export async function ensureSupabaseRoles(baseUrl = testDatabaseUrl()): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [ROLES_LOCK]);
    for (const [role, attributes] of [
      ['anon', 'nologin noinherit'],
      ['authenticated', 'nologin noinherit'],
      ['service_role', 'nologin noinherit bypassrls'],
    ] as const) {
      const { rowCount } = await client.query('select 1 from pg_roles where rolname = $1', [role]);
      if (rowCount) continue;
      await client.query(`create role ${role} ${attributes}`).catch((err: { code?: string }) => {
        if (!DUPLICATE.has(err.code ?? '')) throw err;
      });
    }
  } finally {
    await client.query('select pg_advisory_unlock($1)', [ROLES_LOCK]).catch(() => {});
    await client.end();
  }
}

/**
 * The rest of what a new Supabase project has before its first migration: the `auth` schema with
 * auth.uid(), auth.role() and auth.jwt() verbatim, and the default privileges that give anon,
 * authenticated and service_role everything created in `public` (which the security migration revokes).
 */
export const SUPABASE_PLATFORM_SQL = `
create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;
grant usage on schema public to anon, authenticated, service_role;

create or replace function auth.uid() returns uuid set search_path to '' as $f$
  select coalesce(nullif(current_setting('request.jwt.claim.sub', true), ''),
                  (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub'))::uuid $f$ language sql stable;
create or replace function auth.role() returns text set search_path to '' as $f$
  select coalesce(nullif(current_setting('request.jwt.claim.role', true), ''),
                  (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role'))::text $f$ language sql stable;
create or replace function auth.jwt() returns jsonb set search_path to '' as $f$
  select coalesce(nullif(current_setting('request.jwt.claim', true), ''),
                  nullif(current_setting('request.jwt.claims', true), ''))::jsonb $f$ language sql stable;
grant execute on function auth.uid(), auth.role(), auth.jwt() to anon, authenticated, service_role;

alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
`;

/** supabase/migrations/*.sql in the order `supabase db push` applies them (by name). */
export function supabaseMigrationFiles(dir = SUPABASE_MIGRATIONS_DIR): { file: string; sql: string }[] {
  return readdirSync(dir)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .sort()
    .map((file) => ({ file, sql: readFileSync(join(dir, file), 'utf8') }));
}

export interface SupabaseTestDatabase {
  /** Connection string of the scratch database, as its owner (the role that applied the migrations). */
  url: string;
  /** Connections as the owner: seed data, inspect catalogs (row-level security does not apply). */
  owner: pg.Pool;
  /** Applies supabase/migrations (done by createSupabaseDatabase unless `migrations: false`). */
  applyMigrations(): Promise<void>;
  /** One query as PostgREST runs a request carrying `claims` (ANON for none). */
  asClaims<R extends pg.QueryResultRow = Record<string, unknown>>(
    claims: Claims,
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
  /** Several queries in one such request-transaction; `readOnly` as PostgREST does for GET and HEAD. */
  withClaims<T>(claims: Claims, run: (client: pg.PoolClient) => Promise<T>, opts?: { readOnly?: boolean }): Promise<T>;
  drop(): Promise<void>;
}

/** A fresh scratch database shaped like a Supabase project, with supabase/migrations applied. */
export async function createSupabaseDatabase(opts: { migrations?: boolean } = {}): Promise<SupabaseTestDatabase> {
  await ensureSupabaseRoles(testDatabaseUrl());
  const scratch = await createScratchDatabase();
  const owner = new pg.Pool({ connectionString: scratch.url, max: 4 });
  owner.on('error', () => {});
  await owner.query(SUPABASE_PLATFORM_SQL);

  async function withClaims<T>(claims: Claims, run: (client: pg.PoolClient) => Promise<T>, o: { readOnly?: boolean } = {}): Promise<T> {
    const client = await owner.connect();
    try {
      await client.query(o.readOnly ? 'begin read only' : 'begin');
      // PostgREST: the token's role (anon without one), and its claims with that role in them.
      const role = typeof claims.role === 'string' ? claims.role : 'anon';
      await client.query(
        `select set_config('search_path', 'public', true), set_config('role', $1, true), set_config('request.jwt.claims', $2, true), set_config('request.method', $3, true)`,
        [role, JSON.stringify({ ...claims, role }), o.readOnly ? 'GET' : 'POST'],
      );
      const result = await run(client);
      await client.query('commit');
      return result;
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  const db: SupabaseTestDatabase = {
    url: scratch.url,
    owner,
    async applyMigrations() {
      for (const { file, sql } of supabaseMigrationFiles()) {
        await owner.query(sql).catch((err: Error) => {
          throw new Error(`supabase/migrations/${file}: ${err.message}`, { cause: err });
        });
      }
    },
    asClaims: (claims, text, values) => withClaims(claims, (client) => client.query(text, values)),
    withClaims,
    async drop() {
      await owner.end();
      await scratch.drop();
    },
  };
  if (opts.migrations !== false) await db.applyMigrations();
  return db;
}
