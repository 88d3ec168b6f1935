import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildSupabaseMigrations,
  DRIZZLE_MIGRATIONS_DIR,
  HAND_WRITTEN_MIGRATIONS,
  REALTIME_NO_DELETES_MIGRATION,
  readGeneratedMigrations,
  SECURITY_MIGRATION,
  SUPABASE_MIGRATIONS_DIR,
  supabaseMigration,
  supabaseVersion,
} from '../../server/db/supabase-migrations.ts';

/** SQL without its comments, so rules apply to what runs, not to what explains it. */
const code = (sql: string) => sql.replace(/--.*$/gm, '');
const security = () => readFileSync(join(SUPABASE_MIGRATIONS_DIR, SECURITY_MIGRATION), 'utf8');

describe('supabase/migrations', () => {
  it('matches the Drizzle migrations (run `npm run db:supabase` after generating one)', () => {
    const wanted = buildSupabaseMigrations();
    const present = readGeneratedMigrations();
    expect([...present.keys()]).toEqual([...wanted.keys()]);
    for (const [file, sql] of wanted) expect(present.get(file), `supabase/migrations/${file} is stale`).toBe(sql);
    // Everything in the folder is either generated or hand-written.
    expect(readdirSync(SUPABASE_MIGRATIONS_DIR).sort()).toEqual([...wanted.keys(), ...HAND_WRITTEN_MIGRATIONS].sort());
  });

  const generatedBefore = (handWritten: string) =>
    [...readGeneratedMigrations().entries()]
      .filter(([file]) => file < handWritten)
      .map(([, sql]) => sql)
      .join('\n');

  // The publication's settings name no table.
  it.each(HAND_WRITTEN_MIGRATIONS.filter((f) => f !== REALTIME_NO_DELETES_MIGRATION))(
    'applies %s after every table and view it names',
    (handWritten) => {
      const before = generatedBefore(handWritten);
      const sql = code(readFileSync(join(SUPABASE_MIGRATIONS_DIR, handWritten), 'utf8'));
      const tables = new Set([...sql.matchAll(/\bpublic\.(\w+)/g)].map((m) => m[1]));
      expect(tables.size).toBeGreaterThan(0);
      for (const table of tables) expect(before, `table ${table}`).toMatch(new RegExp(`CREATE (TABLE|VIEW) "${table}"`));
    },
  );

  it('keeps users.verified_email out of every grant to clients, and applies its policy after the column exists', () => {
    const grants = readdirSync(SUPABASE_MIGRATIONS_DIR)
      .filter((f) => HAND_WRITTEN_MIGRATIONS.includes(f))
      .map((f) => code(readFileSync(join(SUPABASE_MIGRATIONS_DIR, f), 'utf8')))
      .join('\n');
    const onUsers = [...grants.matchAll(/grant ([^;]*?) on public\.users to ([^;]+);/gi)].map((m) => m[1]);
    expect(onUsers.length).toBeGreaterThan(0);
    // Reading one's own row is fine; writing is granted column by column, never verified_email or the whole table.
    for (const privileges of onUsers) {
      expect(privileges, privileges).not.toMatch(/verified_email/);
      // Each privilege, e.g. `select` or `update (email, full_name)`: a write without a column list is table-wide.
      for (const [, name, columns] of privileges.matchAll(/(\w+)\s*(\([^)]*\))?\s*(?:,|$)/g)) {
        if (/^(insert|update|all)$/i.test(name)) expect(columns, `${name} on public.users names its columns`).toBeTruthy();
      }
    }
    const handWritten = '20261125200200_verified_email_and_filter_options_grants.sql';
    expect(HAND_WRITTEN_MIGRATIONS).toContain(handWritten);
    expect(generatedBefore(handWritten)).toContain('ADD COLUMN "verified_email"');
    expect(code(readFileSync(join(SUPABASE_MIGRATIONS_DIR, handWritten), 'utf8'))).toMatch(
      /create policy users_insert_own[^;]*verified_email is null/,
    );
  });

  it('applies the security migration after the columns and schema it names', () => {
    const before = generatedBefore(SECURITY_MIGRATION);
    expect(new Set([...code(security()).matchAll(/\bpublic\.(\w+)/g)].map((m) => m[1])).size).toBeGreaterThan(4);
    expect(before).toContain('ADD COLUMN "erased_at"');
    expect(before).toContain('CREATE SCHEMA IF NOT EXISTS "private"');
  });

  it('never uses auth.uid() (Clerk ids are not uuids), and leaves Supabase out of the Drizzle migrations', () => {
    for (const file of readdirSync(SUPABASE_MIGRATIONS_DIR)) {
      expect(code(readFileSync(join(SUPABASE_MIGRATIONS_DIR, file), 'utf8')), file).not.toMatch(/auth\s*\.\s*uid\s*\(/i);
    }
    // Our own Postgres and PGlite run only server/db/migrations: no Supabase role or schema may appear there.
    for (const file of readdirSync(DRIZZLE_MIGRATIONS_DIR).filter((f) => f.endsWith('.sql'))) {
      const sql = code(readFileSync(join(DRIZZLE_MIGRATIONS_DIR, file), 'utf8'));
      expect(sql, file).not.toMatch(/\b(anon|authenticated|service_role|supabase_realtime)\b|\bauth\s*\./i);
    }
  });

  it.each(HAND_WRITTEN_MIGRATIONS)('compares the token subject only in the evaluated-once form in %s', (handWritten) => {
    const sql = code(readFileSync(join(SUPABASE_MIGRATIONS_DIR, handWritten), 'utf8'));
    const uses = [...sql.matchAll(/auth\.jwt\(\)/g)].length;
    const wrapped = [...sql.matchAll(/\(select auth\.jwt\(\) ->> 'sub'\)/g)].length;
    if (handWritten === SECURITY_MIGRATION) expect(uses).toBeGreaterThan(0);
    expect(wrapped).toBe(uses);
  });
});

describe('the generator', () => {
  const later = [
    'CREATE TABLE "later_table" (\n\t"id" uuid PRIMARY KEY NOT NULL\n);',
    'CREATE TABLE "reports"."outside_public" (\n\t"id" integer\n);',
    'CREATE INDEX "later_idx" ON "later_table" USING btree ("id");',
  ].join('\n--> statement-breakpoint\n');

  it('switches row-level security on for each table a later migration creates in public, and wraps it for Drizzle', () => {
    const { file, sql } = supabaseMigration({ when: Date.UTC(2027, 0, 2, 3, 4, 5), tag: '0007_later_table' }, later);
    expect(file).toBe('20270102030405_later_table.sql');
    expect(sql).toContain('alter table public."later_table" enable row level security;');
    expect(sql).not.toContain('outside_public" enable');
    expect(sql.match(/^ {2}execute \$likeness_statement\$/gm)).toHaveLength(3);
    expect(sql).toContain(`where created_at >= ${Date.UTC(2027, 0, 2, 3, 4, 5)}) then`);
    expect(sql).toMatch(/insert into drizzle\.__drizzle_migrations \(hash, created_at\) values \('[0-9a-f]{64}', \d+\);/);
  });

  it('names files by journal time and keeps names when migrations are renumbered', () => {
    expect(supabaseVersion(1795406130020)).toBe('20261123035530');
    const a = supabaseMigration({ when: 1, tag: '0003_users_erasure' }, later).file;
    const b = supabaseMigration({ when: 1, tag: '0005_users_erasure' }, later).file;
    expect(a).toBe(b);
  });

  it('refuses a migration it could not wrap safely', () => {
    expect(() => supabaseMigration({ when: 1, tag: '0009_x' }, 'select $likeness_statement$;')).toThrow(/dollar-quote/);
  });
});
