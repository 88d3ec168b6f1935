import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import { loadConfig } from '../../server/config.ts';
import { buildApp } from '../../server/app.ts';
import { startRuntime } from '../../server/runtime.ts';
import { serveWithTimeouts } from '../../server/http/timeouts.ts';
import { insertGenerations } from './gallery-fixtures.ts';
import { startTestSmtp } from '../../tests/helpers/smtp.ts';
import { startFakeFal } from '../../tests/fakes/fal-server.ts';
import { createBuiltinGenerator } from '../../server/providers/inference/builtin-generator.ts';
import { createFalGenerator } from '../../server/providers/inference/fal-generator.ts';
import type { ImageGenerator } from '../../server/providers/inference/index.ts';
import { keyFromMediaUrl } from '../../server/providers/storage/index.ts';
import type { Runtime } from '../../server/runtime.ts';
import { onePersonPhotos, strangerPhotos } from './training-photos.ts';

/**
 * The real server and SPA on a fresh data folder, plus a loopback-only control port (E2E_PORT + 100, clear of neighbouring servers) through
 * which Playwright fixtures act as an operator would (e.g. grant credits). Production code has no test hooks.
 */
const port = Number(process.env.E2E_PORT ?? 4310);
const dataDir = mkdtempSync(join(tmpdir(), 'likeness-e2e-'));
// Mail goes to a real SMTP server on loopback (E2E_PORT + 200) whose messages fixtures read through the
// control port, and its links point at this server.
const smtp = process.env.SMTP_URL ? undefined : await startTestSmtp(port + 200);
const config = loadConfig({
  ...process.env,
  NODE_ENV: 'test',
  PORT: String(port),
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  AUTH_RATE_LIMIT: '1000',
  SIGN_UP_RATE_LIMIT: '1000',
  ...(smtp ? { SMTP_URL: smtp.url, PUBLIC_URL: process.env.PUBLIC_URL ?? `http://127.0.0.1:${port}`, MAIL_RETRY_SECONDS: '1' } : {}),
  // Trainings take a few seconds, long enough to see them running and short enough to watch them finish.
  TRAINING_DURATION_SECONDS: process.env.TRAINING_DURATION_SECONDS ?? '4',
  TRAINING_POLL_SECONDS: process.env.TRAINING_POLL_SECONDS ?? '0.5',
});
// The likeness e2e: the shoot photos of a person it names come from the fal fake (real photos of the trained
// person, or of a stranger when told); every other image from the built-in engine, as in local mode.
const fal = await startFakeFal({ latencyMs: 50 });
const falGenerator = createFalGenerator({ credentials: fal.key, fetch: fal.fetch, pollIntervalMs: 20, timeoutMs: 60_000 });
const falUsers = new Set<string>();
let storage: Runtime['storage'] | undefined;
const builtin = createBuiltinGenerator({
  loadLora: async (path) => {
    const key = keyFromMediaUrl(path);
    return key && storage ? storage.read(key) : null;
  },
});
const ownerOfLora = (path: string | undefined) => /\/loras\/([0-9a-f-]{36})\//.exec(path ?? '')?.[1];
// People whose character's photos take at least this long (ms), so a test can act while a shoot is under way.
const slowUsers = new Map<string, number>();
const generator: ImageGenerator = {
  name: 'builtin',
  generate: async (input, opts) => {
    const owner = ownerOfLora(input.loras[0]?.path);
    const slow = owner ? slowUsers.get(owner) : undefined;
    if (slow) await new Promise((resolve) => setTimeout(resolve, slow));
    return (owner && falUsers.has(owner) ? falGenerator : builtin).generate(input, opts);
  },
};
const rt = await startRuntime(config, { sseHeartbeatMs: 5000, generator });
storage = rt.storage;
const app = buildApp(rt, { staticDir: fileURLToPath(new URL(`../../${process.env.DIST_DIR ?? 'dist'}`, import.meta.url)) });
serveWithTimeouts({ fetch: app.fetch, port, hostname: '127.0.0.1' });

/** What fixtures may do through the control port, by path; each answers JSON. */
const controls: Record<string, (body: { email: string; count: number; amount: number; code: string }) => Promise<unknown>> = {
  // From now on the person's character is photographed by the fal fake: real photos of the person it was
  // trained on, the next `count` of them of a stranger instead.
  '/likeness/strangers': async (body) => {
    const user = await rt.users.findByEmail(body.email);
    if (!user) throw new Error(`no user ${body.email}`);
    const [character] = await rt.generations.listCharacters(user.id);
    if (!character?.lora_file_url) throw new Error(`${body.email} has no trained character`);
    falUsers.add(user.id);
    fal.control.photos({
      lora: character.lora_file_url,
      person: await onePersonPhotos(),
      stranger: await strangerPhotos(),
      strangerNext: body.count,
    });
    return { lora: character.lora_file_url };
  },
  // From now on each photo of the person's character takes at least `amount` ms more.
  '/photos/slow': async (body) => {
    const user = await rt.users.findByEmail(body.email);
    if (!user) throw new Error(`no user ${body.email}`);
    slowUsers.set(user.id, body.amount);
    return { slowMs: body.amount };
  },
  // Messages the loopback SMTP server received for an address, oldest first.
  '/mail': async (body) =>
    (smtp?.to(body.email) ?? []).map((m) => ({
      subject: m.mail.subject,
      text: m.mail.text,
      html: typeof m.mail.html === 'string' ? m.mail.html : '',
    })),
  '/generations': async (body) => ({ ids: await insertGenerations(rt, body.email, body.count) }),
  // The starter gallery, rendered once per server as on a fresh install (tests skip it at start).
  '/explore/seed': async () => ({ added: await rt.seedExplore() }),
  '/credits': async (body) => {
    const user = await rt.users.findByEmail(body.email);
    if (!user) throw new Error(`no user ${body.email}`);
    return rt.credits.apply({
      userId: user.id,
      delta: body.amount,
      kind: 'adjustment',
      reason: 'e2e fixture',
      idempotencyKey: `e2e:${Date.now()}:${Math.random()}`,
    });
  },
};

// A promo code worth `amount` credits, for `count` redemptions, as `npm run admin -- promo create` makes it.
controls['/promo'] = async (body) => {
  const row = await rt.promoCodes.create({
    code: body.code,
    credits: body.amount,
    maxRedemptions: body.count,
    expiresAt: null,
    accountId: null,
  });
  return { code: row.code };
};

const control = createServer(async (req, res) => {
  const handle = req.method === 'POST' ? controls[req.url ?? ''] : undefined;
  if (!handle) {
    res.writeHead(404).end();
    return;
  }
  try {
    let text = '';
    for await (const chunk of req) text += chunk;
    const result = await handle(JSON.parse(text || '{}'));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
  } catch (err) {
    res.writeHead(500).end(String(err));
  }
});
control.listen(port + 100, '127.0.0.1');
console.log(`e2e server on http://127.0.0.1:${port} (data ${dataDir})`);
