import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError, loadConfig } from '../config.ts';
import { DataDirInUseError, openDatabase } from '../db/index.ts';
import { createLogger } from '../logger.ts';
import { createEventBus } from '../realtime/event-bus.ts';
import { createCreditsService } from '../services/credits.service.ts';
import { creditsCommand } from './credits.command.ts';
import { exploreCommand } from './explore.command.ts';
import { usersCommand } from './users.command.ts';
import { packsCommand } from './packs.command.ts';
import { promoCommand } from './promo.command.ts';
import { createStorage } from '../providers/storage/index.ts';
import { createExploreService } from '../services/explore.service.ts';
import { createSessionsService } from '../services/sessions.service.ts';
import { createAccountErasureService } from '../services/account-erasure.service.ts';
import { EXIT, type AdminCommand, type AdminContext, type AdminServices } from './command.ts';

/** One entry per command module; add new operator commands here. */
const COMMANDS: Record<string, AdminCommand> = {
  credits: creditsCommand,
  explore: exploreCommand,
  users: usersCommand,
  packs: packsCommand,
  promo: promoCommand,
};

function help(ctx: AdminContext): void {
  ctx.out('Usage: npm run admin -- <command> …');
  for (const [name, command] of Object.entries(COMMANDS)) {
    ctx.out(`\n  ${name}: ${command.summary}`);
    for (const line of command.usage) ctx.out(`    npm run admin -- ${line}`);
  }
}

export async function runAdmin(
  argv: string[],
  io: { env?: NodeJS.ProcessEnv; out?: (line: string) => void; err?: (line: string) => void } = {},
): Promise<number> {
  const out = io.out ?? ((line) => process.stdout.write(`${line}\n`));
  const err = io.err ?? ((line) => process.stderr.write(`${line}\n`));
  let opened: { services: AdminServices; close(): Promise<void> } | undefined;

  const ctx: AdminContext = {
    out,
    err,
    async open() {
      if (opened) return opened.services;
      // Operator output is the command's own; the server's info logs would only clutter it.
      const config = loadConfig({ LOG_LEVEL: 'warn', ...(io.env ?? process.env) });
      const logger = createLogger(config.LOG_LEVEL);
      const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir, logger });
      const events = await createEventBus(database, logger);
      const storage = await createStorage(config);
      const credits = createCreditsService({ db: database.db, events });
      const explore = createExploreService({ db: database.db, storage });
      const services = {
        db: database.db,
        credits,
        explore,
        // Its sessions-ended notice reaches the servers' streams through the same database (NOTIFY).
        erasure: createAccountErasureService({
          db: database.db,
          storage,
          credits,
          explore,
          sessions: createSessionsService({ db: database.db, events }),
          logger,
        }),
        config,
        storage,
        logger,
      };
      opened = {
        services,
        async close() {
          await events.close();
          await database.close();
        },
      };
      return services;
    },
  };

  const [name, ...args] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    if (name && name !== 'help' && name !== '--help') err(`Unknown command: ${name}`);
    help(ctx);
    return name && name !== 'help' && name !== '--help' ? EXIT.usage : EXIT.ok;
  }
  try {
    return await command.run(args, ctx);
  } catch (e) {
    if (e instanceof DataDirInUseError) {
      err(e.message);
      err(
        'The embedded database can be open in one process only: stop the Likeness server, run this command, then start the server again.',
      );
      return EXIT.busy;
    }
    if (e instanceof ConfigError) {
      err(e.message);
      return EXIT.config;
    }
    throw e;
  } finally {
    await opened?.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Same configuration as `npm start`, which reads .env from the project folder.
  const envFile = fileURLToPath(new URL('../../.env', import.meta.url));
  if (existsSync(envFile)) process.loadEnvFile(envFile);
  runAdmin(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e);
      process.exit(EXIT.failed);
    },
  );
}
