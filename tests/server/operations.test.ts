import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError, type ImageGenerator } from '../../server/providers/inference/index.ts';
import { createCreemProvider } from '../../server/providers/payments/creem.ts';
import { creemEnv, startFakeCreem, type FakeCreem } from '../fakes/creem-server.ts';
import { generationRequestBody } from '../helpers/generation.ts';
import { parseMetrics, sampleKey } from '../helpers/metrics-text.ts';
import { readyz, startTestServer, testDatabases, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

const TOKEN = 'metrics-token-0123456789';

const request = generationRequestBody();

describe.each(testDatabases())('operations (%s)', (database) => {
  let ts: TestServer;
  const logLines: Record<string, unknown>[] = [];
  let fail = false;
  const generator: ImageGenerator = {
    name: 'builtin',
    async generate(input) {
      if (fail) throw new ProviderError('upstream exploded', 'failed', 500);
      const data = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#336699' } })
        .jpeg()
        .toBuffer();
      return {
        images: [{ data, width: input.imageSize.width, height: input.imageSize.height, contentType: 'image/jpeg', nsfw: false }],
        seed: input.seed,
      };
    },
  };

  beforeAll(async () => {
    ts = await startTestServer({
      database,
      env: { METRICS_TOKEN: TOKEN, LOG_LEVEL: 'info' },
      runtime: { generator, logDestination: { write: (line: string) => void logLines.push(JSON.parse(line)) } },
    });
  });
  afterAll(() => ts?.stop());

  const metrics = async () => {
    const res = await fetch(`${ts.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return parseMetrics(await res.text());
  };

  it('answers /healthz, and /readyz with every part checked', async () => {
    const health = await fetch(`${ts.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await readyz(ts);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ready: true, failing: [] });
    expect(Object.keys(ready.body.checks).sort()).toEqual(['database', 'providers', 'realtime', 'storage']);
    // The e2e suite and older probes still use this one.
    expect((await fetch(`${ts.url}/api/health`)).status).toBe(200);
  });

  it('reports storage not ready, naming it, while it cannot be written, and ready again after', async () => {
    const files = join(ts.dataDir, 'files');
    renameSync(files, `${files}.away`);
    writeFileSync(files, 'not a folder');
    try {
      const down = await waitFor('storage to fail', async () => {
        const r = await readyz(ts);
        return r.status === 503 && r;
      });
      expect(down.body.failing).toEqual(['storage']);
      expect(down.body.checks.storage.ok).toBe(false);
      expect(JSON.stringify(down.body)).not.toContain(ts.dataDir);
    } finally {
      rmSync(files);
      renameSync(`${files}.away`, files);
    }
    await waitFor('storage to recover', async () => (await readyz(ts)).status === 200);
  });

  it('serves metrics only with the bearer token', async () => {
    expect((await fetch(`${ts.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${ts.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(`${ts.url}/metrics`, { headers: { authorization: `Basic ${TOKEN}` } })).status).toBe(401);
    const samples = await metrics();
    expect(samples.get('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(samples.has('nodejs_heap_size_used_bytes')).toBe(true);
  });

  it('counts requests by route pattern, a stored generation, a refund and the credits they move', async () => {
    const { client } = await ts.signUp({ credits: 20 });
    const before = await metrics();
    const at = (samples: Map<string, number>, name: string, labels: Record<string, string> = {}) =>
      samples.get(sampleKey(name, labels)) ?? 0;

    expect((await client.post('/api/image/generate-image', request)).status).toBe(200);
    fail = true;
    try {
      expect((await client.post('/api/image/generate-image', request)).status).toBe(502);
    } finally {
      fail = false;
    }
    const list = await client.get('/api/generations?limit=6');
    const first = (await list.json()).items[0].id;
    expect((await client.get(`/api/download/${first}`)).status).toBe(200);

    const after = await metrics();
    const delta = (name: string, labels?: Record<string, string>) => at(after, name, labels) - at(before, name, labels);
    expect(delta('likeness_generations_total', { outcome: 'stored' })).toBe(1);
    expect(delta('likeness_generations_total', { outcome: 'refunded' })).toBe(1);
    expect(delta('likeness_credits_total', { change: 'debited' })).toBe(20);
    expect(delta('likeness_credits_total', { change: 'refunded' })).toBe(10);
    expect(delta('likeness_generation_provider_duration_seconds_count', { provider: 'builtin' })).toBe(2);
    const route = { method: 'POST', route: '/api/image/generate-image' };
    expect(delta('http_requests_total', { ...route, status: '200' })).toBe(1);
    expect(delta('http_requests_total', { ...route, status: '502' })).toBe(1);
    expect(delta('http_request_duration_seconds_count', { ...route, status: '200' })).toBe(1);
    // Ids in the path are not labels: the route pattern is.
    expect(delta('http_requests_total', { method: 'GET', route: '/api/download/:id', status: '200' })).toBe(1);
    expect([...after.keys()].some((k) => k.includes(first))).toBe(false);
    expect(at(after, 'likeness_jobs', { kind: 'generation', state: 'leased' })).toBe(0);
  });

  it('counts open event streams', async () => {
    const { client } = await ts.signUp();
    const stream = await fetch(`${ts.url}/api/events`, { headers: { cookie: client.cookieHeader() } });
    const reader = stream.body!.getReader();
    await reader.read();
    expect((await metrics()).get('likeness_sse_connections')).toBe(1);
    await reader.cancel();
    await waitFor('the stream to close', async () => (await metrics()).get('likeness_sse_connections') === 0);
  });

  it('writes one log line per request with its id, route, status, duration and user, and nothing personal', async () => {
    const email = `private-${Date.now()}@example.com`;
    const { client, userId } = await ts.signUp({ email, name: 'Private Person' });
    const res = await client.get('/api/me');
    const requestId = res.headers.get('x-request-id')!;
    await res.arrayBuffer();
    const lines = logLines.filter((l) => l.requestId === requestId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'request', method: 'GET', route: '/api/me', status: 200, userId });
    expect(lines[0].durationMs).toEqual(expect.any(Number));

    const all = JSON.stringify(logLines);
    const session = client
      .cookieHeader()
      .split(';')
      .map((c) => c.split('=')[1]);
    expect(all).not.toContain(email);
    expect(all).not.toContain('correct-horse-1');
    expect(all).not.toContain('Private Person');
    for (const token of session) expect(all).not.toContain(token);
    expect(logLines.filter((l) => l.msg === 'request').every((l) => typeof l.route === 'string' && !String(l.route).includes('?'))).toBe(
      true,
    );
  });

  it('returns the request id in a header and in every error body', async () => {
    const unknown = await fetch(`${ts.url}/api/nope`, { headers: { 'x-request-id': 'lb-1234.abc' } });
    expect(unknown.headers.get('x-request-id')).toBe('lb-1234.abc');
    expect(await unknown.json()).toMatchObject({ code: 'not_found', requestId: 'lb-1234.abc' });

    const anonymous = await fetch(`${ts.url}/api/me`, { headers: { 'x-request-id': 'spaces and "quotes" {}' } });
    const id = anonymous.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await anonymous.json()).toMatchObject({ code: 'unauthorized', requestId: id });

    // Answers from the sign-in library and validation errors carry it too.
    const badSignIn = await ts.client().post('/api/auth/sign-in/email', { email: 'nobody@example.com', password: 'wrong-password' });
    expect(badSignIn.status).toBe(401);
    expect((await badSignIn.json()).requestId).toBe(badSignIn.headers.get('x-request-id'));
    const { client } = await ts.signUp();
    const invalid = await client.post('/api/image/generate-image', { ...request, prompt: '' });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).requestId).toBe(invalid.headers.get('x-request-id'));

    // The sandbox's HTML error pages show it as a reference.
    const crossSite = await client.fetch('/sandbox/checkout/x/pay', {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'x-request-id': 'ref-42' },
    });
    expect(crossSite.status).toBe(403);
    expect(await crossSite.text()).toContain('Reference: ref-42');
  });
});

describe('metrics switched off', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer();
  });
  afterAll(() => ts?.stop());

  it('answers 404 on /metrics without METRICS_TOKEN, even with a token', async () => {
    expect((await fetch(`${ts.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
  });
});

describe('readiness of the payment configuration (fake Creem)', () => {
  const apiKey = 'creem_test_0123456789';
  const products = { BASIC: 'prod_basic_r', STANDARD: 'prod_standard_r', PROFESSIONAL: 'prod_pro_r' };
  const withArchived = { ...products, PROFESSIONAL: 'prod_pro_archived' };
  let creem: FakeCreem;
  let good: TestServer;
  let archived: TestServer;

  const start = (plans: typeof products) =>
    startTestServer({
      env: creemEnv({ url: creem.url, apiKey, webhookSecret: 'whsec_test_0123456789', products: plans }),
    });
  beforeAll(async () => {
    creem = await startFakeCreem({ apiKey, products: [...Object.values(products), withArchived.PROFESSIONAL] });
    creem.archiveProduct(withArchived.PROFESSIONAL);
    good = await start(products);
    archived = await start(withArchived);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([good, archived].map((ts) => ts?.stop()));
    await creem?.stop();
  });

  it('is ready when Creem accepts the key and the three products', async () => {
    // The first answer arrives in the background: all three products were looked up, and the server is ready.
    await waitFor('the product lookups', async () => Object.values(products).every((id) => creem.productLookups.includes(id)));
    await new Promise((r) => setTimeout(r, 1100));
    expect(await readyz(good)).toMatchObject({ status: 200, body: { ready: true } });
  });

  it('is not ready, naming the providers, when Creem refuses the configuration', async () => {
    const refused = await waitFor('not ready', async () => {
      const r = await readyz(archived);
      return r.status === 503 && r;
    });
    expect(refused.body.failing).toEqual(['providers']);
  });

  it('names what Creem refuses: the key, an unknown or archived product', async () => {
    const problem = (key: string, plans: Record<string, string>) =>
      createCreemProvider({ apiKey: key, webhookSecret: 'whsec_x', products: plans as never, serverUrl: creem.url })
        .configurationProblem!();
    expect(await problem(apiKey, products)).toBeNull();
    expect(await problem('creem_test_not-the-key', products)).toBe('Creem refuses CREEM_API_KEY');
    expect(await problem(apiKey, { ...products, BASIC: 'prod_nobody_sells' })).toBe('Creem does not know CREEM_PRODUCT_BASIC');
    expect(await problem(apiKey, withArchived)).toBe('CREEM_PRODUCT_PROFESSIONAL is archived at Creem and can no longer be bought');
  });
});
