import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import type { StorageProvider } from '../providers/storage/index.ts';
import type { CreditsService } from '../services/credits.service.ts';
import type { AccountErasureService } from '../services/account-erasure.service.ts';
import type { ExploreService } from '../services/explore.service.ts';

/** What an operator command gets: output streams and, on demand, the product's database and services. */
export interface AdminContext {
  out(line: string): void;
  err(line: string): void;
  /** Opens the database the server uses (same configuration); closed by the CLI after the command. */
  open(): Promise<AdminServices>;
}

export interface AdminServices {
  db: Db;
  credits: CreditsService;
  explore: ExploreService;
  erasure: AccountErasureService;
  /** The server's configuration and storage (photo-pack covers). */
  config: Config;
  storage: StorageProvider;
  logger: Logger;
}

export interface AdminCommand {
  summary: string;
  usage: string[];
  /** Returns the process exit code. */
  run(args: string[], ctx: AdminContext): Promise<number>;
}

/** Exit codes (sysexits): usage 64, input that does not name one thing 65, data folder busy 73, bad configuration 78. */
export const EXIT = { ok: 0, failed: 1, usage: 64, dataError: 65, busy: 73, config: 78 } as const;
