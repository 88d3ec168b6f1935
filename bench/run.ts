/**
 * `npm run bench [name…]`: runs every bench/<name>.bench.ts (or only the named ones) and prints its figures.
 * Benchmarks measure speed and memory targets; tests never time anything.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace('.bench.ts', '')))
  .sort();

for (const file of files) {
  const name = file.replace('.bench.ts', '');
  console.log(`\n━━ ${name} ━━`);
  const mod = (await import(`./${file}`)) as { run: () => Promise<void> };
  const started = performance.now();
  await mod.run();
  console.log(`(${name}: ${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
process.exit(0);
