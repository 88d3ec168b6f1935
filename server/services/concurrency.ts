/** In-process concurrency primitives (the paid image pipeline, uploads). */

/** At most `limit` tasks run at once; the rest wait in arrival order. */
export function createSemaphore(limit: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      else active++;
      try {
        return await task();
      } finally {
        // Hand the slot straight to the next waiter, so `active` never drops below the real count.
        const next = waiting.shift();
        if (next) next();
        else active--;
      }
    },
    get active() {
      return active;
    },
  };
}

/** Tasks with the same key run one after another; different keys do not wait for each other. */
export function createKeyedQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(task, task);
      const tail = result.catch(() => undefined);
      tails.set(key, tail);
      // Forget the key once its queue drains, so the map does not grow with every user ever seen.
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
    /** Whether a task of this key is running or waiting. */
    busy(key: string): boolean {
      return tails.has(key);
    },
  };
}

export type InFlightRefusal = 'key' | 'total';

/**
 * Counts work in flight per key (a user) and in all on this instance, refusing at once — rather than
 * queueing — past either limit, for work that holds a connection open while it runs (uploads).
 */
export function createInFlightLimit(opts: { perKey: number; total: number }) {
  const byKey = new Map<string, number>();
  let total = 0;
  return {
    /** A release function for the slot taken, or which limit is full. */
    tryEnter(key: string): (() => void) | InFlightRefusal {
      const mine = byKey.get(key) ?? 0;
      if (mine >= opts.perKey) return 'key';
      if (total >= opts.total) return 'total';
      byKey.set(key, mine + 1);
      total++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        total--;
        const left = (byKey.get(key) ?? 1) - 1;
        if (left > 0) byKey.set(key, left);
        else byKey.delete(key);
      };
    },
    get total() {
      return total;
    },
  };
}

/**
 * At most `limit` tasks run at once, and a freed slot goes to the next waiting key in turn (round robin over
 * keys, each key's tasks in arrival order): one key with many tasks queued (a user's photo shoot) cannot keep
 * another key (someone's single image) waiting behind all of them.
 */
export function createFairSemaphore(limit: number) {
  let active = 0;
  /** Waiting keys in turn order, each with its waiters. */
  const queues = new Map<string, (() => void)[]>();
  let waitingCount = 0;

  /** Wakes the next waiter: of the first waiting key other than `finished`'s (whose task just ended), else its own. */
  function handOn(finished: string): boolean {
    if (queues.size === 0) return false;
    const key = [...queues.keys()].find((k) => k !== finished) ?? finished;
    const waiters = queues.get(key)!;
    const wake = waiters.shift()!;
    queues.delete(key);
    // The key goes to the back of the turn order if it still has waiters.
    if (waiters.length) queues.set(key, waiters);
    waitingCount--;
    wake();
    return true;
  }

  return {
    async run<T>(key: string, task: () => Promise<T>): Promise<T> {
      if (active >= limit) {
        await new Promise<void>((resolve) => {
          const list = queues.get(key);
          if (list) list.push(resolve);
          else queues.set(key, [resolve]);
          waitingCount++;
        });
      } else active++;
      try {
        return await task();
      } finally {
        // The slot passes straight to the next waiter, so `active` never drops below the real count.
        if (!handOn(key)) active--;
      }
    },
    get active() {
      return active;
    },
    get waiting() {
      return waitingCount;
    },
    limit,
  };
}
export type FairSemaphore = ReturnType<typeof createFairSemaphore>;
