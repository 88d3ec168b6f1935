import { config } from 'zod/v4/core';

// The SPA's `zod`: vite.config.ts resolves the bare 'zod' import of the browser build here, so this module's
// body runs before the body of any module that builds a schema, in whichever chunk zod first lands — and the
// landing's entry carries no zod at all (bench/landing.bench.ts).
// zod 4 probes whether it may compile parsers with `new Function('')`; under the SPA's Content-Security-Policy
// (no 'unsafe-eval') that probe is a violation on every page. Jitless parsing is as correct and fast enough
// for a form.
export { z } from 'zod/v4';
config({ jitless: true });
