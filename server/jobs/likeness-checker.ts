import type { Db } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import { likenessRepository as repo, type LikenessDue } from '../repositories/likeness.repository.ts';
import type { LikenessService } from '../services/likeness.service.ts';
import { createLeasedRunner } from './leased-runner.ts';

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

  /** Characters' reference faces first, then a batch of generations to check (empty: nothing is due). */
  async function claim(_limit: number, closing: AbortSignal): Promise<LikenessDue[][]> {
    for (const id of await repo.charactersWithoutReference(db, BATCH)) {
      if (closing.aborted) return [];
      await likeness
        .computeReference(id)
        .catch((err: unknown) => logger.warn({ err, trainingId: id }, 'reference face not worked out; tried again later'));
    }
    const due = closing.aborted ? [] : await repo.claimDue(db, BATCH);
    // Upscales take the score their source got since they read it, on every look (not only after checks).
    if (due.length === 0) await likeness.inheritScores();
    return due.length ? [due] : [];
  }

  /** One batch, one generation at a time (the vision worker is one thread), then the upscales' scores. */
  async function check(due: LikenessDue[], closing: AbortSignal): Promise<void> {
    for (const g of due) {
      if (closing.aborted) return;
      await likeness.checkGeneration(g).catch(async (err: unknown) => {
        logger.warn({ err, generationId: g.id }, 'likeness check failed; tried again shortly');
        await repo.retryCheckSoon(db, g.id, RETRY_SECONDS).catch(() => undefined);
      });
    }
    await likeness.inheritScores();
  }

  const runner = createLeasedRunner({
    kind: 'likeness',
    logger,
    // A batch holds its generations itself (likeness_due_at): no lease rows.
    concurrency: 1,
    pollMs: deps.pollIntervalMs,
    claim,
    keyOf: (due) => due[0]!.id,
    work: check,
    afterWork: 'drop',
    failed: 'likeness check pass failed',
    // close() stops between two checks (a check under way ends first).
    abortOnClose: true,
  });

  return { start: runner.start, wake: runner.wake, runOnce: runner.runNow, close: runner.close };
}
