import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { zipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFalGenerator } from '../../server/providers/inference/fal-generator.ts';
import { createFalTrainer, trainingStateFromWebhook } from '../../server/providers/inference/fal-trainer.ts';
import { parseFalWebhook, verifyFalWebhook } from '../../server/providers/inference/fal-webhook.ts';
import { ProviderError, type GenerateInput } from '../../server/providers/inference/index.ts';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.ts';
import { waitFor } from '../helpers/wait.ts';

let fal: FakeFal;
let hooks: WebhookReceiver;

beforeAll(async () => {
  fal = await startFakeFal({ latencyMs: 20 });
  hooks = await startWebhookReceiver();
});

afterAll(async () => {
  await fal?.stop();
  await hooks?.stop();
});

const input: GenerateInput = {
  prompt: 'a portrait in soft light',
  imageSize: { width: 576, height: 1024 },
  loras: [{ path: 'https://v3.fal.media/files/abc/pytorch_lora_weights.safetensors', scale: 0.8 }],
  seed: 42,
  numInferenceSteps: 28,
  guidanceScale: 3.5,
  outputFormat: 'png',
};

const generator = (opts: { timeoutMs?: number; credentials?: string } = {}) =>
  createFalGenerator({
    credentials: opts.credentials ?? fal.key,
    fetch: fal.fetch,
    pollIntervalMs: 10,
    timeoutMs: opts.timeoutMs ?? 10_000,
  });

const submits = (endpoint: string) => fal.received.filter((r) => r.method === 'POST' && r.path === `/queue/${endpoint}`);

async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('fal generator (fal-ai/flux-lora)', () => {
  it('submits the contract input, polls, and returns the hosted image', async () => {
    const before = submits('fal-ai/flux-lora').length;
    const out = await generator().generate(input);
    const sent = submits('fal-ai/flux-lora').slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.authorization).toBe(`Key ${fal.key}`);
    expect(sent[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent[0]!.body)).toEqual({
      prompt: 'a portrait in soft light',
      image_size: { width: 576, height: 1024 },
      loras: [{ path: input.loras[0]!.path, scale: 0.8 }],
      seed: 42,
      num_inference_steps: 28,
      guidance_scale: 3.5,
      num_images: 1,
      enable_safety_checker: true,
      output_format: 'png',
    });
    expect(out.seed).toBe(42);
    expect(out.providerRequestId).toBeTruthy();
    expect(out.images).toHaveLength(1);
    const image = out.images[0]!;
    expect(image).toMatchObject({ width: 576, height: 1024, contentType: 'image/png', nsfw: false });
    const bytes = Buffer.from(await (await fetch(image.url!)).arrayBuffer());
    const meta = await sharp(bytes).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([576, 1024, 'png']);
    // Status and result are asked for without the endpoint's subpath, with the queue's own paths.
    const id = out.providerRequestId!;
    expect(fal.received.some((r) => r.method === 'GET' && r.path === `/queue/fal-ai/flux-lora/requests/${id}/status`)).toBe(true);
    expect(fal.received.some((r) => r.method === 'GET' && r.path === `/queue/fal-ai/flux-lora/requests/${id}`)).toBe(true);
  });

  it('reports an image the safety checker flags', async () => {
    fal.control.nsfwNext();
    const out = await generator().generate(input);
    expect(out.images[0]!.nsfw).toBe(true);
  });

  it('retries 429 and 503 answers and then succeeds', async () => {
    const before = submits('fal-ai/flux-lora').length;
    fal.control.httpErrorNext('submit', 429, 1);
    fal.control.httpErrorNext('status', 503, 1);
    const out = await generator().generate(input);
    expect(out.images).toHaveLength(1);
    expect(submits('fal-ai/flux-lora').length - before).toBe(2);
  });

  it('does not retry input fal rejects (422) and names the field', async () => {
    const before = submits('fal-ai/flux-lora').length;
    const err = await rejection(generator().generate({ ...input, imageSize: { width: 20_000, height: 1024 } }));
    expect(err.kind).toBe('rejected');
    expect(err.status).toBe(422);
    expect(err.message).toMatch(/image_size\.width/);
    expect(err.retryable).toBe(false);
    expect(submits('fal-ai/flux-lora').length - before).toBe(1);
  });

  it('turns a model failure into a failed ProviderError', async () => {
    fal.control.failNext({ endpoint: 'fal-ai/flux-lora', status: 500, message: 'CUDA out of memory' });
    const err = await rejection(generator().generate(input));
    expect(err.kind).toBe('failed');
    expect(err.message).toMatch(/CUDA out of memory/);
  });

  it('refuses a wrong key without retrying', async () => {
    const err = await rejection(generator({ credentials: 'wrong:key' }).generate(input));
    expect(err).toMatchObject({ kind: 'rejected', status: 401 });
  });

  it('times out a stalled request and cancels it at fal', async () => {
    fal.control.stallNext({ endpoint: 'fal-ai/flux-lora' });
    const started = Date.now();
    const err = await rejection(generator({ timeoutMs: 300 }).generate(input));
    expect(err.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
    const stalled = [...fal.requests.values()].filter((r) => r.stalled);
    expect(fal.cancelled).toContain(stalled.at(-1)!.id);
  });

  it('stops when the caller aborts and cancels the request at fal', async () => {
    fal.control.stallNext({ endpoint: 'fal-ai/flux-lora' });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 150);
    const err = await rejection(generator().generate(input, { signal: abort.signal }));
    expect(err.kind).toBe('cancelled');
    const stalled = [...fal.requests.values()].filter((r) => r.stalled);
    expect(fal.cancelled).toContain(stalled.at(-1)!.id);
  });
});

describe('fal trainer (fal-ai/flux-lora-fast-training)', () => {
  const trainer = () => createFalTrainer({ credentials: fal.key, fetch: fal.fetch });
  const archive = () => Buffer.from(zipSync({ 'a.jpg': new Uint8Array([0xff, 0xd8, 0xff]), 'b.jpg': new Uint8Array([0xff, 0xd8, 0xff]) }));
  const payload = (imagesDataUrl: string, triggerWord?: string) => ({
    imagesDataUrl,
    triggerWord,
    createMasks: true,
    steps: 1000,
    isStyle: false,
  });

  it('uploads the archive, trains, and reports the LoRA by signed webhook and by polling', async () => {
    const url = await trainer().uploadArchive(archive());
    expect(url).toMatch(/^https:\/\/v3\.fal\.media\/files\/.+\/training_images\.zip$/);
    const { requestId } = await trainer().submit(payload(url, 'anna'), { webhookUrl: `${hooks.url}/hook` });
    const submitted = fal.received.filter((r) => r.path === '/queue/fal-ai/flux-lora-fast-training').at(-1)!;
    expect(new URLSearchParams(submitted.search).get('fal_webhook')).toBe(`${hooks.url}/hook`);
    expect(JSON.parse(submitted.body)).toEqual({
      images_data_url: url,
      trigger_word: 'anna',
      create_masks: true,
      steps: 1000,
      is_style: false,
    });

    await fal.settled(requestId);
    const hook = hooks.received.find((h) => h.headers['x-fal-webhook-request-id'] === requestId)!;
    expect(hook).toBeDefined();
    const verdict = await verifyFalWebhook(hook.headers, hook.body, { jwksUrl: fal.jwksUrl, fetch: fal.fetch });
    expect(verdict).toMatchObject({ ok: true, requestId });
    const state = trainingStateFromWebhook(parseFalWebhook(hook.body)!);
    expect(state).toMatchObject({ status: 'COMPLETED' });

    const polled = await trainer().status(requestId);
    expect(polled).toEqual(state);
    if (polled.status !== 'COMPLETED') throw new Error('unreachable');
    expect((await fetch(polled.loraFileUrl)).status).toBe(200);
  });

  it('omits an empty trigger word', async () => {
    const url = await trainer().uploadArchive(archive());
    await trainer().submit(payload(url, ''));
    const submitted = fal.received.filter((r) => r.path === '/queue/fal-ai/flux-lora-fast-training').at(-1)!;
    expect(JSON.parse(submitted.body)).not.toHaveProperty('trigger_word');
  });

  it('reports IN_PROGRESS while training and finds the result by polling when the webhook is lost', async () => {
    fal.control.stallNext({ endpoint: 'fal-ai/flux-lora-fast-training' });
    fal.control.dropWebhooks();
    const url = await trainer().uploadArchive(archive());
    const { requestId } = await trainer().submit(payload(url), { webhookUrl: `${hooks.url}/hook` });
    await waitFor('the training to run', async () => (await trainer().status(requestId)).status === 'IN_PROGRESS', 3_000);
    await fal.control.release(requestId);
    expect(hooks.received.some((h) => h.headers['x-fal-webhook-request-id'] === requestId)).toBe(false);
    expect(await trainer().status(requestId)).toMatchObject({ status: 'COMPLETED' });
  });

  it('reports a failed run as FAILED with fal’s error, by webhook and by polling', async () => {
    fal.control.failNext({ endpoint: 'fal-ai/flux-lora-fast-training', status: 400, message: 'Not enough faces found in the images' });
    const url = await trainer().uploadArchive(archive());
    const { requestId } = await trainer().submit(payload(url), { webhookUrl: `${hooks.url}/hook` });
    await fal.settled(requestId);
    expect(await trainer().status(requestId)).toEqual({ status: 'FAILED', error: 'Not enough faces found in the images' });
    const hook = hooks.received.find((h) => h.headers['x-fal-webhook-request-id'] === requestId)!;
    expect(trainingStateFromWebhook(parseFalWebhook(hook.body)!)).toEqual({
      status: 'FAILED',
      error: 'Not enough faces found in the images',
    });
  });

  it('fails a run whose archive is not a zip', async () => {
    const { requestId } = await trainer().submit(payload(`${fal.url}/cdn/files/missing/none.zip`));
    await fal.settled(requestId);
    expect(await trainer().status(requestId)).toMatchObject({ status: 'FAILED' });
  });

  it('rejects a bad payload with 422 and does not retry it', async () => {
    const err = await rejection(trainer().submit({ ...payload('not a url'), steps: 0 }));
    expect(err).toMatchObject({ kind: 'rejected', status: 422 });
    expect(err.message).toMatch(/images_data_url/);
    expect(err.message).toMatch(/steps/);
  });
});

describe('fal webhook verification', () => {
  async function completedTraining(): Promise<string> {
    const trainer = createFalTrainer({ credentials: fal.key, fetch: fal.fetch });
    const url = await trainer.uploadArchive(Buffer.from(zipSync({ 'a.jpg': new Uint8Array([1]) })));
    const { requestId } = await trainer.submit({ imagesDataUrl: url, createMasks: true, steps: 1000, isStyle: false });
    await fal.settled(requestId);
    return requestId;
  }
  const verifyDelivery = (d: { headers: Record<string, string>; body: string }, now?: number) =>
    verifyFalWebhook(d.headers, Buffer.from(d.body), { jwksUrl: fal.jwksUrl, fetch: fal.fetch, ...(now ? { now: () => now } : {}) });

  it('accepts a genuine webhook and caches fal’s keys', async () => {
    const requestId = await completedTraining();
    const jwksFetches = () => fal.received.filter((r) => r.path === '/rest/.well-known/jwks.json').length;
    const genuine = await fal.control.sendWebhook(requestId, { url: `${hooks.url}/hook` });
    expect(await verifyDelivery(genuine)).toMatchObject({ ok: true, requestId });
    const fetchesSoFar = jwksFetches();
    expect(await verifyDelivery(genuine)).toMatchObject({ ok: true });
    expect(jwksFetches()).toBe(fetchesSoFar);
  });

  it('rejects a forged signature', async () => {
    const requestId = await completedTraining();
    const forged = await fal.control.sendWebhook(requestId, { url: `${hooks.url}/hook`, forged: true });
    expect(await verifyDelivery(forged)).toMatchObject({ ok: false });
  });

  it('rejects a body changed after signing', async () => {
    const requestId = await completedTraining();
    const tampered = await fal.control.sendWebhook(requestId, { url: `${hooks.url}/hook`, tamperBody: true });
    expect(await verifyDelivery(tampered)).toMatchObject({ ok: false });
  });

  it('rejects stale webhooks and replays outside the 5 minute window', async () => {
    const requestId = await completedTraining();
    const stale = await fal.control.sendWebhook(requestId, { url: `${hooks.url}/hook`, timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect(await verifyDelivery(stale)).toMatchObject({ ok: false, reason: expect.stringMatching(/window/) });
    const genuine = await fal.control.sendWebhook(requestId, { url: `${hooks.url}/hook` });
    expect(await verifyDelivery(genuine)).toMatchObject({ ok: true });
    expect(await verifyDelivery(genuine, Date.now() + 10 * 60 * 1000)).toMatchObject({ ok: false });
  });

  it('rejects a webhook without signature headers', async () => {
    expect(
      await verifyFalWebhook({ 'content-type': 'application/json' }, Buffer.from('{}'), { jwksUrl: fal.jwksUrl, fetch: fal.fetch }),
    ).toMatchObject({
      ok: false,
    });
  });
});

interface WebhookReceiver {
  url: string;
  received: { headers: Record<string, string>; body: string }[];
  stop(): Promise<void>;
}

/** Stands in for the product's webhook route: keeps each raw body and its headers. */
async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: WebhookReceiver['received'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString() });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
