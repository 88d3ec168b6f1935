import type { Db } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import { likenessRepository as repo } from '../repositories/likeness.repository.ts';
import type { LikenessService } from '../services/likeness.service.ts';

/**
 * The likeness checker (docs/decisions/017-likeness-check.md): every instance looks every `pollIntervalMs`
 * (and when woken by an image that landed) for characters whose reference face was never worked out and for
 * generations made with a character and not scored yet, and scores them in the vision worker, one at a time;
 * then upscales take the score their source got since they read it.
 * A claimed generation is held for a minute, so a check that dies with its instance (or its worker) is tried
 * again by any instance, up to LIKENESS.maxChecks times; after that it stays unscored (null), never stuck.
 */
export interface LikenessCheckerDeps {
  db: Db;
  likeness: LikenessService;
  logger: Logger;
  pollIntervalMs: number;
}

export interface LikenessChecker {
  start(): void;
  wake(): void;
  /** Runs one pass now and resolves when it ends (tests). */
  runOnce(): Promise<void>;
  close(): Promise<void>;
}

const BATCH = 4;
/** A failed check is tried again this much later (the vision worker restarts on the next call). */
const RETRY_SECONDS = 2;

export function createLikenessChecker(deps: LikenessCheckerDeps): LikenessChecker {
  const { db, likeness, logger } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;

  async function pass(): Promise<void> {
    do {
      again = false;
      for (const id of await repo.charactersWithoutReference(db, BATCH)) {
        if (closed) return;
        await likeness
          .computeReference(id)
          .catch((err: unknown) => logger.warn({ err, trainingId: id }, 'reference face not worked out; tried again later'));
      }
      const due = await repo.claimDue(db, BATCH);
      for (const g of due) {
        if (closed) return;
        await likeness.checkGeneration(g).catch(async (err: unknown) => {
          logger.warn({ err, generationId: g.id }, 'likeness check failed; tried again shortly');
          await repo.retryCheckSoon(db, g.id, RETRY_SECONDS).catch(() => undefined);
        });
      }
      await likeness.inheritScores();
      if (due.length === BATCH) again = true;
    } while (again && !closed);
  }

  function tick(): Promise<void> {
    if (closed) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = pass()
      .catch((err: unknown) => logger.error({ err }, 'likeness check pass failed'))
      .finally(() => (running = undefined));
    return running;
  }

  return {
    start() {
      timer = setInterval(() => void tick(), deps.pollIntervalMs);
      timer.unref();
      void tick();
    },
    wake() {
      setImmediate(() => void tick());
    },
    async runOnce() {
      await running;
      await tick();
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
    },
  };
}
