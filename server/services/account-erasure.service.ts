import type { Db } from '../db/index.ts';
import { forgetSignIns } from '../auth/sign-in-guard.ts';
import type { Logger } from '../logger.ts';
import type { LocalOutbox } from '../providers/mail/local-outbox.ts';
import type { StorageProvider } from '../providers/storage/index.ts';
import { creditsRepository } from '../repositories/credits.repository.ts';
import { erasureRepository as repo } from '../repositories/erasure.repository.ts';
import { usersRepository, type AccountSelector, type AccountSummary } from '../repositories/users.repository.ts';
import type { CreditsService } from './credits.service.ts';
import type { ExploreService } from './explore.service.ts';
import type { SessionsService } from './sessions.service.ts';
import { userStoragePrefixes } from './media.service.ts';

/** What one erasure removed. A second run over the same person removes nothing. */
export interface ErasureReport {
  /** The users row erased (it stays, anonymised, as the ledger's owner); null when there was no such account. */
  userId: string | null;
  files: number;
  generations: number;
  trainings: number;
  uploads: number;
  /** Paid generations in flight or finished (their inputs hold prompts). */
  generationJobs: number;
  /** Explore-gallery items published from the person's generations. */
  exploreItems: number;
  /** Unused credits written off in the ledger. */
  creditsForfeited: number;
}

const nothing = (userId: string | null): ErasureReport => ({
  userId,
  files: 0,
  generations: 0,
  trainings: 0,
  uploads: 0,
  generationJobs: 0,
  exploreItems: 0,
  creditsForfeited: 0,
});

/** What `eraseSelected` did: erased one account, found none, or refused because several match. */
export type SelectedErasure =
  | { outcome: 'erased'; account: AccountSummary; report: ErasureReport }
  | { outcome: 'none' }
  | { outcome: 'ambiguous'; accounts: AccountSummary[] };

/** Ledger reasons that quote what the person typed (a character's name) lose the quote. */
const TRAINING_REASON = 'character training';

export type AccountErasureService = ReturnType<typeof createAccountErasureService>;

/**
 * Erases a person's private data: stored files (generated images, uploads, training archives, LoRA files and
 * their thumbnails), their rows (generations, trainings, uploads, generation jobs), explore items published
 * from their generations, and the email and name on their users row. The users row itself stays as an
 * anonymised tombstone that owns the credit ledger (kept for accounting) and stops the account's remaining
 * sessions from re-creating it. Every step is idempotent, and the email goes last, so an erasure cut short
 * is finished by running it again. Decisions in docs/decisions/005-account-erasure.md.
 *
 * Serves Clerk's user.deleted webhook and `npm run admin -- users erase`.
 */
export function createAccountErasureService(deps: {
  db: Db;
  storage: StorageProvider;
  credits: CreditsService;
  explore: ExploreService;
  sessions: SessionsService;
  logger: Logger;
  /** The local outbox (no SMTP_URL): the files of the person's messages go with their rows. */
  outbox?: LocalOutbox;
}) {
  const { db, storage, logger } = deps;

  async function erase(userId: string): Promise<ErasureReport> {
    const report = nothing(userId);
    // 1. Close the account. This takes the row lock every debit takes, so no paid action starts after it.
    const user = await repo.closeAccount(db, userId);
    if (!user) return nothing(null);
    // The account is closed: its sessions and event streams end now (a Clerk token still valid for up to a
    // minute is refused as the erased account's), not when the rows below are gone.
    await deps.sessions.endSessions(userId);

    // 2. Explore items made from the person's generations, while the generations still name them.
    const published = await repo.publishedFrom(db, userId);
    for (const id of published) {
      const removed = await deps.explore.remove(id);
      report.exploreItems++;
      if (removed.image_url.startsWith('/media/explore/')) report.files++;
    }

    // 3. Rows, before files, so nothing starts or finishes work on them meanwhile.
    Object.assign(report, await db.transaction((tx) => repo.deleteRows(tx, userId)));

    // 4. Files: everything under the person's folders, whether a row still named it or not.
    for (const prefix of userStoragePrefixes(userId)) report.files += await storage.deleteAll(prefix);

    // Mail to or about the person, sent or not (its rows name their address), with the local outbox's copies:
    // those of the rows found now, then of any sent meanwhile, once the rows are gone.
    const addresses = [user.email, await repo.loginEmail(db, user.clerkId)].filter((a): a is string => Boolean(a));
    if (deps.outbox) await deps.outbox.forget(await repo.theirMailIds(db, userId, addresses));

    // 5. Last, the personal details on the row (so a run cut short above can be found by email and finished).
    const mail = await db.transaction(async (tx) => {
      const row = await creditsRepository.lockBalance(tx, userId);
      if (row && row.credits > 0) {
        const forfeit = await deps.credits.applyIn(tx, {
          userId,
          delta: -row.credits,
          kind: 'adjustment',
          reason: 'Account erased: unused credits forfeited',
          idempotencyKey: `erasure:${userId}`,
        });
        if (forfeit.applied) report.creditsForfeited = row.credits;
      }
      await repo.anonymise(tx, userId, TRAINING_REASON);
      const mail = await repo.deleteTheirMail(tx, userId, addresses);
      // A built-in account's login, password, sessions and reset links still out (nothing in Clerk mode: Clerk
      // holds those).
      await repo.deleteLogin(tx, user.clerkId);
      await usersRepository.forgetResetLinks(tx, user.clerkId);
      if (user.email) await forgetSignIns(tx, user.email);
      return mail;
    });
    if (deps.outbox) await deps.outbox.forget(mail);

    logger.info({ ...report }, 'erased an account');
    return report;
  }

  return {
    erase,

    /**
     * `admin users erase <email> | --id <users.id> | --clerk-id <id>`: exactly one account or none. An address
     * is matched against what was verified (built-in accounts: the sign-in address; Clerk accounts:
     * users.verified_email), never the browser-written users.email; when several accounts match, nothing is
     * erased and they are listed. An account already erased is erased again (harmless, and it finishes a run
     * that was cut short).
     */
    async eraseSelected(selector: AccountSelector): Promise<SelectedErasure> {
      const accounts = await usersRepository.accountsSelected(db, selector);
      if (accounts.length === 0) return { outcome: 'none' };
      if (accounts.length > 1) return { outcome: 'ambiguous', accounts };
      return { outcome: 'erased', account: accounts[0], report: await erase(accounts[0].id) };
    },

    /**
     * Clerk's user.deleted. The row is closed even when the person never reached the server: their last
     * session token stays valid for up to a minute and must not create the account afresh.
     */
    async eraseByProviderId(providerId: string): Promise<ErasureReport> {
      return erase(await repo.closeProviderAccount(db, providerId));
    },
  };
}
