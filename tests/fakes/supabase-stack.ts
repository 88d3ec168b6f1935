/**
 * A Supabase project on loopback for tests: the PostgREST subset (./postgrest-server.ts) at `/rest/v1/` and
 * the Realtime endpoint (./supabase-realtime-server.ts) at `/realtime/v1/websocket`, on one port, over the
 * real PostgreSQL of a scratch database made by tests/helpers/supabase-db.ts. The real
 * `@supabase/supabase-js` talks to it unchanged:
 *
 *   const db = await createSupabaseDatabase();                  // migrations + RLS, TEST_DATABASE_URL
 *   const clerk = createClerkTestKeys();                        // tests/helpers/clerk.ts
 *   const fakes = await startSupabaseFakes({ databaseUrl: db.url, jwtKey: clerk.publicKeyPem });
 *   const supabase = createClient(fakes.url, fakes.anonKey, {
 *     accessToken: async () => clerk.mint({ sub: 'user_A' }),
 *     auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
 *   });
 *   await supabase.from('users').select('id').eq('clerk_id', 'user_A').maybeSingle();
 *   await supabase.realtime.setAuth(); supabase.channel('credits').on('postgres_changes', {…}, cb).subscribe();
 *   fakes.realtime.channels(); fakes.realtime.dropAll(); await fakes.realtime.settled();
 *   fakes.rest.requests;                                        // what was asked, as whom, answered how
 *   await fakes.stop();                                         // before db.drop()
 *
 * Start it after the migrations: the Realtime feed puts its triggers on the tables then in the
 * `supabase_realtime` publication. One stack per database at a time: its feed consumes the change rows
 * its triggers write.
 *
 * From a jsdom test (checked by hand): pass `realtime: { transport: WebSocket }` with `ws`'s WebSocket to
 * createClient (the default one there fails on jsdom's Event class), and make the database outside jsdom —
 * createSupabaseDatabase needs the node environment, since Vite rewrites `new URL(…, import.meta.url)` in
 * jsdom's web transform — e.g. in a node-environment globalSetup that hands its URL over with provide().
 *
 * Tokens are checked the way Supabase checks third-party (Clerk) session tokens: an RS256 signature by the
 * instance's key (`jwtKey`: the PEM public key Clerk shows, i.e. CLERK_JWT_KEY, or its JWK; or `jwks`), `exp` required,
 * PostgREST's 30 s clock leeway. No token, or the anon key as the token (what
 * supabase-js sends when `accessToken` returns null), runs as `anon`; a token without a `role` claim too.
 * A bad token is 401 `PGRST301`, an expired one 401 `PGRST303` "JWT expired" (PostgREST 12's codes). The project's
 * secret key (`serviceKey`) as `apikey` runs PostgREST requests as `service_role`, past row-level security (the
 * checkout and portal workers read `users` so).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, errors as joseErrors, importJWK, importSPKI, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import pg from 'pg';
import type { Claims } from '../helpers/supabase-db.ts';
import { createPostgrestFake, type Authenticate, type RestRequestRecord } from './postgrest-server.ts';
import { createRealtimeFake, type RealtimeFake } from './supabase-realtime-server.ts';

export interface SupabaseFakesOptions {
  /** The scratch database (tests/helpers/supabase-db.ts `db.url`), connected to as its owner. */
  databaseUrl: string;
  /** The key session tokens are signed with: a PEM public key (SPKI) or a JWK. RS256. */
  jwtKey?: string | JsonWebKey;
  /** Or the instance's JWKS (`{ keys: [clerk.jwk] }`), the key picked by the token's `kid`, as Supabase does. */
  jwks?: JSONWebKeySet;
  /** The port to listen on (a build that has the project URL baked in needs a known one); default any free port. */
  port?: number;
}

export interface SupabaseFakes {
  /** The project URL, as VITE_SUPABASE_URL (http://127.0.0.1:<port>). */
  url: string;
  anonKey: string;
  /** The secret key: PostgREST requests with it run as service_role (no row-level security). */
  serviceKey: string;
  rest: { requests: RestRequestRecord[] };
  realtime: RealtimeFake;
  stop(): Promise<void>;
}

export const TEST_SUPABASE_ANON_KEY = 'sb_publishable_likeness_test_key';
export const TEST_SUPABASE_SERVICE_KEY = 'sb_secret_likeness_test_key';

/** PostgREST's allowed clock skew for `exp`/`nbf`/`iat` (PostgREST Auth.hs, allowedSkewSeconds). */
const CLOCK_LEEWAY_SECONDS = 30;

const VERIFY_OPTIONS = { algorithms: ['RS256'], clockTolerance: CLOCK_LEEWAY_SECONDS, requiredClaims: ['exp'] };

function verifierFor(opts: SupabaseFakesOptions): ((token: string) => Promise<Claims>) | null {
  if (opts.jwks) {
    const keySet = createLocalJWKSet(opts.jwks);
    return async (token) => (await jwtVerify(token, keySet, VERIFY_OPTIONS)).payload as JWTPayload & Claims;
  }
  if (!opts.jwtKey) return null;
  const key = typeof opts.jwtKey === 'string' ? importSPKI(opts.jwtKey, 'RS256') : importJWK(opts.jwtKey, 'RS256');
  return async (token) => (await jwtVerify(token, await key, VERIFY_OPTIONS)).payload as JWTPayload & Claims;
}

function authenticator(anonKey: string, verify: (token: string) => Promise<Claims>): Authenticate {
  return async (bearer) => {
    if (bearer === null || bearer === anonKey) return { ok: true, role: 'anon', claims: { role: 'anon' } };
    let claims: Claims;
    try {
      claims = await verify(bearer);
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) return { ok: false, status: 401, code: 'PGRST303', message: 'JWT expired' };
      return { ok: false, status: 401, code: 'PGRST301', message: (err as Error).message || 'JWT invalid' };
    }
    // PostgREST: a token without a role claim runs as the anonymous role.
    const role = claims.role ?? 'anon';
    if (role !== 'anon' && role !== 'authenticated') {
      return {
        ok: false,
        status: 501,
        code: 'FAKE_UNSUPPORTED',
        message: `The Supabase test fakes serve the roles anon and authenticated only (token role "${role}")`,
      };
    }
    return { ok: true, role, claims };
  };
}

export async function startSupabaseFakes(opts: SupabaseFakesOptions): Promise<SupabaseFakes> {
  const verify = verifierFor(opts);
  if (!verify) throw new Error('startSupabaseFakes needs jwtKey or jwks');
  const anonKey = TEST_SUPABASE_ANON_KEY;
  const authenticate = authenticator(anonKey, verify);

  const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 6 });
  pool.on('error', () => {});
  const serviceKey = TEST_SUPABASE_SERVICE_KEY;
  const rest = createPostgrestFake({ pool, anonKey, serviceKey, authenticate });
  const realtime = await createRealtimeFake({ databaseUrl: opts.databaseUrl, pool, anonKey, authenticate });

  const server: Server = createServer((req, res) => {
    if ((req.url ?? '').startsWith('/rest/v1/')) {
      void rest.handle(req, res);
      return;
    }
    res.writeHead(501, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ message: `The Supabase test fakes serve /rest/v1/ and /realtime/v1/websocket only, not ${req.method} ${req.url}` }),
    );
  });
  server.on('upgrade', (req, socket, head) => {
    if (new URL(req.url ?? '/', 'http://fake').pathname === '/realtime/v1/websocket') realtime.handleUpgrade(req, socket, head);
    else socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    anonKey,
    serviceKey,
    rest: { requests: rest.requests },
    realtime,
    async stop() {
      await realtime.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}
