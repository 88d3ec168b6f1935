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
import { createFalGenerator } from './providers/inference/fal-generator.ts';
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
import { createLibraryService, type LibraryService } from './services/library.service.ts';
import { createExploreService, type ExploreService } from './services/explore.service.ts';
import { seedExploreGallery } from './services/explore-seed.ts';
import type { TrainingProvider } from './providers/inference/index.ts';
import { createFalTrainer } from './providers/inference/fal-trainer.ts';
import { createBuiltinTrainer } from './providers/inference/builtin-trainer.ts';
import { createTrainingRunner, type TrainingRunner } from './jobs/training-runner.ts';
import { createTrainingsService, type TrainingsService } from './services/trainings.service.ts';
import { trainingsRepository } from './repositories/trainings.repository.ts';
import { purgeExpiredUploads } from './services/uploads.service.ts';

export interface RuntimeOptions {
  sseHeartbeatMs: number;
  /** Replaces the configured image generator (tests and benchmarks). */
  generator?: ImageGenerator;
  /** Replaces the configured image captioner (tests). */
  captioner?: ImageCaptioner;
  /** Replaces the fal trainer FAL_KEY selects (tests point it at a fake fal); setting it selects fal. */
  falTrainer?: TrainingProvider;
  /** The fetch that reads fal's webhook keys (tests: the fake fal's). */
  falFetch?: typeof fetch;
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
  library: LibraryService;
  explore: ExploreService;
  trainings: TrainingsService;
  /** Runs character trainings to their end (docs/decisions/004-training-jobs.md). */
  trainingRunner: TrainingRunner;
  /** Renders the starter explore gallery if it is not there yet (runs in the background at start when enabled). */
  seedExplore(): Promise<number>;
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
export function createStorage(config: Config): StorageProvider {
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
    (config.FAL_KEY
      ? createFalGenerator({ credentials: config.FAL_KEY, timeoutMs: config.FAL_GENERATION_TIMEOUT_SECONDS * 1000, logger })
      : createBuiltinGenerator({
          loadLora: async (path) => {
            const key = keyFromMediaUrl(path);
            return key ? storage.read(key) : null;
          },
        }));
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
  const falTrainer = options.falTrainer ?? (config.FAL_KEY ? createFalTrainer({ credentials: config.FAL_KEY }) : undefined);
  const trainingRunner = createTrainingRunner({
    db,
    credits,
    events,
    storage,
    logger,
    builtin: createBuiltinTrainer({ vision, faceTimeoutMs: config.VISION_TIMEOUT_SECONDS * 1000 }),
    fal: falTrainer,
    builtinDurationMs: config.TRAINING_DURATION_SECONDS * 1000,
    timeoutMs: config.TRAINING_TIMEOUT_MINUTES * 60_000,
    pollIntervalMs: config.TRAINING_POLL_SECONDS * 1000,
    falPollMs: config.TRAINING_POLL_SECONDS * 15_000,
    falWebhookUrl: config.PUBLIC_URL ? `${config.PUBLIC_URL.replace(/\/$/, '')}/api/webhooks/fal` : undefined,
  });
  const trainings = createTrainingsService({
    db,
    credits,
    events,
    storage,
    uploads,
    logger,
    provider: falTrainer ? 'fal' : 'builtin',
    wake: () => trainingRunner.wake(),
    falWebhook: falTrainer ? { jwksUrl: config.FAL_WEBHOOK_JWKS_URL, fetch: options.falFetch } : undefined,
    onFalResult: falTrainer ? (row, end) => trainingRunner.applyFalResult(row, end) : undefined,
  });
  // PGlite belongs to this process alone: a training leased by the previous run is free to run now.
  if (database.kind === 'pglite') await trainingsRepository.releaseAll(db);
  trainingRunner.start();
  // Originals are kept about 30 days (spec §1); every instance may sweep, deleting twice is harmless.
  let purging: Promise<unknown> | undefined;
  const purgeUploads = () => {
    purging ??= purgeExpiredUploads({ db, storage, logger })
      .catch((err: unknown) => logger.error({ err }, 'could not purge expired uploads'))
      .finally(() => (purging = undefined));
  };
  purgeUploads();
  const uploadsPurge = setInterval(purgeUploads, 60 * 60_000).unref();
  // PGlite belongs to this process alone, so every PENDING job found now was cut off by a stop.
  await recoverInterruptedGenerations({ db, credits, logger }, { olderThanMs: database.kind === 'pglite' ? 0 : JOB_STALE_MS });
  // With Postgres one instance can die mid-generation while the others run on: they sweep its stale jobs.
  const generationSweep =
    database.kind === 'postgres'
      ? setInterval(() => {
          recoverInterruptedGenerations({ db, credits, logger }, { olderThanMs: JOB_STALE_MS }).catch((err: unknown) =>
            logger.error({ err }, 'could not sweep interrupted generations'),
          );
        }, JOB_STALE_MS / 4).unref()
      : undefined;
  const payments = createPaymentProvider(config);
  const billing = createBillingService({ db, events, credits, payments, logger });
  const sandboxPayments = isSandboxProvider(payments) ? createSandboxPaymentsService({ sandbox: payments, billing }) : undefined;
  const library = createLibraryService({ db, events });
  const explore = createExploreService({ db, storage });
  // The starter gallery is always the built-in engine's work (free, offline, the same on every install),
  // and takes a few seconds to render, so start-up does not wait for it.
  const seedGenerator = createBuiltinGenerator({ loadLora: async () => null });
  const seedAbort = new AbortController();
  let seeding: Promise<number> | undefined;
  const seedExplore = () =>
    (seeding ??= seedExploreGallery({ db, storage, generator: seedGenerator, logger }, seedAbort.signal).finally(() => (seeding = undefined)));
  if (config.EXPLORE_SEED ?? config.NODE_ENV !== 'test') {
    seedExplore().catch((err: unknown) => logger.error({ err }, 'could not seed the explore gallery; it will be tried again at the next start'));
  }

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
    library,
    explore,
    trainings,
    trainingRunner,
    seedExplore,
    async close() {
      clearInterval(generationSweep);
      clearInterval(uploadsPurge);
      await purging;
      await trainingRunner.close();
      seedAbort.abort();
      await seeding?.catch(() => undefined);
      await vision.close();
      await events.close();
      await database.close();
    },
  };
}
