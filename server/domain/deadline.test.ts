import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withDeadline } from './deadline.ts';

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
