import { fileURLToPath } from 'node:url';
import { build, type Rolldown } from 'vite';

const ENTRY = fileURLToPath(new URL('../../tests/fakes/clerk-js-browser.ts', import.meta.url));
let bundled: Promise<string> | null = null;

/** tests/fakes/clerk-js-browser.ts as one classic browser script (what clerk.browser.js is), built once per worker. */
export function fakeClerkScript(): Promise<string> {
  bundled ??= (async () => {
    const result = await build({
      configFile: false,
      logLevel: 'silent',
      build: {
        write: false,
        minify: false,
        lib: { entry: ENTRY, formats: ['iife'], name: 'LikenessFakeClerkJs', fileName: 'clerk.browser' },
      },
    });
    const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
    const chunk = outputs.flatMap((o) => o.output).find((o) => o.type === 'chunk');
    if (!chunk || chunk.type !== 'chunk') throw new Error('the fake clerk-js bundle is empty');
    return chunk.code;
  })();
  return bundled;
}
