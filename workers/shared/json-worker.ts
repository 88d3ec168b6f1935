import type { z } from 'zod';
import { readWorkerConfig, WorkerConfigError, type WorkerConfig, type WorkerEnv } from './config.ts';
import { refuse, WORKER_REFUSALS, WorkerError } from './errors.ts';
import { signedInPerson, type SignedInPerson } from './session.ts';

/** A JSON request body larger than this is refused; the workers' bodies are a few ids. */
const MAX_BODY_BYTES = 16 * 1024;

export interface WorkerCall {
  request: Request;
  config: WorkerConfig;
  /** The SPA's origin the request came from (one of ALLOWED_ORIGINS), else the first of them. */
  spaOrigin: string;
  /** Who calls, from the verified session token (never from the body). */
  person: SignedInPerson;
  /** The body as JSON, not yet checked. */
  body: unknown;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers: { 'cache-control': 'no-store', ...headers } });

async function readJson(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) throw refuse(WORKER_REFUSALS.tooLarge);
  const text = await request.text();
  if (new TextEncoder().encode(text).length > MAX_BODY_BYTES) throw refuse(WORKER_REFUSALS.tooLarge);
  try {
    return JSON.parse(text);
  } catch {
    throw refuse(WORKER_REFUSALS.invalidJson);
  }
}

/** Parses input with a shared schema of common/; the first problem is a 400 naming the field, as the server answers. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new WorkerError(400, 'invalid_input', `${issue.path.join('.') || 'body'}: ${issue.message}`);
}

/**
 * A module worker (`export default { fetch }`) that answers one JSON POST of a signed-in person of the hosted SPA:
 * CORS for the SPA's origins only (a preflight from anywhere else is refused, and so is a POST that names another
 * origin), the Clerk session token checked before the body is read (as the server does), every refusal as the
 * server's `{message, code}` with its status, and anything unexpected as a 500 that gives nothing away.
 */
export function jsonWorker(opts: { products: boolean; handle(call: WorkerCall): Promise<unknown> }) {
  return {
    async fetch(request: Request, env: WorkerEnv): Promise<Response> {
      let config: WorkerConfig;
      try {
        config = readWorkerConfig(env, { products: opts.products });
      } catch (err) {
        if (!(err instanceof WorkerConfigError)) throw err;
        console.error(`The worker is not configured: ${err.message}`);
        const r = WORKER_REFUSALS.notConfigured;
        return json(r.status, { message: r.message, code: r.code });
      }
      const origin = request.headers.get('origin');
      const allowed = origin !== null && config.origins.includes(origin);
      const cors: Record<string, string> = allowed ? { 'access-control-allow-origin': origin, vary: 'Origin' } : { vary: 'Origin' };
      try {
        if (origin !== null && !allowed) throw refuse(WORKER_REFUSALS.crossSite);
        if (request.method === 'OPTIONS' && request.headers.get('access-control-request-method')) {
          return new Response(null, {
            status: 204,
            headers: {
              ...cors,
              'access-control-allow-methods': 'POST',
              'access-control-allow-headers': 'Authorization, Content-Type',
              'access-control-max-age': '600',
            },
          });
        }
        if (request.method !== 'POST') {
          return json(405, { message: 'Only POST is answered here.', code: 'method_not_allowed' }, { ...cors, allow: 'POST, OPTIONS' });
        }
        const person = await signedInPerson(request, config);
        const body = await readJson(request);
        const answer = await opts.handle({ request, config, spaOrigin: allowed ? origin : config.origins[0], person, body });
        return json(200, answer, cors);
      } catch (err) {
        if (err instanceof WorkerError) return json(err.status, { message: err.message, code: err.code }, cors);
        console.error('Unexpected failure:', err instanceof Error ? (err.stack ?? err.message) : String(err));
        return json(500, { message: 'Something went wrong on our side. Please try again.', code: 'internal' }, cors);
      }
    },
  };
}
