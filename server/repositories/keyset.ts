import { sql, type AnyColumn, type SQL } from 'drizzle-orm';

/**
 * Where a keyset page (ordered by created_at, then id) ended, at the database's own precision. A JavaScript Date
 * keeps milliseconds and Postgres microseconds, so a page's last row read back as a Date sorts before itself:
 * "after" it would list it again, "before" it would skip its neighbours of the same millisecond.
 */
export interface PageEnd {
  /** created_at as Postgres writes it (`createdAtText`). */
  at: string;
  id: string;
}

/** The column as text, microseconds and offset included, for a PageEnd. */
export const createdAtText = (createdAt: AnyColumn): SQL<string> => sql<string>`${createdAt}::text`;

/** Rows after (`>`) or before (`<`) the page's end in (created_at, id) order. */
export const pastPageEnd = (createdAt: AnyColumn, id: AnyColumn, direction: '>' | '<', end: PageEnd): SQL =>
  sql`(${createdAt}, ${id}) ${sql.raw(direction)} (${end.at}::timestamptz, ${end.id}::uuid)`;
