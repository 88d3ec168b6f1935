/**
 * Runs `task` with a signal that aborts after `ms` (a TimeoutError, as AbortSignal.timeout's does) or when one
 * of `sources` aborts (with its reason), and lets go of the timer and the listeners as soon as the task
 * settles. `AbortSignal.any([AbortSignal.timeout(ms), …])` keeps its signals, their timer and a link from each
 * long-lived source alive until the timeout fires: for a paid call, five minutes after it ended
 * (docs/decisions/014-generate-path.md, fifth pass). Services and providers both bound their calls with it.
 */
export async function withDeadline<T>(
  ms: number,
  sources: readonly (AbortSignal | undefined)[],
  task: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const forward = (event: Event) => controller.abort((event.target as AbortSignal).reason);
  const watched = sources.filter((s): s is AbortSignal => s !== undefined);
  for (const source of watched) {
    if (source.aborted) controller.abort(source.reason);
    else source.addEventListener('abort', forward, { once: true });
  }
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
  try {
    return await task(controller.signal);
  } finally {
    clearTimeout(timer);
    for (const source of watched) source.removeEventListener('abort', forward);
  }
}
