import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';

/**
 * fal's webhook signatures (contracts/fal.md): ED25519 over
 * `request_id \n user_id \n timestamp \n hex(sha256(rawBody))`, checked against any key of fal's
 * JWKS, with the timestamp no more than 5 minutes off. Verify the raw bytes, before parsing them.
 */

export const DEFAULT_FAL_JWKS_URL = 'https://rest.alpha.fal.ai/.well-known/jwks.json';
const TIMESTAMP_TOLERANCE_S = 300;
const KEYS_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** A signature no cached key accepts triggers at most one JWKS refresh per minute (key rotation). */
const REFRESH_MIN_INTERVAL_MS = 60 * 1000;

export interface VerifyFalWebhookOptions {
  jwksUrl?: string;
  fetch?: typeof fetch;
  /** Current time in ms (tests). */
  now?: () => number;
}

export type FalWebhookVerdict = { ok: true; requestId: string; userId: string; timestamp: number } | { ok: false; reason: string };

/** Thrown when fal's keys cannot be fetched: answer 5xx so that fal delivers the webhook again later. */
export class FalJwksUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FalJwksUnavailableError';
  }
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

export async function verifyFalWebhook(
  headers: HeaderSource,
  rawBody: Buffer | Uint8Array | string,
  opts: VerifyFalWebhookOptions = {},
): Promise<FalWebhookVerdict> {
  const requestId = header(headers, 'x-fal-webhook-request-id');
  const userId = header(headers, 'x-fal-webhook-user-id');
  const timestampText = header(headers, 'x-fal-webhook-timestamp');
  const signatureHex = header(headers, 'x-fal-webhook-signature');
  if (!requestId || !userId || !timestampText || !signatureHex) return { ok: false, reason: 'missing signature headers' };
  if (!/^\d{1,12}$/.test(timestampText)) return { ok: false, reason: 'malformed timestamp' };
  const timestamp = Number(timestampText);
  const now = opts.now?.() ?? Date.now();
  if (Math.abs(now / 1000 - timestamp) > TIMESTAMP_TOLERANCE_S) return { ok: false, reason: 'timestamp outside the 5 minute window' };
  if (!/^[0-9a-f]{128}$/i.test(signatureHex)) return { ok: false, reason: 'malformed signature' };

  const bodyHash = createHash('sha256').update(rawBody).digest('hex');
  const message = Buffer.from(`${requestId}\n${userId}\n${timestampText}\n${bodyHash}`);
  const signature = Buffer.from(signatureHex, 'hex');
  const jwksUrl = opts.jwksUrl ?? DEFAULT_FAL_JWKS_URL;
  const fetchImpl = opts.fetch ?? fetch;

  const accepted = (keys: KeyObject[]) => keys.some((key) => verify(null, message, key, signature));
  const cached = await jwksKeys(jwksUrl, fetchImpl, now, false);
  if (accepted(cached.keys)) return { ok: true, requestId, userId, timestamp };
  if (now - cached.fetchedAt >= REFRESH_MIN_INTERVAL_MS) {
    const fresh = await jwksKeys(jwksUrl, fetchImpl, now, true);
    if (accepted(fresh.keys)) return { ok: true, requestId, userId, timestamp };
  }
  return { ok: false, reason: 'signature does not match any of fal’s keys' };
}

interface CachedKeys {
  keys: KeyObject[];
  fetchedAt: number;
}

const jwksCache = new Map<string, CachedKeys>();

const jwksSchema = z.object({
  keys: z.array(z.object({ kty: z.string(), crv: z.string().optional(), x: z.string().optional() }).loose()),
});

async function jwksKeys(url: string, fetchImpl: typeof fetch, now: number, force: boolean): Promise<CachedKeys> {
  const cached = jwksCache.get(url);
  if (cached && !force && now - cached.fetchedAt < KEYS_MAX_AGE_MS) return cached;
  let body: unknown;
  try {
    const res = await fetchImpl(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    body = await res.json();
  } catch (err) {
    // Keep using keys we have rather than failing every webhook while fal's key endpoint hiccups.
    if (cached) return cached;
    throw new FalJwksUnavailableError(`fal's webhook keys could not be fetched from ${url}: ${(err as Error).message}`);
  }
  const parsed = jwksSchema.safeParse(body);
  if (!parsed.success) throw new FalJwksUnavailableError(`fal's webhook keys at ${url} are not a JWKS document`);
  const keys = parsed.data.keys
    .filter((k) => k.kty === 'OKP' && k.crv === 'Ed25519' && k.x)
    .map((k) => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: k.x! }, format: 'jwk' }));
  const entry = { keys, fetchedAt: now };
  jwksCache.set(url, entry);
  return entry;
}

const webhookSchema = z.object({
  request_id: z.string().min(1),
  gateway_request_id: z.string().optional(),
  status: z.enum(['OK', 'ERROR']),
  payload: z.unknown().optional(),
  error: z.string().optional(),
  payload_error: z.string().optional(),
});

export type FalWebhook = z.infer<typeof webhookSchema>;

/** Parses a verified webhook body; null when it is not fal's webhook shape. */
export function parseFalWebhook(rawBody: Buffer | string): FalWebhook | null {
  try {
    const parsed = webhookSchema.safeParse(JSON.parse(rawBody.toString()));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
