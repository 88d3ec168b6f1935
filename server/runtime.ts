import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.ts';
import { openDatabase, type Database, type Db } from './db/index.ts';
import type { IdentityProvider } from './auth/identity.ts';
import { createLocalIdentity } from './auth/local.ts';
import { allowedOrigins } from './http/security.ts';
import { createLogger, type Logger } from './logger.ts';
import { createEventBus, type EventBus } from './realtime/event-bus.ts';
import { createCreditsService, type CreditsService } from './services/credits.service.ts';
import { createUsersService, type UsersService } from './services/users.service.ts';
import { keyFromMediaUrl, type StorageProvider } from './providers/storage/index.ts';
import { createLocalStorage } from './providers/storage/local.ts';
import { createS3Storage } from './providers/storage/s3.ts';
import type { ImageCaptioner, ImageGenerator } from './providers/inference/index.ts';
import { createBuiltinCaptioner } from './providers/inference/builtin-captioner.ts';
import { createFalCaptioner } from './providers/inference/fal-captioner.ts';
import { createVisionAnalyser, type VisionAnalyser } from './vision/analyser.ts';
import { createUploadsService, type UploadsService } from './services/uploads.service.ts';
import { createCaptionsService, type CaptionsService } from './services/captions.service.ts';
import { createBuiltinGenerator } from './providers/inference/builtin-generator.ts';
import {
  createGenerationsService,
  JOB_STALE_MS,
  recoverInterruptedGenerations,
  type GenerationsService,
} from './services/generations.service.ts';
import { createMediaService, type MediaService } from './services/media.service.ts';
import type { PaymentProvider } from './providers/payments/index.ts';
import { createCreemProvider } from './providers/payments/creem.ts';
import { createSandboxProvider, isSandboxProvider } from './providers/payments/sandbox.ts';
import { createBillingService, type BillingService } from './services/billing.service.ts';
import { createSandboxPaymentsService, type SandboxPaymentsService } from './services/sandbox-payments.service.ts';

export interface RuntimeOptions {
  sseHeartbeatMs: number;
  /** Replaces the configured image generator (tests and benchmarks). */
  generator?: ImageGenerator;
  /** Replaces the configured image captioner (tests). */
  captioner?: ImageCaptioner;
}

/** Everything the server holds open while it runs: the database, the event bus, providers and services. */
export interface Runtime {
  config: Config;
  options: RuntimeOptions;
  logger: Logger;
  database: Database;
  db: Db;
  events: EventBus;
  identity: IdentityProvider;
  users: UsersService;
  credits: CreditsService;
  storage: StorageProvider;
  /** Local image analyser (worker thread, models loaded on first use); captions and photo checks use it. */
  vision: VisionAnalyser;
  captioner: ImageCaptioner;
  uploads: UploadsService;
  captions: CaptionsService;
  generator: ImageGenerator;
  generations: GenerationsService;
  media: MediaService;
  payments: PaymentProvider;
  billing: BillingService;
  /** The sandbox's checkout and portal actions; present only when the sandbox takes payments. */
  sandboxPayments?: SandboxPaymentsService;
  close(): Promise<void>;
}

/** A local-mode secret is made once and kept in the data folder, so sessions and links survive restarts. */
function localSecret(dataDir: string, name: string): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/**
 * Creem when a key is set, else the sandbox. The sandbox's secret must be the same on every instance (its
 * checkout addresses are signed with it), so with a shared AUTH_SECRET it is derived from that.
 */
function createPaymentProvider(config: Config): PaymentProvider {
  if (config.CREEM_API_KEY) {
    return createCreemProvider({
      apiKey: config.CREEM_API_KEY,
      webhookSecret: config.CREEM_WEBHOOK_SECRET!,
      products: {
        BASIC: config.CREEM_PRODUCT_BASIC!,
        STANDARD: config.CREEM_PRODUCT_STANDARD!,
        PROFESSIONAL: config.CREEM_PRODUCT_PROFESSIONAL!,
      },
      serverUrl: config.CREEM_SERVER_URL,
    });
  }
  const webhookSecret =
    config.SANDBOX_WEBHOOK_SECRET ??
    (config.AUTH_SECRET
      ? createHmac('sha256', config.AUTH_SECRET).update('sandbox-webhook-secret').digest('base64url')
      : localSecret(config.dataDir, 'sandbox-webhook-secret'));
  return createSandboxProvider({ webhookSecret, publicUrl: config.PUBLIC_URL });
}

/** An S3-compatible bucket when S3_BUCKET is set, else files under DATA_DIR/files. */
function createStorage(config: Config): StorageProvider {
  if (!config.S3_BUCKET) return createLocalStorage(join(config.dataDir, 'files'));
  return createS3Storage({
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    accessKeyId: config.S3_ACCESS_KEY_ID,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
  });
}

export async function startRuntime(config: Config, options: Partial<RuntimeOptions> = {}): Promise<Runtime> {
  const logger = createLogger(config.LOG_LEVEL);
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir, logger });
  const { db } = database;
  const events = await createEventBus(database, logger);
  const identity = createLocalIdentity({
    db,
    secret: config.AUTH_SECRET ?? localSecret(config.dataDir, 'auth-secret'),
    publicUrl: config.PUBLIC_URL,
    secureCookies: config.secureCookies,
    allowedOrigins: (request) => allowedOrigins(config.PUBLIC_URL, request),
  });
  const users = createUsersService({ db });
  const credits = createCreditsService({ db, events });
  const storage = createStorage(config);
  const generator =
    options.generator ??
    createBuiltinGenerator({
      loadLora: async (path) => {
        const key = keyFromMediaUrl(path);
        return key ? storage.read(key) : null;
      },
    });
  const generations = createGenerationsService({
    db,
    credits,
    events,
    storage,
    generator,
    logger,
    concurrency: config.INFERENCE_CONCURRENCY,
  });
  const media = createMediaService({ db, storage, logger });
  const vision = createVisionAnalyser({ timeoutMs: config.VISION_TIMEOUT_SECONDS * 1000 });
  const captioner =
    options.captioner ?? (config.FAL_KEY ? createFalCaptioner({ credentials: config.FAL_KEY }) : createBuiltinCaptioner(vision));
  const uploads = createUploadsService({ db, storage });
  const captions = createCaptionsService({ credits, uploads, storage, captioner, logger });
  // PGlite belongs to this process alone, so every PENDING job found now was cut off by a stop.
  await recoverInterruptedGenerations({ db, credits, logger }, { olderThanMs: database.kind === 'pglite' ? 0 : JOB_STALE_MS });
  const payments = createPaymentProvider(config);
  const billing = createBillingService({ db, events, credits, payments, logger });
  const sandboxPayments = isSandboxProvider(payments) ? createSandboxPaymentsService({ sandbox: payments, billing }) : undefined;

  return {
    config,
    options: { sseHeartbeatMs: 15_000, ...options },
    logger,
    database,
    db,
    events,
    identity,
    users,
    credits,
    storage,
    vision,
    captioner,
    uploads,
    captions,
    generator,
    generations,
    media,
    payments,
    billing,
    sandboxPayments,
    async close() {
      await vision.close();
      await events.close();
      await database.close();
    },
  };
}
