import type { SQL } from 'drizzle-orm';
import { PgDialect, type PgPreparedQuery, type PreparedQueryConfig } from 'drizzle-orm/pg-core';
import type { Db, Executor } from '../db/index.ts';

/** The databases' own dialect (no casing option), to turn a statement into text once. */
const dialect = new PgDialect();

/**
 * A hand-written statement on the hot path, prepared under `name` once per database or transaction (drizzle
 * names only its query builders' statements, and `execute` builds the text anew on every call): its text is
 * built once, and Postgres parses it once per connection and may keep its plan
 * (docs/decisions/014-generate-path.md). `build` writes every value as `sql.placeholder(key)`, or
 * `sql.param(sql.placeholder(key), column)` for a column's mapping; the returned function fills them in.
 * A name must always stand for the same text: node-postgres refuses a name reused for another statement.
 */
export function preparedStatement(name: string, build: () => SQL) {
  const prepared = new WeakMap<Executor, PgPreparedQuery<PreparedQueryConfig>>();
  return async <Row>(executor: Executor, values: Record<string, unknown>): Promise<Row[]> => {
    let query = prepared.get(executor);
    if (!query) {
      // Every executor (a database or an open transaction) is a PgDatabase with its own session.
      query = (executor as Db)._.session.prepareQuery(dialect.sqlToQuery(build()), undefined, name, false);
      prepared.set(executor, query);
    }
    return ((await query.execute(values)) as { rows: Row[] }).rows;
  };
}
