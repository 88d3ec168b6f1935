import { vi } from 'vitest';

/** Makes every `max-width` media query match, as on a phone (useIsPhone); undo with `vi.unstubAllGlobals()`. */
export function stubPhoneScreen() {
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: query.includes('max-width'),
    media: query,
    addEventListener: () => {},
    removeEventListener: () => {},
  }));
}
