import { describe, expect, it } from 'vitest';
import { createFairSemaphore, createInFlightLimit } from './concurrency.ts';

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
