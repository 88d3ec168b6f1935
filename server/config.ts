import { resolve } from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
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
  SUPPORT_EMAIL: z.email().default('support@likeness.app'),
  BODY_LIMIT_BYTES: positiveInt.default(1024 * 1024),
  // Payments: Creem when CREEM_API_KEY is set, else the built-in sandbox.
  CREEM_API_KEY: optionalText,
  CREEM_WEBHOOK_SECRET: optionalText,
  CREEM_PRODUCT_BASIC: optionalText,
  CREEM_PRODUCT_STANDARD: optionalText,
  CREEM_PRODUCT_PROFESSIONAL: optionalText,
  CREEM_SERVER_URL: optionalUrl,
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
});

export type Config = z.infer<typeof envSchema> & {
  /** Absolute data folder. */
  dataDir: string;
  /** Cookies get the Secure flag when the public address is HTTPS. */
  secureCookies: boolean;
};

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`),
    );
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
  }
  if (issues.length) throw new ConfigError(issues);
  return {
    ...cfg,
    dataDir: resolve(cfg.DATA_DIR),
    secureCookies: cfg.PUBLIC_URL?.startsWith('https://') ?? false,
  };
}
