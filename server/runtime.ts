import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.ts';
import { openDatabase, type Database, type Db } from './db/index.ts';
import type { IdentityProvider } from './auth/identity.ts';
import { createSignInGuard } from './auth/sign-in-guard.ts';
import type { PasswordHashing } from './auth/local.ts';
import { allowedOrigins } from './http/security.ts';
import { createLogger, type DestinationStream, type Logger } from './logger.ts';
import { createEventBus, type EventBus } from './realtime/event-bus.ts';
import { createCreditsService, type CreditsService } from './services/credits.service.ts';
import { createCreditsHistoryService, type CreditsHistoryService } from './services/credits-history.service.ts';
import { createLowBalanceService, type LowBalanceService } from './services/low-balance.service.ts';
import { createTopUpsService, type TopUpsService } from './services/top-ups.service.ts';
import { createTeamPurchasesService, type TeamPurchasesService } from './services/team-purchases.service.ts';
import { createPromoCodesService, type PromoCodesService } from './services/promo-codes.service.ts';
import { createSandboxTopUpsService, type SandboxTopUpsService } from './services/sandbox-top-ups.service.ts';
import { createUsersService, type UsersService } from './services/users.service.ts';
import { createVisionAnalyser, type VisionAnalyser } from './vision/analyser.ts';
import { createUploadsService, type UploadsService } from './services/uploads.service.ts';
import { createCaptionsService, type CaptionsService } from './services/captions.service.ts';
import { createPhotoCheckService, type PhotoCheckService } from './services/photo-check.service.ts';
import { createBuiltinGenerator } from './providers/inference/builtin-generator.ts';
import type { BuiltinTrainer } from './providers/inference/builtin-trainer.ts';
import {
  createInference,
  type ImageCaptioner,
  type ImageFinisher,
  type ImageGenerator,
  type TrainingProvider,
} from './providers/inference/index.ts';
import { createMailTransport, type MailTransport } from './providers/mail/index.ts';
import type { LocalOutbox } from './providers/mail/local-outbox.ts';
import { createPaymentProvider, type PaymentProvider } from './providers/payments/index.ts';
import { isSandboxProvider } from './providers/payments/sandbox.ts';
import { createStorage, type StorageProvider } from './providers/storage/index.ts';
import { createGenerationsService, type GenerationsService } from './services/generations.service.ts';
import { createFinishingService, type FinishingService } from './services/finishing.service.ts';
import { createArchivesService, type ArchivesService } from './services/archives.service.ts';
import { createRatePolicies, type RatePolicies } from './services/rate-policies.service.ts';
import { createGeneratedImages } from './services/generated-images.ts';
import { createShootPhotos } from './jobs/shoot-photo.ts';
import { createMediaService, type MediaService } from './services/media.service.ts';
import { createBillingService, type BillingService } from './services/billing.service.ts';
import { createSandboxPaymentsService, type SandboxPaymentsService } from './services/sandbox-payments.service.ts';
import { createLibraryService, type LibraryService } from './services/library.service.ts';
import { createExploreService, type ExploreService } from './services/explore.service.ts';
import { createAccountErasureService, type AccountErasureService } from './services/account-erasure.service.ts';
import { createSessionsService, type SessionsService } from './services/sessions.service.ts';
import { createDeletedCharactersPurge, DELETED_CHARACTERS_POLL_MS } from './jobs/deleted-characters.ts';
import { createDeletedGenerationsPurge, DELETED_GENERATIONS_POLL_MS } from './jobs/deleted-generations.ts';
import { createClerkWebhooksService, type ClerkWebhooksService } from './services/clerk-webhooks.service.ts';
import { seedExploreGallery } from './services/explore-seed.ts';
import { createTrainingRunner, type TrainingRunner } from './jobs/training-runner.ts';
import { createTrainingsService, type TrainingsService } from './services/trainings.service.ts';
import { createCharactersService, type CharactersService } from './services/characters.service.ts';
import { createAccountDataService, type AccountDataService } from './services/account-data.service.ts';
import { createSubscriptionCancellation } from './services/subscription-cancellation.ts';
import { trainingsRepository } from './repositories/trainings.repository.ts';
import { createRetentionSweep, type RetentionReport } from './jobs/retention.ts';
import { createScheduledJob, type ScheduledJob } from './jobs/scheduled-job.ts';
import { createJobLeases, freeAllLeases, type JobLeases } from './repositories/job-leases.ts';
import { createPaidCallRunner, paidCallStore, refundAbandonedJobs } from './services/paid-jobs.ts';
import { createMetrics, type Metrics } from './ops/metrics.ts';
import { createFairSemaphore } from './services/concurrency.ts';
import { createShootsService, type ShootEndedHook, type ShootsService } from './services/shoots.service.ts';
import { createShootRunner, type ShootRunner } from './jobs/shoot-runner.ts';
import { createLikenessChecker, type LikenessChecker } from './jobs/likeness-checker.ts';
import { createLikenessService, type LikenessService } from './services/likeness.service.ts';

/** How often the likeness checker looks for unscored images besides being woken when one lands. */
const LIKENESS_POLL_MS = 2000;
import { renderCovers, seedCatalogue } from './services/packs.service.ts';
import { createMailSender, type MailSender } from './jobs/mail-sender.ts';
import { createUnsubscribeLinks, enqueueAccountMail, enqueueShootReady, type UnsubscribeLinks } from './services/mail.service.ts';
import { shootsRepository } from './repositories/shoots.repository.ts';
import { createTeamsService, type TeamsService } from './services/teams.service.ts';
import { createTeamInvitesService, type TeamInvitesService } from './services/team-invites.service.ts';
import { createTeamArchiveService, type TeamArchiveService } from './services/team-archive.service.ts';
import { createProviderCheck, createReadiness, type Readiness } from './ops/readiness.ts';

export interface RuntimeOptions {
  sseHeartbeatMs: number;
  /** Replaces the event-stream limits (tests). */
  streamLimits?: { perUser: number; perInstance: number };
  /** Replaces the configured image generator (tests and benchmarks). */
  generator?: ImageGenerator;
  /** Replaces the configured upscaler/editor (tests and benchmarks); by default it follows the engine. */
  finisher?: ImageFinisher;
  /** Called inside the transaction that ends a photo shoot (completed, failed, cancelled): 'shoot ready' mail. */
  onShootEnded?: ShootEndedHook;
  /** Render the photo packs' sample covers in the background at start (default: as EXPLORE_SEED). */
  packCovers?: boolean;
  /** Replaces the configured image captioner (tests). */
  captioner?: ImageCaptioner;
  /** Replaces the built-in character trainer (tests). */
  builtinTrainer?: BuiltinTrainer;
  /** Replaces the fal trainer FAL_KEY selects (tests point it at a fake fal); setting it selects fal. */
  falTrainer?: TrainingProvider;
  /** The fetch that reads fal's webhook keys (tests: the fake fal's). */
  falFetch?: typeof fetch;
  /** Replaces the image analyser (tests inject a classifier verdict through it). */
  vision?: VisionAnalyser;
  /** Where log lines go instead of stdout (tests read them). */
  logDestination?: DestinationStream;
  /** How often the mail sender looks for due mail besides being woken by a commit (default 5 s). */
  mailPollMs?: number;
  /** Built-in accounts' password hash (default: better-auth's scrypt; tests wrap it to count the work done). */
  passwordHashing?: PasswordHashing;
}

/** Everything the server holds open while it runs: the database, the event bus, providers and services. */
export interface Runtime {
  config: Config;
  options: RuntimeOptions;
  logger: Logger;
  metrics: Metrics;
  database: Database;
  db: Db;
  events: EventBus;
  /** Leases of the durable jobs this instance works on (docs/decisions/009-job-leases.md). */
  leases: JobLeases;
  /** GET /readyz: whether this instance may take traffic. */
  readiness: Readiness;
  identity: IdentityProvider;
  /** Ends a person's sessions and their event streams (sign-out, password change or reset, deletion, erasure). */
  sessions: SessionsService;
  users: UsersService;
  credits: CreditsService;
  /** The credits page's history, CSV and spend sums (issue 50). */
  creditsHistory: CreditsHistoryService;
  lowBalance: LowBalanceService;
  /** One-off credit packs (issue 50). */
  topUps: TopUpsService;
  teamPurchases: TeamPurchasesService;
  /** Promo codes (issue 50). */
  promoCodes: PromoCodesService;
  /** The sandbox's one-time checkout of credit packs; present only when the sandbox takes payments. */
  sandboxTopUps?: SandboxTopUpsService;
  storage: StorageProvider;
  /** Local image analyser (worker thread, models loaded on first use); captions and photo checks use it. */
  vision: VisionAnalyser;
  /** Judges training photos and prompt-extraction images. */
  photoChecks: PhotoCheckService;
  captioner: ImageCaptioner;
  uploads: UploadsService;
  captions: CaptionsService;
  generator: ImageGenerator;
  generations: GenerationsService;
  /** Upscale and edit of saved images. */
  finishing: FinishingService;
  media: MediaService;
  payments: PaymentProvider;
  billing: BillingService;
  /** The sandbox's checkout and portal actions; present only when the sandbox takes payments. */
  sandboxPayments?: SandboxPaymentsService;
  library: LibraryService;
  explore: ExploreService;
  /** Erases a person's private data (Clerk's user.deleted, `admin users erase`). */
  erasure: AccountErasureService;
  /** Clerk's user webhooks; present in Clerk mode. */
  clerkWebhooks?: ClerkWebhooksService;
  trainings: TrainingsService;
  /** 'Rename' and 'Delete' of characters; owns the usable-character rule. */
  characters: CharactersService;
  /** Deleting one's own account and downloading one's data. */
  accountData: AccountDataService;
  /** Runs character trainings to their end (docs/decisions/004-training-jobs.md). */
  trainingRunner: TrainingRunner;
  /** Photo packs and shoots. */
  shoots: ShootsService;
  /** Teams (issue 49): teams and members, their invites, and 'Download all'. */
  teams: TeamsService;
  teamInvites: TeamInvitesService;
  teamArchive: TeamArchiveService;
  /** The ZIPs of a shoot's photos and of the favourites. */
  archives: ArchivesService;
  /** How often free but costly requests may come (photo checks, data exports). */
  ratePolicies: RatePolicies;
  /** Runs shoot photos, taking over those of dead instances (server/jobs/shoot-runner.ts). */
  shootRunner: ShootRunner;
  /** Character reference faces and the scores of images made with them (docs/decisions/017-likeness-check.md). */
  likeness: LikenessService;
  /** Scores images made with a character in the background, within seconds of landing. */
  likenessChecker: LikenessChecker;
  /** Renders the photo packs' missing sample covers with the built-in engine (background at start). */
  renderPackCovers(): Promise<string[]>;
  /** Outgoing mail (docs/decisions/015-mail-outbox.md). */
  mail: {
    transport: MailTransport;
    /** The local outbox /sandbox/mail shows; present when SMTP_URL is unset. */
    outbox?: LocalOutbox;
    sender: MailSender;
    links: UnsubscribeLinks;
    /** Where links in mail point: PUBLIC_URL, or http://localhost:<PORT>. */
    baseUrl: string;
  };
  /** Deletes originals after UPLOAD_RETENTION_DAYS, old generations and orphaned files (server/jobs/retention.ts). */
  retention: ScheduledJob & { lastReport(): RetentionReport | undefined };
  /** Removes a deleted generation's image and thumbnails from storage once its Undo has lapsed (jobs/deleted-generations.ts). */
  deletedGenerationsPurge: ScheduledJob;
  /** Removes a deleted character's files once its Undo has lapsed (jobs/deleted-characters.ts). */
  deletedCharactersPurge: ScheduledJob;
  /** Renders the starter explore gallery if it is not there yet (runs in the background at start when enabled). */
  seedExplore(): Promise<number>;
  close(): Promise<void>;
}

const HOUR_MS = 60 * 60_000;
const RETENTION = {
  everyMs: HOUR_MS,
  /** How often each instance looks whether the sweep is due (one cheap query). */
  pollMs: 60_000,
  /** A stored file waits this long for its row before it counts as orphaned. */
  orphanGraceMs: 24 * HOUR_MS,
};

/** A local-mode secret is made once and kept in the data folder, so sessions and links survive restarts. */
function localSecret(dataDir: string, name: string): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

export async function startRuntime(config: Config, options: Partial<RuntimeOptions> = {}): Promise<Runtime> {
  const logger = createLogger(config.LOG_LEVEL, options.logDestination);
  const metrics = createMetrics();
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir, logger });
  const { db } = database;
  const events = await createEventBus(database, logger);
  const leases = createJobLeases({ db, owner: database.instanceId, leaseMs: config.JOB_LEASE_SECONDS * 1000, logger });
  // PGlite belongs to this process alone: whatever its previous run held is free now.
  if (database.kind === 'pglite') await freeAllLeases(db);
  leases.start();
  const sessions = createSessionsService({ db, events });
  const mailBaseUrl = (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '');
  // A hosted SPA on its own host (ALLOWED_ORIGINS) has the app's pages; this server, at PUBLIC_URL, has none.
  const mailAppUrl = config.ALLOWED_ORIGINS[0]?.replace(/\/+$/, '') ?? mailBaseUrl;
  const { transport: mailTransport, outbox } = createMailTransport(config);
  if (!config.SMTP_URL && config.PUBLIC_URL?.startsWith('https://')) {
    logger.warn('SMTP_URL is not set: mail (password resets, notifications) is kept in DATA_DIR/outbox and reaches nobody');
  } else if (config.SMTP_URL && !config.PUBLIC_URL) {
    logger.warn(`PUBLIC_URL is not set: links in mail point at ${mailBaseUrl}`);
  }
  const mailLinks = createUnsubscribeLinks(
    config.AUTH_SECRET
      ? createHmac('sha256', config.AUTH_SECRET).update('mail-links').digest('base64url')
      : localSecret(config.dataDir, 'mail-secret'),
    mailBaseUrl,
  );
  const signInGuard = createSignInGuard({ db, limit: config.AUTH_RATE_LIMIT, signUpLimit: config.SIGN_UP_RATE_LIMIT });
  // Clerk's SDK or better-auth (10 MB of heap), whichever the mode uses.
  const identity = config.clerk
    ? (await import('./auth/clerk.ts')).createClerkIdentity({ ...config.clerk, logger })
    : (await import('./auth/local.ts')).createLocalIdentity({
        db,
        secret: config.AUTH_SECRET ?? localSecret(config.dataDir, 'auth-secret'),
        publicUrl: config.PUBLIC_URL,
        secureCookies: config.secureCookies,
        allowedOrigins: (request) => allowedOrigins(config.PUBLIC_URL, request),
        signInGuard,
        sessions,
        events,
        accountMail: enqueueAccountMail,
        passwordHashing: options.passwordHashing,
        logger,
      });
  const users = createUsersService({ db });
  const lowBalance = createLowBalanceService({ db });
  const credits = createCreditsService({ db, events, metrics, afterDebit: lowBalance.afterDebit });
  const storage = await createStorage(config);
  // One set of provider slots per instance, taken in turn per user by single generations and shoot photos.
  const inferenceSlots = createFairSemaphore(config.INFERENCE_CONCURRENCY);
  const vision = options.vision ?? createVisionAnalyser({ timeoutMs: config.VISION_TIMEOUT_SECONDS * 1000 });
  const { generator, finisher, captioner, falTrainer, builtinTrainer } = createInference(config, { storage, vision, logger }, options);
  const likeness = createLikenessService({
    db,
    storage,
    events,
    logger,
    faceEmbedding: (image) => vision.faceEmbedding(image, { timeoutMs: config.VISION_TIMEOUT_SECONDS * 1000 }),
  });
  const likenessChecker = createLikenessChecker({ db, likeness, logger, pollIntervalMs: LIKENESS_POLL_MS });
  const paidCalls = paidCallStore({ db, credits, leases, events });
  const paidCallRunner = createPaidCallRunner({
    store: paidCalls,
    images: createGeneratedImages({ storage, logger }),
    logger,
    metrics,
    leases,
    concurrency: config.INFERENCE_CONCURRENCY,
    slots: inferenceSlots,
    likenessDue: () => likenessChecker.wake(),
  });
  const generations = createGenerationsService({ db, generator, runner: paidCallRunner });
  const finishing = createFinishingService({ db, storage, finisher, runner: paidCallRunner, store: paidCalls });
  // The catalogue file's packs are in the database before the first request (idempotent, serialised).
  await seedCatalogue(db);
  let shootRunner: ShootRunner | undefined;
  // 'Your <pack> photo shoot is ready (N photos)': once, when a shoot ends with photos, in the transaction that ends it.
  const shootReadyMail: ShootEndedHook = async (tx, shoot) => {
    if (shoot.status === 'CANCELLED') return;
    const photos = (await shootsRepository.photoCounts(tx, shoot.id)).SUCCEEDED;
    if (photos > 0) await enqueueShootReady(tx, shoot.userId, { id: shoot.id, pack: shoot.packName, photos });
  };
  const shoots = createShootsService({
    db,
    credits,
    events,
    logger,
    wake: () => shootRunner?.wake(),
    onShootEnded: options.onShootEnded ?? shootReadyMail,
  });
  shootRunner = createShootRunner({
    db,
    leases,
    generations: createShootPhotos({ db, events, metrics, generator, runner: paidCallRunner }),
    shoots,
    logger,
    concurrency: config.INFERENCE_CONCURRENCY,
    pollIntervalMs: Math.max(250, Math.min(2000, leases.leaseMs / 4)),
    likeness,
  });
  shootRunner.start();
  likenessChecker.start();
  const media = createMediaService({ db, storage, logger });
  const photoChecks = createPhotoCheckService({ vision, logger, timeoutMs: config.VISION_TIMEOUT_SECONDS * 1000 });
  const uploads = createUploadsService({ db, storage, retentionDays: config.UPLOAD_RETENTION_DAYS });
  const captions = createCaptionsService({ db, credits, leases, uploads, storage, captioner, photoChecks, logger });
  const trainingRunner = createTrainingRunner({
    db,
    credits,
    events,
    storage,
    logger,
    metrics,
    leases,
    builtin: builtinTrainer,
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
    photoChecks,
    logger,
    provider: falTrainer ? 'fal' : 'builtin',
    wake: () => {
      trainingRunner.wake();
      // The new character's reference face is worked out from its photos right away.
      likenessChecker.wake();
    },
    falWebhook: falTrainer ? { jwksUrl: config.FAL_WEBHOOK_JWKS_URL, fetch: options.falFetch } : undefined,
    onFalResult: falTrainer ? (row, end) => trainingRunner.applyFalResult(row, end) : undefined,
  });
  trainingRunner.start();
  const characters = createCharactersService({ db, credits, events, metrics, storage, uploads, logger });
  // Originals are kept about 30 days (product §1): one instance at a time sweeps, hourly.
  const retentionSweep = createRetentionSweep({
    db,
    storage,
    logger,
    generationRetentionDays: config.GENERATION_RETENTION_DAYS,
    orphanGraceMs: RETENTION.orphanGraceMs,
  });
  let lastRetentionReport: RetentionReport | undefined;
  const retentionJob = createScheduledJob({
    db,
    logger,
    leases,
    name: 'retention',
    everyMs: RETENTION.everyMs,
    pollMs: RETENTION.pollMs,
    run: async (stillHeld) => {
      lastRetentionReport = await retentionSweep.sweep(stillHeld);
    },
  });
  if (database.kind === 'pglite') await retentionJob.release();
  retentionJob.start();
  const purgeDeleted = createDeletedGenerationsPurge({ db, storage, logger });
  const deletedGenerationsPurge = createScheduledJob({
    db,
    logger,
    leases,
    name: 'deleted-generations',
    everyMs: DELETED_GENERATIONS_POLL_MS,
    pollMs: DELETED_GENERATIONS_POLL_MS,
    run: (stillHeld) => purgeDeleted(stillHeld).then(() => undefined),
  });
  if (database.kind === 'pglite') await deletedGenerationsPurge.release();
  deletedGenerationsPurge.start();
  const purgeDeletedCharacters = createDeletedCharactersPurge({ characters, logger });
  const deletedCharactersPurge = createScheduledJob({
    db,
    logger,
    leases,
    name: 'deleted-characters',
    everyMs: DELETED_CHARACTERS_POLL_MS,
    pollMs: DELETED_CHARACTERS_POLL_MS,
    run: (stillHeld) => purgeDeletedCharacters(stillHeld).then(() => undefined),
  });
  if (database.kind === 'pglite') await deletedCharactersPurge.release();
  deletedCharactersPurge.start();
  const mailSender = createMailSender({
    db,
    transport: mailTransport,
    logger,
    metrics,
    leases,
    links: mailLinks,
    from: config.mailFrom,
    baseUrl: mailBaseUrl,
    appUrl: mailAppUrl,
    supportEmail: config.SUPPORT_EMAIL,
    pollMs: options.mailPollMs ?? 5_000,
    retryBaseMs: config.MAIL_RETRY_SECONDS * 1000,
    attemptTimeoutMs: config.MAIL_TIMEOUT_SECONDS * 3000,
  });
  mailSender.start();
  // A paid call whose instance died (or, on PGlite, this process's previous run) is refunded once its lease is
  // free; every instance looks every few seconds, so that happens within seconds of the lease running out.
  const sweepPaidJobs = () =>
    refundAbandonedJobs({ db, credits, logger, metrics }).catch((err: unknown) =>
      logger.error({ err }, 'could not refund abandoned paid calls'),
    );
  await sweepPaidJobs();
  const paidJobSweep = setInterval(sweepPaidJobs, Math.max(500, leases.leaseMs / 5)).unref();
  const payments = await createPaymentProvider(config, (name) => localSecret(config.dataDir, name));
  const providerCheck = createProviderCheck({ payments, logger });
  providerCheck.start();
  const readiness = createReadiness({ database, storage, checkProviders: providerCheck.check, logger });
  const topUps = createTopUpsService({ db, credits, payments, logger });
  const promoCodes = createPromoCodesService({ db, credits });
  const teamPurchases = createTeamPurchasesService({ db, events, payments, logger });
  const billing = createBillingService({ db, events, credits, payments, logger, topUps, teamPurchases });
  const sandboxPayments = isSandboxProvider(payments) ? createSandboxPaymentsService({ sandbox: payments, billing }) : undefined;
  const sandboxTopUps = isSandboxProvider(payments) ? createSandboxTopUpsService({ sandbox: payments }) : undefined;
  const library = createLibraryService({ db, events, storage, logger });
  const creditsHistory = createCreditsHistoryService({ db });
  const explore = createExploreService({ db, storage });
  const erasure = createAccountErasureService({ db, storage, credits, explore, sessions, logger, outbox });
  const subscriptionCancellation = createSubscriptionCancellation({ db, payments, sandboxPayments, logger });
  const accountData = createAccountDataService({ db, storage, subscriptions: subscriptionCancellation, erasure, logger });
  const clerkWebhooks = config.clerk
    ? createClerkWebhooksService({
        db,
        users,
        erasure,
        subscriptions: subscriptionCancellation,
        signingSecret: config.clerk.webhookSigningSecret,
        logger,
      })
    : undefined;
  if (config.clerk && !config.clerk.webhookSigningSecret) {
    logger.warn('CLERK_WEBHOOK_SIGNING_SECRET is not set: Clerk user updates and deletions (erasure) will not reach this server');
  }
  // The starter gallery is always the built-in engine's work (free, offline, the same on every install),
  // and takes a few seconds to render, so start-up does not wait for it.
  const seedGenerator = createBuiltinGenerator({ loadLora: async () => null });
  const seedAbort = new AbortController();
  metrics.watch({
    sseConnections: () => events.size(),
    visionQueueLength: () => vision.queueLength(),
    async jobs() {
      return [
        { kind: 'paid_call', state: 'leased', count: leases.held('paid_call') },
        { kind: 'paid_call', state: 'waiting', count: generations.waiting() },
        { kind: 'training', state: 'leased', count: leases.held('training') },
        { kind: 'training', state: 'waiting', count: await trainingsRepository.countWaiting(db) },
        { kind: 'shoot_photo', state: 'leased', count: leases.held('shoot_photo') },
      ];
    },
  });
  let seeding: Promise<number> | undefined;
  const seedExplore = () =>
    (seeding ??= seedExploreGallery({ db, storage, generator: seedGenerator, logger }, seedAbort.signal).finally(
      () => (seeding = undefined),
    ));
  let coverRun: Promise<string[]> | undefined;
  const renderPackCovers = () =>
    (coverRun ??= renderCovers({ db, storage, generator: seedGenerator, logger }, { signal: seedAbort.signal }).finally(
      () => (coverRun = undefined),
    ));
  if (options.packCovers ?? config.EXPLORE_SEED ?? config.NODE_ENV !== 'test') {
    renderPackCovers().catch((err: unknown) =>
      logger.error({ err }, 'could not render the photo-pack covers; they will be tried again at the next start'),
    );
  }
  if (config.EXPLORE_SEED ?? config.NODE_ENV !== 'test') {
    seedExplore().catch((err: unknown) =>
      logger.error({ err }, 'could not seed the explore gallery; it will be tried again at the next start'),
    );
  }

  return {
    config,
    options: { sseHeartbeatMs: 15_000, ...options },
    logger,
    metrics,
    database,
    db,
    events,
    leases,
    readiness,
    identity,
    sessions,
    users,
    credits,
    creditsHistory,
    lowBalance,
    topUps,
    teamPurchases,
    sandboxTopUps,
    promoCodes,
    storage,
    vision,
    photoChecks,
    captioner,
    uploads,
    captions,
    generator,
    generations,
    finishing,
    media,
    payments,
    billing,
    sandboxPayments,
    library,
    explore,
    erasure,
    clerkWebhooks,
    trainings,
    characters,
    accountData,
    trainingRunner,
    shoots,
    teams: createTeamsService({ db, events, credits, metrics, logger }),
    teamInvites: createTeamInvitesService({ db, events, logger }),
    teamArchive: createTeamArchiveService({ db, storage, logger }),
    archives: createArchivesService({ db, storage, logger, shoots }),
    ratePolicies: createRatePolicies({ db }),
    shootRunner,
    likeness,
    likenessChecker,
    renderPackCovers,
    mail: { transport: mailTransport, outbox, sender: mailSender, links: mailLinks, baseUrl: mailBaseUrl },
    retention: { ...retentionJob, lastReport: () => lastRetentionReport },
    deletedGenerationsPurge,
    deletedCharactersPurge,
    seedExplore,
    async close() {
      clearInterval(paidJobSweep);
      await retentionJob.close();
      await deletedGenerationsPurge.close();
      await deletedCharactersPurge.close();
      await mailSender.close();
      await providerCheck.close();
      await trainingRunner.close();
      await shootRunner.close();
      await likenessChecker.close();
      await leases.releaseAll();
      seedAbort.abort();
      await seeding?.catch(() => undefined);
      await coverRun?.catch(() => undefined);
      await vision.close();
      await events.close();
      await database.close();
    },
  };
}
