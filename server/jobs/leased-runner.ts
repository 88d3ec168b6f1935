import type { Logger } from '../logger.ts';
import type { JobKind, JobLeases } from '../repositories/job-leases.ts';
import type { LikenessDue } from '../repositories/likeness.repository.ts';
import type { MailRow } from '../repositories/mail-outbox.repository.ts';
import type { ScheduledJobRow } from '../repositories/scheduled-jobs.repository.ts';
import type { ShootPhotoRow } from '../repositories/shoots.repository.ts';
import type { TrainingRow } from '../repositories/trainings.repository.ts';

/**
 * The work each runner kind is handed, by kind: one row claimed from its table (docs/decisions/009-job-leases.md),
 * or for the likeness check one batch of generations claimed together (they hold themselves: likeness_due_at).
 */
export interface JobPayloads {
  training: TrainingRow;
  shoot_photo: ShootPhotoRow;
  mail: MailRow;
  scheduled: ScheduledJobRow;
  likeness: LikenessDue[];
}
export type RunnerKind = keyof JobPayloads;

/** How a runner of `kind` finds its work and does it; the loop, the lease and the shutdown are the helper's. */
export interface RunnerSpec<K extends RunnerKind> {
  kind: K;
  logger: Logger;
  /** Fields every log line of this runner carries (which scheduled job it is). */
  context?: Record<string, unknown>;
  /** The lease mechanism, for kinds whose rows carry a lease (every kind but likeness, whose rows hold themselves). */
  leases?: JobLeases;
  /** Payloads worked on at once by this instance. */
  concurrency: number;
  /** How often the runner looks for due work without being woken. */
  pollMs: number;
  /** wake() looks this much later (0: on the next turn of the event loop). */
  wakeDelayMs?: number;
  /** Claims up to `limit` due payloads, leased to this instance (`closing` is aborted when close() begins). */
  claim(limit: number, closing: AbortSignal): Promise<JobPayloads[K][]>;
  /** The key the lease is held under (a row's id, a scheduled job's name). */
  keyOf(payload: JobPayloads[K]): string;
  /** The work. `signal` is aborted by close() when `abortOnClose`; otherwise close() waits for the work to end. */
  work(payload: JobPayloads[K], signal: AbortSignal): Promise<void>;
  /**
   * After the work: 'release' gives the lease back at once (the row stays a job: its next step may run on any
   * instance); 'drop' only stops renewing it (the work ended the row, or put it back itself).
   */
  afterWork: 'release' | 'drop';
  /** Work that throws is logged with this line; `retry` then says what happens (default: the lease runs out). */
  failed: string;
  /** Called after a failure: 'release' gives the lease back so the row is tried again at once. */
  retry?: 'release';
  /** close() aborts work in flight (it puts its rows back itself) instead of waiting for it to end. */
  abortOnClose?: boolean;
}

export interface LeasedRunner {
  /** Looks every pollMs from now on, and at once. */
  start(): void;
  /** Looks for due work soon (a commit made some). */
  wake(): void;
  /** Looks now and resolves once nothing due is left and no work is in flight (tests, shutdown drains). */
  runNow(): Promise<void>;
  /** Payloads in flight now. */
  running(): number;
  /** Stops claiming, then waits for (or with abortOnClose cuts short) the work in flight. */
  close(): Promise<void>;
}

/**
 * The one loop of the durable-job runners: claim due payloads up to the free slots, hold their leases (renewed
 * by JobLeases while the work runs), do the work, give the lease back or let it go, and look again when a slot
 * frees, when woken, and every pollMs. A claim that fails is logged and tried on the next look; close() stops
 * claiming and drains. Rows an instance dies on are taken over by whoever claims them once their lease runs out.
 */
export function createLeasedRunner<K extends RunnerKind>(spec: RunnerSpec<K>): LeasedRunner {
  const { kind, logger, leases } = spec;
  const context = { kind, ...spec.context };
  const leaseKind = leases ? (kind as JobKind) : undefined;
  const inFlight = new Map<string, Promise<void>>();
  /** Aborted when close() begins: claims stop early. */
  const closing = new AbortController();
  /** Aborted once claiming has stopped, when the work in flight is to be cut short (abortOnClose). */
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let wakeTimer: NodeJS.Timeout | undefined;
  let claiming: Promise<void> | undefined;
  let again = false;
  let closed = false;
  let idleWaiters: (() => void)[] = [];

  function settleIfIdle() {
    if (claiming || inFlight.size > 0 || (again && !closed)) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  async function finish(key: string) {
    if (!leaseKind || !leases) return;
    if (spec.afterWork === 'drop') return leases.drop(leaseKind, key);
    await leases
      .release(leaseKind, key)
      .catch((err: unknown) => logger.warn({ err, ...context, key }, `could not give a ${kind} lease back; it runs out by itself`));
  }

  async function runOne(payload: JobPayloads[K], key: string): Promise<void> {
    try {
      await spec.work(payload, stop.signal);
    } catch (err) {
      logger.error({ err, ...context, key }, spec.failed);
      if (spec.retry === 'release' && leaseKind && leases) await leases.release(leaseKind, key).catch(() => undefined);
    } finally {
      await finish(key);
    }
  }

  async function claimPass(): Promise<void> {
    do {
      again = false;
      const free = spec.concurrency - inFlight.size;
      if (free <= 0 || closed) return;
      const payloads = await spec.claim(free, closing.signal);
      for (const payload of payloads) {
        const key = spec.keyOf(payload);
        // Its lease lapsed while this instance still works on it (a starved event loop) and this claim took it
        // again: the work under way goes on (now with the renewed lease); it never runs twice here at once.
        if (inFlight.has(key)) continue;
        if (leaseKind) leases!.hold(leaseKind, key);
        const task = runOne(payload, key).finally(() => {
          inFlight.delete(key);
          tick();
          settleIfIdle();
        });
        inFlight.set(key, task);
      }
      if (payloads.length === free) again = true;
    } while (again && !closed);
  }

  function tick() {
    if (closed) return settleIfIdle();
    if (claiming) {
      again = true;
      return;
    }
    claiming = claimPass()
      .catch((err: unknown) => {
        again = false;
        logger.error({ err, ...context }, `the ${kind} runner could not look for work; it looks again`);
      })
      .finally(() => {
        claiming = undefined;
        if (again && !closed) tick();
        settleIfIdle();
      });
  }

  return {
    start() {
      timer = setInterval(tick, spec.pollMs);
      timer.unref();
      tick();
    },
    wake() {
      clearTimeout(wakeTimer);
      wakeTimer = setTimeout(tick, spec.wakeDelayMs ?? 0);
      wakeTimer.unref();
    },
    runNow() {
      const idle = new Promise<void>((resolve) => idleWaiters.push(resolve));
      tick();
      settleIfIdle();
      return idle;
    },
    running: () => inFlight.size,
    async close() {
      closed = true;
      closing.abort();
      clearInterval(timer);
      clearTimeout(wakeTimer);
      await claiming;
      if (spec.abortOnClose) stop.abort();
      await Promise.allSettled(inFlight.values());
      settleIfIdle();
    },
  };
}
