import { describe, expect, it } from 'vitest';
import { createInFlightLimit } from './concurrency.ts';

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
