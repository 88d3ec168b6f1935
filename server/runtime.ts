import { randomBytes } from 'node:crypto';
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

export interface RuntimeOptions {
  sseHeartbeatMs: number;
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
  close(): Promise<void>;
}

/** The local-mode secret is made once and kept in the data folder, so sessions survive restarts. */
function localAuthSecret(dataDir: string): string {
  const file = join(dataDir, 'auth-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

export async function startRuntime(config: Config, options: Partial<RuntimeOptions> = {}): Promise<Runtime> {
  const logger = createLogger(config.LOG_LEVEL);
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir, logger });
  const { db } = database;
  const events = await createEventBus(database, logger);
  const identity = createLocalIdentity({
    db,
    secret: config.AUTH_SECRET ?? localAuthSecret(config.dataDir),
    publicUrl: config.PUBLIC_URL,
    secureCookies: config.secureCookies,
    allowedOrigins: (request) => allowedOrigins(config.PUBLIC_URL, request),
  });
  const users = createUsersService({ db });
  const credits = createCreditsService({ db, events });

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
    async close() {
      await events.close();
      await database.close();
    },
  };
}
