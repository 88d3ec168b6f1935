import { resolve } from 'node:path';
import { z } from 'zod';
import { INVALID_PUBLISHABLE_KEY, PUBLISHABLE_KEY_PATTERN } from '@common/identity-key.ts';
import { originListSchema } from '@common/origins.ts';
import { LIMITS, PRODUCT_NAME } from '@common/product.ts';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');
const optionalText = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();
const url = z.url({ protocol: /^https?$/ });
const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(url.optional())
  .optional();
const positiveInt = z.coerce.number().int().positive();
/** smtp:// or smtps:// with a host; user and password, when present, percent-encoded in the URL. */
const smtpUrl = z.string().refine(
  (v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'smtp:' || u.protocol === 'smtps:') && u.hostname !== '' && !/[\r\n]/.test(v);
    } catch {
      return false;
    }
  },
  { message: 'must be a URL like smtp://user:password@smtp.example.com:587 (or smtps://… for TLS from the start)' },
);
/** A sender: `address` or `Display Name <address>`, on one line. */
const mailbox = z.string().refine(
  (v) => {
    if (/[\r\n]/.test(v)) return false;
    const m = /^(?:[^<>]*<([^<>\s]+)>|([^<>\s]+))$/.exec(v.trim());
    const address = m?.[1] ?? m?.[2];
    return Boolean(address && z.email().safeParse(address).success);
  },
  { message: 'must be an e-mail address, or a name and an address like Likeness <no-reply@example.com>' },
);

/**
 * Every environment variable the server reads. Each is documented in README.md and .env.example;
 * nothing else in server/ reads process.env.
 */
const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  PUBLIC_URL: optionalUrl,
  TRUST_PROXY: bool.default(false),
  /** With TRUST_PROXY: reverse proxies in a row in front of the server, each appending to X-Forwarded-For. */
  PROXY_HOPS: positiveInt.max(10).default(1),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional())
    .optional(),
  AUTH_SECRET: optionalText.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  AUTH_RATE_LIMIT: positiveInt.default(10),
  SIGN_UP_RATE_LIMIT: positiveInt.default(30),
  SUPPORT_EMAIL: z.email().default('support@likeness.app'),
  BODY_LIMIT_BYTES: positiveInt.default(1024 * 1024),
  // Payments: Creem when CREEM_API_KEY is set, else the built-in sandbox.
  CREEM_API_KEY: optionalText,
  CREEM_WEBHOOK_SECRET: optionalText,
  CREEM_PRODUCT_BASIC: optionalText,
  CREEM_PRODUCT_STANDARD: optionalText,
  CREEM_PRODUCT_PROFESSIONAL: optionalText,
  /** One-time products of the three credit packs (issue 50): all three, or none (packs are then not on sale). */
  CREEM_PRODUCT_PACK_500: optionalText,
  CREEM_PRODUCT_PACK_1500: optionalText,
  CREEM_PRODUCT_PACK_5000: optionalText,
  CREEM_SERVER_URL: optionalUrl,
  /** `allow`: run the free sandbox checkout on a server users reach (an https PUBLIC_URL) on purpose. */
  SANDBOX_PAYMENTS: optionalText.pipe(z.enum(['allow'], { error: 'must be "allow" or empty' }).optional()),
  SANDBOX_WEBHOOK_SECRET: optionalText.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  // Object storage: an S3-compatible bucket when S3_BUCKET is set, else files under DATA_DIR/files.
  S3_BUCKET: optionalText,
  S3_REGION: z.string().trim().min(1).default('us-east-1'),
  S3_ENDPOINT: optionalUrl,
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  S3_FORCE_PATH_STYLE: bool.default(false),
  /** Image-generation provider calls in flight at once on this instance. */
  INFERENCE_CONCURRENCY: positiveInt.default(4),
  /** fal.ai key: set, fal runs generation, captions and training; unset, the built-in engine does. */
  FAL_KEY: optionalText,
  /** fal's webhook signing keys (contracts/fal.md: fal has published them at more than one address). */
  FAL_WEBHOOK_JWKS_URL: optionalUrl.transform((v) => v ?? 'https://rest.alpha.fal.ai/.well-known/jwks.json'),
  /** Seconds a fal image generation may take in all (queue included) before it is cancelled. */
  FAL_GENERATION_TIMEOUT_SECONDS: positiveInt.default(120),
  /** Seconds the built-in image analyser may spend on one image (including its first model load). */
  VISION_TIMEOUT_SECONDS: positiveInt.default(30),
  /** Render the starter explore gallery on first start: on by default, off under NODE_ENV=test unless set. */
  EXPLORE_SEED: optionalText.pipe(bool.optional()),
  /** Seconds the built-in trainer takes for one character (a real job; near zero in tests). */
  TRAINING_DURATION_SECONDS: z.coerce.number().min(0).max(3600).default(20),
  /** Minutes a training may run before it is failed and its credits refunded. */
  TRAINING_TIMEOUT_MINUTES: z.coerce.number().positive().default(90),
  /** Seconds between the training runner's looks for due jobs (and between fal status polls, times 15). */
  TRAINING_POLL_SECONDS: z.coerce.number().positive().max(600).default(2),
  // Hosted identity: Clerk when CLERK_SECRET_KEY or CLERK_JWT_KEY is set, else built-in accounts.
  CLERK_SECRET_KEY: optionalText,
  /** The instance's PEM public key: tokens are then verified without a network call. */
  CLERK_JWT_KEY: optionalText,
  CLERK_PUBLISHABLE_KEY: optionalText.pipe(z.string().regex(PUBLISHABLE_KEY_PATTERN, INVALID_PUBLISHABLE_KEY).optional()),
  /** Origins a session token may have been issued to (its azp claim); defaults to ALLOWED_ORIGINS and PUBLIC_URL. */
  CLERK_AUTHORIZED_PARTIES: originListSchema,
  CLERK_WEBHOOK_SIGNING_SECRET: optionalText.pipe(z.string().startsWith('whsec_', 'must start with whsec_').optional()),
  /** Clerk's Backend API (tests point it at a fake). */
  CLERK_API_URL: optionalUrl.transform((v) => v ?? 'https://api.clerk.com'),
  /** Origins of a hosted SPA served from elsewhere, allowed to call the API cross-origin (Clerk mode). */
  ALLOWED_ORIGINS: originListSchema,
  /** Days original uploads (training photos and archives, prompt-extraction images) are kept (product §1). */
  UPLOAD_RETENTION_DAYS: z.coerce.number().positive().max(3650).default(LIMITS.originalsRetentionDays),
  /** Days generated images are kept; unset keeps them. The plans promise 30 days of storage history. */
  GENERATION_RETENTION_DAYS: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.coerce.number().min(30, 'must be at least 30 (the plans promise 30 days of storage history)').max(36500).optional(),
  ),
  /**
   * Seconds a job (a generation, a training step) stays with the instance working on it without renewal; the
   * owner renews it every third of that, so a dead instance's jobs are taken over or refunded after this.
   */
  JOB_LEASE_SECONDS: z.coerce.number().min(2).max(600).default(10),
  /** On SIGTERM/SIGINT, seconds in-flight requests may take to finish before they are cut short (and refunded). */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(3600).default(25),
  /** Bearer token that GET /metrics requires; unset, the endpoint does not exist. */
  METRICS_TOKEN: optionalText.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /**
   * The SMTP server mail goes out through: smtp://user:pass@host:587 (STARTTLS when the server offers it) or
   * smtps://…:465 (TLS from the start). Unset: mail is kept in DATA_DIR/outbox and shown at /sandbox/mail.
   */
  SMTP_URL: optionalText.pipe(smtpUrl.optional()),
  /** `on`: show the local outbox (/sandbox/mail) to every caller, not only to the machine the server runs on. */
  MAIL_OUTBOX_PAGE: optionalText.pipe(z.enum(['on'], { error: 'must be "on" or empty' }).optional()),
  /** The sender of every message (`Name <address>` or an address); defaults to the product and SUPPORT_EMAIL. */
  MAIL_FROM: optionalText.pipe(mailbox.optional()),
  /** Seconds an SMTP connection may wait for the server (connecting, greeting, each reply) before it is retried later. */
  MAIL_TIMEOUT_SECONDS: z.coerce.number().positive().max(600).default(20),
  /** First wait before a failed message is tried again; it doubles each time, up to an hour, for 24 hours. */
  MAIL_RETRY_SECONDS: z.coerce.number().positive().max(3600).default(30),
  /** Built-in accounts: buying a plan needs a confirmed e-mail address. */
  REQUIRE_VERIFIED_EMAIL: bool.default(false),
});

export type Config = z.infer<typeof envSchema> & {
  /** Absolute data folder. */
  dataDir: string;
  /** Cookies get the Secure flag when the public address is HTTPS. */
  secureCookies: boolean;
  /** Clerk verifies sign-ins (hosted mode) instead of the built-in accounts. */
  clerk?: ClerkConfig;
  /** The sender of every message: MAIL_FROM, or the product name and SUPPORT_EMAIL. */
  mailFrom: string;
};

export interface ClerkConfig {
  secretKey?: string;
  jwtKey?: string;
  publishableKey?: string;
  authorizedParties: string[];
  webhookSigningSecret?: string;
  apiUrl: string;
}

/**
 * A server users reach: its PUBLIC_URL, or an origin its SPA is served from (hosted mode), is https. A hosted server
 * need not set PUBLIC_URL (its SPA lives elsewhere), so its origins count as much as its own address.
 */
export function isPublicServer(cfg: Pick<Config, 'PUBLIC_URL' | 'ALLOWED_ORIGINS' | 'CLERK_AUTHORIZED_PARTIES'>): boolean {
  return [cfg.PUBLIC_URL ?? '', ...cfg.ALLOWED_ORIGINS, ...cfg.CLERK_AUTHORIZED_PARTIES].some((url) => url.startsWith('https://'));
}

/**
 * The sandbox's test checkout pages are for a developer's machine: refused on a server users reach unless
 * SANDBOX_PAYMENTS=allow says so on purpose.
 */
export function sandboxPagesAllowed(
  cfg: Pick<Config, 'PUBLIC_URL' | 'ALLOWED_ORIGINS' | 'CLERK_AUTHORIZED_PARTIES' | 'SANDBOX_PAYMENTS'>,
): boolean {
  return !isPublicServer(cfg) || cfg.SANDBOX_PAYMENTS === 'allow';
}

/**
 * Who may read the local outbox (/sandbox/mail), which holds every account's mail and working reset links:
 * `everyone` only when MAIL_OUTBOX_PAGE=on says so; `loopback` (connections whose socket comes from this machine)
 * on a developer's server; `nobody` on a server users reach or behind a reverse proxy, where the proxy's own
 * connections come from loopback too. SANDBOX_PAYMENTS does not open it: that switch is about test payments.
 */
export function outboxPageAccess(
  cfg: Pick<Config, 'PUBLIC_URL' | 'ALLOWED_ORIGINS' | 'CLERK_AUTHORIZED_PARTIES' | 'TRUST_PROXY' | 'MAIL_OUTBOX_PAGE'>,
): 'everyone' | 'loopback' | 'nobody' {
  if (cfg.MAIL_OUTBOX_PAGE === 'on') return 'everyone';
  return isPublicServer(cfg) || cfg.TRUST_PROXY ? 'nobody' : 'loopback';
}

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`));
  }
  const cfg = parsed.data;
  const issues: string[] = [];
  if (cfg.DATABASE_URL && !cfg.AUTH_SECRET) {
    issues.push('AUTH_SECRET: required when DATABASE_URL is set, so that every instance signs sessions alike');
  }
  if (Boolean(cfg.S3_ACCESS_KEY_ID) !== Boolean(cfg.S3_SECRET_ACCESS_KEY)) {
    issues.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both or neither');
  }
  if (cfg.CREEM_API_KEY) {
    for (const name of ['CREEM_WEBHOOK_SECRET', 'CREEM_PRODUCT_BASIC', 'CREEM_PRODUCT_STANDARD', 'CREEM_PRODUCT_PROFESSIONAL'] as const) {
      if (!cfg[name]) issues.push(`${name}: required when CREEM_API_KEY is set`);
    }
    const packs = [cfg.CREEM_PRODUCT_PACK_500, cfg.CREEM_PRODUCT_PACK_1500, cfg.CREEM_PRODUCT_PACK_5000].filter(Boolean).length;
    if (packs !== 0 && packs !== 3)
      issues.push('CREEM_PRODUCT_PACK_500, CREEM_PRODUCT_PACK_1500 and CREEM_PRODUCT_PACK_5000: set all three or none');
  }
  const clerkMode = Boolean(cfg.CLERK_SECRET_KEY || cfg.CLERK_JWT_KEY);
  const authorizedParties = cfg.CLERK_AUTHORIZED_PARTIES.length
    ? cfg.CLERK_AUTHORIZED_PARTIES
    : [...new Set([...cfg.ALLOWED_ORIGINS, ...(cfg.PUBLIC_URL ? [new URL(cfg.PUBLIC_URL).origin] : [])])];
  if (clerkMode && authorizedParties.length === 0) {
    issues.push('CLERK_AUTHORIZED_PARTIES: required with Clerk (the origins of the SPA), unless ALLOWED_ORIGINS or PUBLIC_URL gives them');
  }
  if (cfg.CLERK_JWT_KEY && !/-----BEGIN PUBLIC KEY-----[\s\S]+-----END PUBLIC KEY-----/.test(cfg.CLERK_JWT_KEY)) {
    issues.push('CLERK_JWT_KEY: must be the PEM public key from the Clerk dashboard (-----BEGIN PUBLIC KEY----- …)');
  }
  if (clerkMode && cfg.CREEM_API_KEY && !cfg.CLERK_WEBHOOK_SIGNING_SECRET) {
    issues.push(
      "CLERK_WEBHOOK_SIGNING_SECRET: required with Clerk and Creem: without Clerk's user.deleted webhook, an account " +
        'deleted at Clerk is never erased here and its subscription goes on charging the person',
    );
  }
  if (!clerkMode) {
    // Local mode keeps its cookie sessions same-origin; these only mean something with Clerk.
    for (const name of ['ALLOWED_ORIGINS', 'CLERK_AUTHORIZED_PARTIES'] as const) {
      if (cfg[name].length) issues.push(`${name}: takes effect only with Clerk (set CLERK_SECRET_KEY or CLERK_JWT_KEY)`);
    }
    if (cfg.CLERK_WEBHOOK_SIGNING_SECRET)
      issues.push('CLERK_WEBHOOK_SIGNING_SECRET: takes effect only with Clerk (set CLERK_SECRET_KEY or CLERK_JWT_KEY)');
  }
  // The sandbox hands out credits for free: fine on a developer's machine, never by accident where users are.
  if (!sandboxPagesAllowed(cfg) && !cfg.CREEM_API_KEY) {
    issues.push(
      "PUBLIC_URL or the SPA's origins (ALLOWED_ORIGINS, CLERK_AUTHORIZED_PARTIES) are https (a server users reach) but no " +
        'payment provider is configured, so the free test checkout would ' +
        'give credits away: set CREEM_API_KEY (with CREEM_WEBHOOK_SECRET and the CREEM_PRODUCT_* ids) to take real payments, ' +
        'or set SANDBOX_PAYMENTS=allow to run the sandbox on purpose.',
    );
  }
  if (issues.length) throw new ConfigError(issues);
  return {
    ...cfg,
    dataDir: resolve(cfg.DATA_DIR),
    mailFrom: cfg.MAIL_FROM ?? `${PRODUCT_NAME} <${cfg.SUPPORT_EMAIL}>`,
    secureCookies: cfg.PUBLIC_URL?.startsWith('https://') ?? false,
    clerk: clerkMode
      ? {
          secretKey: cfg.CLERK_SECRET_KEY,
          jwtKey: cfg.CLERK_JWT_KEY?.replace(/\\n/g, '\n').trim(),
          publishableKey: cfg.CLERK_PUBLISHABLE_KEY,
          authorizedParties,
          webhookSigningSecret: cfg.CLERK_WEBHOOK_SIGNING_SECRET,
          apiUrl: cfg.CLERK_API_URL,
        }
      : undefined,
  };
}
