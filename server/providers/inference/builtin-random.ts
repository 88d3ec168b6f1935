/** The built-in engine's random choices: every one comes from a seeded generator, so renders repeat exactly. */
export type Rng = () => number;

export const between = (rng: Rng, lo: number, hi: number) => lo + (hi - lo) * rng();

export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length) % items.length]!;

/** A choice weighted by [item, weight] pairs. */
export function weighted<T>(rng: Rng, items: readonly (readonly [T, number])[]): T {
  const total = items.reduce((s, [, w]) => s + w, 0);
  let r = rng() * total;
  for (const [item, w] of items) if ((r -= w) < 0) return item;
  return items[items.length - 1]![0];
}
