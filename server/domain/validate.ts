import type { z } from 'zod';
import { badRequest } from './errors.ts';

/** Input rules that services and routes share; each broken one is a 400 naming what was wrong. */

/** Parses input with a shared schema; the first problem becomes a 400 naming the field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  // A problem with the body as a whole (null, a list, a string) is the body's.
  const field = issue.path.join('.') || 'body';
  throw badRequest(`${field}: ${issue.message}`, 'invalid_input');
}
