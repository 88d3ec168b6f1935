import type { Column } from 'drizzle-orm';

/**
 * A row read by a hand-written statement (column names as Postgres gives them) as drizzle maps a selected row:
 * each column's driver value through the column's own mapping, keyed by the table's property names.
 */
export function rowOf<T>(columns: Record<string, Column>, raw: Record<string, unknown>): T {
  const mapped: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(columns)) {
    const value = raw[column.name];
    mapped[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return mapped as T;
}
