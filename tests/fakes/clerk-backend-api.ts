import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';

/**
 * Clerk's Backend API on loopback, the two calls the server makes: `GET /v1/jwks` (session-token keys when
 * no CLERK_JWT_KEY is set) and `GET /v1/users/{id}` (a profile the token does not carry). As strict as the
 * real one about what it receives (the secret key as a bearer token, the API version header) and answering
 * bodies `@clerk/backend` deserialises (`object: 'user'`, Content-Type exactly application/json, Clerk's
 * `{ errors: [{ code, message, long_message }] }` on failure, Retry-After on 429).
 */
export interface FakeClerkBackendApi {
  /** The CLERK_API_URL to give the server. */
  url: string;
  /** Paths requested, in order (e.g. '/v1/users/user_1'). */
  requests: string[];
  /** Makes a user known (a `clerkUserJson(...)` object). */
  addUser(user: { id: string } & Record<string, unknown>): void;
  /** The next `count` calls answer 429 with `Retry-After: retryAfterSeconds`. */
  rateLimit(count: number, retryAfterSeconds: number): void;
  /** Makes /v1/jwks fail (HTTP 500), as when Clerk cannot be reached. */
  breakJwks(broken: boolean): void;
  /** Makes /v1/users/{id} fail (HTTP 503, no Retry-After), as during an outage of the Backend API. */
  breakUsers(broken: boolean): void;
  stop(): Promise<void>;
}

const clerkError = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ errors: [{ code, message, long_message: message, meta: {} }], clerk_trace_id: 'trace_test' }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

export async function startFakeClerkBackendApi(opts: { secretKey: string; jwks: JsonWebKey[] }): Promise<FakeClerkBackendApi> {
  const users = new Map<string, Record<string, unknown>>();
  const requests: string[] = [];
  let limited = 0;
  let retryAfter = 0;
  let jwksBroken = false;
  let usersBroken = false;

  const server: ServerType = await new Promise((resolve) => {
    const s = serve(
      {
        hostname: '127.0.0.1',
        port: 0,
        fetch: async (req) => {
          const path = new URL(req.url).pathname;
          requests.push(path);
          if (req.headers.get('authorization') !== `Bearer ${opts.secretKey}`) {
            return clerkError(401, 'authentication_invalid', 'The provided Clerk Secret Key is invalid.');
          }
          if (!req.headers.get('clerk-api-version')) return clerkError(400, 'missing_api_version', 'Clerk-API-Version header is required.');
          if (limited > 0) {
            limited--;
            return clerkError(429, 'too_many_requests', 'Too many requests.', { 'retry-after': String(retryAfter) });
          }
          if (req.method === 'GET' && path === '/v1/jwks') {
            return jwksBroken ? clerkError(500, 'internal_clerk_error', 'Something went wrong.') : json({ keys: opts.jwks });
          }
          const user = /^\/v1\/users\/([^/]+)$/.exec(path);
          if (req.method === 'GET' && user && usersBroken) return clerkError(503, 'service_unavailable', 'Service unavailable.');
          if (req.method === 'GET' && user) {
            const found = users.get(decodeURIComponent(user[1]));
            return found ? json(found) : clerkError(404, 'resource_not_found', 'not found');
          }
          return clerkError(404, 'resource_not_found', `No route ${req.method} ${path}`);
        },
      },
      () => resolve(s),
    );
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    addUser: (user) => void users.set(user.id, user),
    rateLimit(count, seconds) {
      limited = count;
      retryAfter = seconds;
    },
    breakJwks: (broken) => void (jwksBroken = broken),
    breakUsers: (broken) => void (usersBroken = broken),
    stop: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
