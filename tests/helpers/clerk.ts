/**
 * Clerk, as tests meet it: session tokens and webhook deliveries made in the test, in the exact shapes Clerk
 * produces (shared/contracts/clerk-supabase.md, hosted-research.md §1–2), so the server's real verification
 * (`@clerk/backend` verifyToken and verifyWebhook) checks them. Nothing here talks to the network.
 *
 *   const clerk = createClerkTestKeys();
 *   env: { CLERK_JWT_KEY: clerk.publicKeyPem, CLERK_AUTHORIZED_PARTIES: TEST_SPA_ORIGIN }
 *   fetch(url, { headers: { authorization: `Bearer ${await clerk.mint({ sub: 'user_A' })}` } })
 *
 * The same tokens carry `role: 'authenticated'`, so a fake PostgREST or Realtime can verify them
 * with `clerk.publicKeyPem` / `clerk.jwk` and run queries as that user.
 */
import { createPublicKey, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { importPKCS8, SignJWT } from 'jose';
import { Webhook } from 'standardwebhooks';

/** A Clerk development instance's Frontend API address (the `iss` of its tokens). */
export const TEST_CLERK_ISSUER = 'https://fake-instance.clerk.accounts.dev';
/** The SPA's origin in tests (the `azp` Clerk puts in tokens it issues to it). */
export const TEST_SPA_ORIGIN = 'http://localhost:5173';
/** A syntactically valid publishable key: pk_test_ + base64 of the Frontend API host and '$'. */
export const TEST_PUBLISHABLE_KEY = `pk_test_${Buffer.from('fake-instance.clerk.accounts.dev$').toString('base64')}`;
/** A secret key of the shape Clerk issues (tests point CLERK_API_URL at a fake Backend API). */
export const TEST_SECRET_KEY = 'sk_test_likeness0000000000000000000000000000';

/** Session token v2 claims (Clerk's defaults plus the Supabase integration's role). */
export interface ClerkSessionClaims {
  sub: string;
  sid: string;
  azp: string;
  iss: string;
  iat: number;
  nbf: number;
  exp: number;
  v: 2;
  fva: [number, number];
  role: 'authenticated';
}

export interface MintOptions {
  /** Seconds until expiry, from now (Clerk: 60). Negative for an expired token. */
  expiresIn?: number;
  /** `nbf` relative to now (Clerk sets it a little in the past; positive: not valid yet). */
  notBefore?: number;
  /** `iat` relative to now. */
  issuedAt?: number;
  /** Claims to leave out altogether (e.g. 'azp', 'sid', 'role'). */
  omit?: (keyof ClerkSessionClaims | string)[];
}

/** A fresh Clerk user id (`user_` and 24 characters, as Clerk's). */
export const newClerkUserId = () => `user_${randomUUID().replace(/-/g, '').slice(0, 24)}`;

/**
 * The claims of a session token (what `mint` signs): Clerk's defaults for a fresh user and session, issued
 * now to TEST_SPA_ORIGIN by TEST_CLERK_ISSUER, then `claims` on top, less `opts.omit`.
 */
export function sessionClaims(
  claims: Partial<ClerkSessionClaims> & Record<string, unknown> = {},
  opts: MintOptions = {},
): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = {
    sub: newClerkUserId(),
    sid: `sess_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    azp: TEST_SPA_ORIGIN,
    iss: TEST_CLERK_ISSUER,
    iat: now + (opts.issuedAt ?? 0),
    nbf: now + (opts.notBefore ?? -10),
    exp: now + (opts.expiresIn ?? 60),
    v: 2,
    fva: [0, -1],
    role: 'authenticated',
    ...claims,
  };
  for (const name of opts.omit ?? []) delete payload[name];
  return payload;
}

export interface ClerkTestKeys {
  /** The public key as Clerk's dashboard shows it ("PEM public key"): the value of CLERK_JWT_KEY. */
  publicKeyPem: string;
  /** The same key as Clerk's JWKS endpoint serves it (`GET /v1/jwks` → `{ keys: [jwk] }`). */
  jwk: JsonWebKey & { kid: string; alg: 'RS256'; use: 'sig' };
  /** A session token for `claims.sub` (default a fresh `user_…`), signed RS256 like Clerk's. */
  mint(claims?: Partial<ClerkSessionClaims> & Record<string, unknown>, opts?: MintOptions): Promise<string>;
}

/** A new RS256 key pair; 2048 bits, the only size `@clerk/backend`'s PEM loader reads. */
export function createClerkTestKeys(): ClerkTestKeys {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const kid = `ins_${randomBytes(8).toString('hex')}`;
  const signingKey = importPKCS8(privateKey, 'RS256');
  const jwk = { ...createPublicKey(publicKey).export({ format: 'jwk' }), kid, alg: 'RS256' as const, use: 'sig' as const };

  return {
    publicKeyPem: publicKey,
    jwk,
    async mint(claims = {}, opts = {}) {
      return new SignJWT(sessionClaims(claims, opts)).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(await signingKey);
    },
  };
}

/** A webhook signing secret as Clerk shows it (`whsec_` + base64 key). */
export function createClerkWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * One Svix delivery: the body and the `svix-id`, `svix-timestamp`, `svix-signature` headers, signed the way
 * `verifyWebhook` checks (HMAC-SHA256 of `${id}.${timestamp}.${body}`). `body` may be any string, to test
 * what the server does with a signed body that is not JSON.
 */
export function signClerkWebhook(
  secret: string,
  body: unknown,
  opts: { id?: string; timestamp?: Date } = {},
): { id: string; body: string; headers: Record<string, string> } {
  const id = opts.id ?? `msg_${randomBytes(12).toString('hex')}`;
  const timestamp = opts.timestamp ?? new Date();
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const signature = new Webhook(secret).sign(id, timestamp, raw);
  return {
    id,
    body: raw,
    headers: {
      'content-type': 'application/json',
      'svix-id': id,
      'svix-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'svix-signature': signature,
    },
  };
}

/**
 * A Clerk user as its webhooks (`data`) and Backend API (`GET /v1/users/:id`) describe it. The address is
 * verified (by an e-mail code) unless `emailVerified: false`.
 */
export function clerkUserJson(user: {
  id: string;
  email?: string | null;
  emailVerified?: boolean;
  firstName?: string | null;
  lastName?: string | null;
  imageUrl?: string;
}) {
  const emailId = `idn_${randomBytes(8).toString('hex')}`;
  const created = Date.now() - 60_000;
  return {
    object: 'user',
    id: user.id,
    first_name: user.firstName ?? null,
    last_name: user.lastName ?? null,
    image_url: user.imageUrl ?? 'https://img.clerk.com/default.png',
    has_image: false,
    primary_email_address_id: user.email ? emailId : null,
    email_addresses: user.email
      ? [
          {
            object: 'email_address',
            id: emailId,
            email_address: user.email,
            verification:
              user.emailVerified === false
                ? {
                    object: 'verification_email_code',
                    status: 'unverified',
                    strategy: 'email_code',
                    attempts: 0,
                    expire_at: created + 600_000,
                  }
                : {
                    object: 'verification_email_code',
                    status: 'verified',
                    strategy: 'email_code',
                    attempts: 1,
                    expire_at: created + 600_000,
                  },
            linked_to: [],
          },
        ]
      : [],
    phone_numbers: [],
    web3_wallets: [],
    external_accounts: [],
    public_metadata: {},
    private_metadata: {},
    unsafe_metadata: {},
    username: null,
    password_enabled: true,
    two_factor_enabled: false,
    totp_enabled: false,
    backup_code_enabled: false,
    banned: false,
    locked: false,
    external_id: null,
    last_sign_in_at: null,
    created_at: created,
    updated_at: created,
  };
}

/** A Clerk webhook event envelope. */
export function clerkEvent(type: string, data: unknown) {
  return { type, object: 'event', data, timestamp: Date.now(), instance_id: 'ins_test' };
}

/**
 * A call from the hosted SPA: from its origin (TEST_SPA_ORIGIN), with the session token as a bearer token and
 * no cookies. `token` null sends no Authorization header.
 */
export function hostedFetch(
  baseUrl: string,
  token: string | null,
  path: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has('origin')) headers.set('origin', TEST_SPA_ORIGIN);
  if (token !== null) headers.set('authorization', `Bearer ${token}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  return fetch(baseUrl + path, { ...init, headers, body, redirect: 'manual' });
}
