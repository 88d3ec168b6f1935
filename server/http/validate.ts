import type { MiddlewareHandler } from 'hono';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '@common/text.ts';
import { badRequest } from '../domain/errors.ts';

/** The HTTP side of input checks: the body's JSON and every URL's text. Rules on values: ../domain/validate.ts. */

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
