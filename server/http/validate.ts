import type { z } from 'zod';
import { badRequest } from './errors.ts';

/** Parses input with a shared schema; the first problem becomes a 400 naming the field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue.path.join('.');
  throw badRequest(field ? `${field}: ${issue.message}` : issue.message, 'invalid_input');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether an id from a path or a payload can be a uuid column's value (anything else would make Postgres throw). */
export const isUuid = (id: string) => UUID.test(id);

/** Reads a JSON body, turning malformed JSON into a 400 instead of a 500. */
export async function readJson(req: Request): Promise<unknown> {
  try {
    return await req.json();
  } catch {
    throw badRequest('The request body must be valid JSON.', 'invalid_json');
  }
}
