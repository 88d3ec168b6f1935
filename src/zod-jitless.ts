import { z } from 'zod';

// zod 4 probes whether it may compile parsers with `new Function('')`; under the SPA's Content-Security-Policy
// (no 'unsafe-eval') that probe is a violation on every page. Jitless parsing is as correct and fast enough
// for a form. Imported first by src/main.tsx, before any schema is built or used.
z.config({ jitless: true });
