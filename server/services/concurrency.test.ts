import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFairSemaphore, createInFlightLimit, withDeadline } from './concurrency.ts';

describe('createInFlightLimit', () => {
  it('refuses past the per-key and the total limit, and frees a slot once per release', () => {
    const limit = createInFlightLimit({ perKey: 2, total: 3 });
    const a1 = limit.tryEnter('a');
    const a2 = limit.tryEnter('a');
    expect(limit.tryEnter('a')).toBe('key');
    const b1 = limit.tryEnter('b');
    expect(limit.tryEnter('c')).toBe('total');
    expect(typeof a1).toBe('function');
    (a1 as () => void)();
    (a1 as () => void)();
    expect(limit.total).toBe(2);
    expect(typeof limit.tryEnter('c')).toBe('function');
    expect(limit.tryEnter('d')).toBe('total');
    for (const release of [a2, b1]) (release as () => void)();
    expect(limit.total).toBe(1);
  });
});

describe('createFairSemaphore', () => {
  it('hands a freed slot to the next waiting key in turn, so one key with many tasks cannot starve another', async () => {
    const slots = createFairSemaphore(1);
    const order: string[] = [];
    const release: (() => void)[] = [];
    const task = (name: string) => () =>
      new Promise<void>((resolve) => {
        order.push(name);
        release.push(resolve);
      });
    const all = [
      slots.run('shoot', task('shoot-1')),
      slots.run('shoot', task('shoot-2')),
      slots.run('shoot', task('shoot-3')),
      slots.run('single', task('single-1')),
    ];
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setImmediate(r));
      release.shift()!();
    }
    await Promise.all(all);
    expect(order).toEqual(['shoot-1', 'single-1', 'shoot-2', 'shoot-3']);
    expect(slots.active).toBe(0);
    expect(slots.waiting).toBe(0);
  });
});

describe('withDeadline', () => {
  afterEach(() => vi.useRealTimers());

  it('aborts the task with a TimeoutError once the time is up', async () => {
    vi.useFakeTimers();
    const outcome = withDeadline(
      1000,
      [],
      (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    );
    const settled = vi.fn();
    const verdict = expect(outcome.finally(settled)).rejects.toMatchObject({ name: 'TimeoutError' });
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await verdict;
  });

  it("passes on a source's abort with its reason, and starts aborted when a source already is", async () => {
    const shutdown = new AbortController();
    const seen: unknown[] = [];
    const running = withDeadline(
      60_000,
      [shutdown.signal, undefined],
      (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason))),
    );
    shutdown.abort(new Error('stopping'));
    seen.push(await running);
    seen.push(await withDeadline(60_000, [shutdown.signal], async (signal) => signal.aborted && signal.reason));
    expect(seen).toEqual([new Error('stopping'), new Error('stopping')]);
  });

  it('leaves no timer and no listener on a long-lived source once the task has settled', async () => {
    vi.useFakeTimers();
    const shutdown = new AbortController();
    await withDeadline(300_000, [shutdown.signal], async () => 'done');
    await expect(withDeadline(300_000, [shutdown.signal], async () => Promise.reject(new Error('provider failed')))).rejects.toThrow(
      'provider failed',
    );
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });
});
