const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether an id from a path or a payload can be a uuid column's value: anything else would make Postgres throw
 * (the server) or PostgREST answer 400 (the hosted SPA), where the person should hear that there is no such thing.
 */
export const isUuid = (id: string) => UUID.test(id);
