import type { MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '@common/text.ts';
import { badRequest } from './errors.ts';

/** Parses input with a shared schema; the first problem becomes a 400 naming the field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  // A problem with the body as a whole (null, a list, a string) is the body's.
  const field = issue.path.join('.') || 'body';
  throw badRequest(`${field}: ${issue.message}`, 'invalid_input');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether an id from a path or a payload can be a uuid column's value (anything else would make Postgres throw). */
export const isUuid = (id: string) => UUID.test(id);

/** Reads a JSON body, turning malformed JSON into a 400 instead of a 500. */
export async function readJson(req: Request): Promise<unknown> {
  try {
    return await req.json();
  } catch {
    throw badRequest('body: must be valid JSON', 'invalid_json');
  }
}

/** Decodes one URL part; a malformed % escape or a character Postgres cannot store is a 400 naming the part. */
function decodeUrlPart(raw: string, name: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw badRequest(`${name}: contains a malformed % escape`, 'invalid_url');
  }
  if (!isStorableText(decoded)) throw badRequest(`${name}: ${UNSTORABLE_TEXT_MESSAGE}`, 'invalid_url');
  return decoded;
}

/**
 * The shared string rule for every path and query parameter of every route, applied once before routing:
 * whatever a route later decodes or looks up is well-formed text.
 */
export function storableUrl(): MiddlewareHandler {
  return async (c, next) => {
    const url = c.req.url;
    const queryAt = url.indexOf('?');
    const pathStart = url.indexOf('/', url.indexOf('//') + 2);
    decodeUrlPart(url.slice(pathStart, queryAt < 0 ? undefined : queryAt), 'path');
    if (queryAt >= 0) {
      for (const pair of url.slice(queryAt + 1).split('&')) {
        if (!pair) continue;
        const eq = pair.indexOf('=');
        const rawName = (eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' ');
        const name = decodeUrlPart(rawName, 'query parameter name');
        if (eq >= 0) decodeUrlPart(pair.slice(eq + 1).replace(/\+/g, ' '), name.slice(0, 64));
      }
    }
    await next();
  };
}
