import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
// @ts-expect-error plain-JS helper shared with the npm scripts
import { buildIfStale, distDir } from '../scripts/lib.mjs';
import { TEST_PUBLISHABLE_KEY } from '../tests/helpers/clerk.ts';
import { startTestServer } from '../tests/helpers/server.ts';
import { launchChromium } from './browser.ts';
import { percentile, printTable } from './stats.ts';

/** Targets: landing JS ≤ 120 KB gzipped; LCP ≤ 1.0 s on localhost; CLS ≤ 0.02. */
const TARGET_JS_KB = 120;
const TARGET_LCP_MS = 1000;
const TARGET_CLS = 0.02;
const RUNS = 5;
const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
];

/**
 * Both SPAs: the local build, and the hosted one with a test configuration. The hosted landing
 * also fetches clerk-js from Clerk's CDN at run time, which this offline machine cannot reach: only the
 * product's own assets are counted, as for the local build.
 */
const BUILDS = [
  { name: 'local', outDir: distDir, env: withoutHostedVariables() },
  {
    name: 'hosted',
    outDir: `${distDir}-hosted`,
    env: {
      ...process.env,
      VITE_CLERK_PUBLISHABLE_KEY: TEST_PUBLISHABLE_KEY,
      VITE_SUPABASE_URL: 'http://127.0.0.1:9',
      VITE_SUPABASE_ANON_KEY: 'bench-anon-key',
      VITE_API_URL: '',
    },
  },
];

function withoutHostedVariables(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (/^VITE_(CLERK|SUPABASE)_/.test(name)) delete env[name];
  return env;
}

const kb = (n: number) => `${n.toFixed(1)} KB`;

/** The files index.html itself loads: the entry script, its module preloads and stylesheets. */
function entryAssets(outDir: string): string[] {
  const html = readFileSync(join(outDir, 'index.html'), 'utf8');
  return [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
}

/** Records LCP and CLS from the first paint on (buffered observers set up before any page script). */
const observeVitals = () => {
  const w = window as unknown as { __lcp: number; __cls: number };
  w.__lcp = 0;
  w.__cls = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__lcp = e.startTime;
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries() as Array<PerformanceEntry & { value: number; hadRecentInput: boolean }>) {
      if (!e.hadRecentInput) w.__cls += e.value;
    }
  }).observe({ type: 'layout-shift', buffered: true });
};

export async function run() {
  for (const build of BUILDS) {
    console.log(`\n── ${build.name} build ──`);
    if ((await buildIfStale({ outDir: build.outDir, env: build.env })) !== 0) throw new Error(`the ${build.name} SPA build failed`);
    await measure(build.outDir);
  }
}

async function measure(outDir: string) {
  const gzipKb = (file: string) => gzipSync(readFileSync(join(outDir, file))).length / 1024;
  const server = await startTestServer({ app: { staticDir: outDir } });
  const browser = await launchChromium();
  try {
    // Which JS and CSS the landing route really loads: every asset requested on a cold visit to '/'.
    const context = await browser.newContext();
    const page = await context.newPage();
    const loaded = new Set<string>();
    page.on('request', (req) => {
      const path = new URL(req.url()).pathname;
      if (/^\/assets\/.+\.(js|css)$/.test(path)) loaded.add(path.slice(1));
    });
    await page.goto(`${server.url}/`, { waitUntil: 'networkidle' });
    await context.close();

    const entry = entryAssets(outDir);
    const sum = (files: string[], ext: string) => files.filter((f) => f.endsWith(ext)).reduce((t, f) => t + gzipKb(f), 0);
    const all = [...loaded];
    const js = sum(all, '.js');
    const css = sum(all, '.css');
    console.log(`Landing route loads ${all.length} files (${entry.length} from index.html), gzipped:`);
    printTable([
      { part: 'index.html entry', js: kb(sum(entry, '.js')), css: kb(sum(entry, '.css')) },
      { part: 'landing route total', js: kb(js), css: kb(css) },
    ]);
    const appCode = all.filter((f) => /app-layout|create-image|subscription|profile|framer|supabase/.test(f));
    if (appCode.length) console.log(`WARNING: the landing loaded app code: ${appCode.join(', ')}`);

    const rows: Array<Record<string, string>> = [];
    for (const vp of VIEWPORTS) {
      const lcps: number[] = [];
      const clss: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const ctx = await browser.newContext({ viewport: { width: vp.width, height: vp.height } });
        const p = await ctx.newPage();
        await p.addInitScript(observeVitals);
        await p.goto(`${server.url}/`, { waitUntil: 'networkidle' });
        await p.waitForTimeout(300);
        const v = await p.evaluate(() => {
          const w = window as unknown as { __lcp: number; __cls: number };
          return { lcp: w.__lcp, cls: w.__cls };
        });
        lcps.push(v.lcp);
        clss.push(v.cls);
        await ctx.close();
      }
      const met = percentile(lcps, 50) <= TARGET_LCP_MS && Math.max(...clss) <= TARGET_CLS;
      rows.push({
        viewport: `${vp.name} ${vp.width}×${vp.height}`,
        'LCP p50': `${percentile(lcps, 50).toFixed(0)} ms`,
        'LCP max': `${Math.max(...lcps).toFixed(0)} ms`,
        'CLS max': Math.max(...clss).toFixed(4),
        target: met ? 'met' : 'MISSED',
      });
    }
    console.log(`\nLargest Contentful Paint and Cumulative Layout Shift, ${RUNS} cold loads each (cache off):`);
    printTable(rows);
    console.log(
      `\nTargets: JS ≤ ${TARGET_JS_KB} KB (${js <= TARGET_JS_KB ? 'met' : 'MISSED'}), LCP ≤ ${TARGET_LCP_MS} ms, CLS ≤ ${TARGET_CLS}.`,
    );
  } finally {
    await browser.close();
    await server.stop();
  }
}
