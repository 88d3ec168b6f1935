import { and, asc, desc, eq, getTableColumns, inArray, type AnyColumn, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { ListDefinition } from '@common/library.ts';

/**
 * A list definition of common/library.ts (the one the hosted adapter reads too) as Drizzle conditions and
 * ORDER BY terms. `fields` are where the columns are read from: the table itself, or a subquery of it
 * (whose fields carry the same keys).
 */
function resolver(table: PgTable, fields: object) {
  const keyOf = new Map(Object.entries(getTableColumns(table)).map(([key, column]) => [column.name, key]));
  return (name: string): AnyColumn => {
    const column = (fields as Record<string, unknown>)[keyOf.get(name) ?? ''];
    if (!column) throw new Error(`The list column ${name} is not a column of this query`);
    return column as AnyColumn;
  };
}

export function listWhere(definition: ListDefinition, table: PgTable, fields: object = table): SQL | undefined {
  const column = resolver(table, fields);
  const conditions = [
    ...Object.entries(definition.where).map(([name, value]) => eq(column(name), value)),
    ...Object.entries(definition.whereIn ?? {}).map(([name, values]) => inArray(column(name), [...(values as readonly string[])])),
  ];
  return conditions.length ? and(...conditions) : undefined;
}

export function listOrder(definition: ListDefinition, table: PgTable, fields: object = table): SQL[] {
  const column = resolver(table, fields);
  return definition.order.map((term) => (term.ascending ? asc(column(term.column)) : desc(column(term.column))));
}
