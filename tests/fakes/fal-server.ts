import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import sharp from 'sharp';

/**
 * fal.ai on loopback: the queue (submit, status, result, cancel), sync runs, storage uploads, the
 * webhook JWKS and signed webhooks, for the models this product uses. It checks what it receives as
 * strictly as fal does (shared/contracts/fal.md): `Authorization: Key …`, JSON bodies, pydantic-style
 * 422 answers for bad input, status URLs without the endpoint's subpath. Tests steer it through
 * `control` (fail, stall, flag NSFW, answer 429/503, drop or forge webhooks).
 *
 * URL layout: fal's hosts become path prefixes (`https://queue.fal.run/x` → `<url>/queue/x`, see
 * `fetch`); files it hosts are plain loopback URLs (`<url>/cdn/files/…`) so any HTTP client reads them.
 * More models: `registerEndpoint(id, handler)`; other fakes (captions) mount with `handlers`.
 */

export interface ValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** A model failure: the request completes with `error`, and its result answers `status` with `{detail}`. */
export class FakeModelError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errorType = 'model_error',
  ) {
    super(message);
  }
}

export interface RunContext {
  requestId: string;
  /** Hosts bytes at a URL of the fake and returns the URL. */
  host(bytes: Buffer, contentType: string, fileName: string): string;
  /** Reads an input URL (fal's hosts and the fake's own files resolve to the fake). */
  fetch: typeof fetch;
  /** The safety checker flags this request (control.nsfwNext). */
  nsfw: boolean;
  /** flux-lora answers this real photo (control.photos), fitted to the asked size, instead of a plain colour. */
  photo?: Buffer | null;
}

export interface EndpointHandler {
  validate(input: Record<string, unknown>): ValidationDetail[];
  run(input: Record<string, unknown>, ctx: RunContext): Promise<unknown>;
}

/** Anything else to serve (e.g. the caption fake): answers null for requests it does not own. */
export type ExtraHandler = (req: Request) => Promise<Response | null>;

type QueueOp = 'submit' | 'status' | 'result' | 'cancel' | 'upload' | 'run';

export interface QueueRequest {
  id: string;
  endpointId: string;
  input: Record<string, unknown>;
  state: 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED';
  webhookUrl?: string;
  output?: unknown;
  error?: FakeModelError;
  cancelled: boolean;
  stalled: boolean;
  nsfw: boolean;
  /** The real photo flux-lora answers (control.photos). */
  photo?: Buffer | null;
}

export interface ReceivedRequest {
  method: string;
  /** Path on the fake, host prefix included (`/queue/fal-ai/flux-lora`). */
  path: string;
  search: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookDelivery {
  url: string;
  requestId: string;
  body: string;
  headers: Record<string, string>;
  /** The receiver's HTTP status, or 0 when it could not be reached. */
  status: number;
  forged: boolean;
}

export interface WebhookOptions {
  /** Signed with a key that is not in the JWKS. */
  forged?: boolean;
  /** Unix seconds to sign with (stale or future webhooks). */
  timestamp?: number;
  /** Body sent differs from the body signed. */
  tamperBody?: boolean;
  body?: Record<string, unknown>;
}

export interface FakeFalControl {
  /** The next `times` model runs (of `endpoint`, or any) complete with an error. */
  failNext(opts?: { endpoint?: string; status?: number; message?: string; times?: number }): void;
  /** The next `times` requests never finish (until `release`). */
  stallNext(opts?: { endpoint?: string; times?: number }): void;
  /** Finishes a stalled request now. */
  release(requestId: string): Promise<void>;
  /**
   * The next `times` generations (after `after` unflagged ones) are flagged by the safety checker (black
   * image, has_nsfw_concepts true).
   */
  nsfwNext(opts?: { times?: number; after?: number }): void;
  /**
   * flux-lora answers real photos: of `person` (the trained person, in turn), or of `stranger` for the next
   * `strangerNext` requests (control.strangerNext adds more); `sequence` first says who each of the next requests
   * shows, in order. With `lora`, only for requests with that LoRA
   * path (several people's shoots at once); without, for any request. Null: plain colour images again.
   */
  photos(
    set: { person: Buffer[]; stranger: Buffer[]; strangerNext?: number; sequence?: ('person' | 'stranger')[]; lora?: string } | null,
  ): void;
  /** The next `times` flux-lora requests (with that LoRA, or any) answer a photo of the stranger. */
  strangerNext(times?: number, lora?: string): void;
  /** The next `times` calls of `op` answer `status` (429, 503…) before doing anything. */
  httpErrorNext(op: QueueOp, status: number, times?: number): void;
  /** The next `times` webhooks are not delivered (the result can still be polled). */
  dropWebhooks(times?: number): void;
  /** Sends (again) the webhook of a completed request, optionally forged, stale or tampered. */
  sendWebhook(requestId: string, opts?: WebhookOptions & { url?: string }): Promise<WebhookDelivery>;
  /** How long a request spends queued and running, in ms. */
  setLatency(ms: number): void;
  /**
   * What a pending request's status says: `queuePosition` while IN_QUEUE (default 0), and these log lines
   * (messages, oldest first) while IN_PROGRESS when logs are asked for, as fal's trainers print their steps.
   * Null: back to position 0 and no lines.
   */
  queueStatus(set: { queuePosition?: number; logs?: string[] } | null): void;
}

export interface FakeFal {
  url: string;
  /** A fetch for createFalClient and webhook verification that sends fal's hosts to this fake. */
  fetch: typeof fetch;
  key: string;
  /** The JWKS URL as fal publishes it (resolve it with `fetch`). */
  jwksUrl: string;
  control: FakeFalControl;
  /** Every request the fake received, in order. */
  received: ReceivedRequest[];
  requests: Map<string, QueueRequest>;
  /** Request ids a cancel was asked for. */
  cancelled: string[];
  webhooks: WebhookDelivery[];
  /** Resolves when the request has finished (and its webhook, if any, has been tried). */
  settled(requestId: string): Promise<void>;
  registerEndpoint(endpointId: string, handler: EndpointHandler): void;
  stop(): Promise<void>;
}

const FAL_HOST_PREFIX: Record<string, string> = {
  'queue.fal.run': '/queue',
  'fal.run': '/run',
  'rest.fal.ai': '/rest',
  'rest.alpha.fal.ai': '/rest',
  'v3.fal.media': '/cdn',
};

export const FAKE_FAL_KEY = 'fake-key-id:fake-key-secret';

/**
 * Every fake signs with the same key, as fal keeps its keys: a server that cached the JWKS of one
 * fake keeps verifying the webhooks of the next one a test starts.
 */
const FAKE_FAL_SIGNING_KEY = (() => {
  const seed = createHash('sha256').update('likeness fake fal webhook key').digest();
  const privateKey = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });
  return { privateKey, publicKey: createPublicKey(privateKey) };
})();
const USER_ID = 'fake-fal-user';

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

export async function startFakeFal(opts: { key?: string; latencyMs?: number; handlers?: ExtraHandler[] } = {}): Promise<FakeFal> {
  const key = opts.key ?? FAKE_FAL_KEY;
  let latencyMs = opts.latencyMs ?? 30;
  const extraHandlers = opts.handlers ?? [];
  const endpoints = new Map<string, EndpointHandler>();
  const requests = new Map<string, QueueRequest>();
  const settledPromises = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  const received: ReceivedRequest[] = [];
  const cancelled: string[] = [];
  const webhooks: WebhookDelivery[] = [];
  const files = new Map<string, { contentType: string; bytes: Buffer }>();
  const pendingUploads = new Map<string, { contentType: string; fileName: string }>();
  const signingKey = FAKE_FAL_SIGNING_KEY;
  const forgeryKey = generateKeyPairSync('ed25519');
  const jwk = { ...signingKey.publicKey.export({ format: 'jwk' }), kid: 'fake-fal-1', use: 'sig', alg: 'EdDSA' };

  const faults = {
    fail: [] as { endpoint?: string; status: number; message: string }[],
    stall: [] as { endpoint?: string }[],
    nsfw: 0,
    /** Requests left to pass unflagged before the nsfwNext ones (nsfwNext's `after`). */
    nsfwAfter: 0,
    /** Real photos flux-lora answers, by LoRA path ('*': any request). */
    photos: new Map<
      string,
      { person: Buffer[]; stranger: Buffer[]; strangerLeft: number; sequence: ('person' | 'stranger')[]; turn: number }
    >(),
    http: new Map<QueueOp, { status: number; left: number }>(),
    dropWebhooks: 0,
    queueStatus: { queuePosition: 0, logs: [] as string[] },
  };
  const take = <T extends { endpoint?: string }>(list: T[], endpointId: string): T | undefined => {
    const i = list.findIndex((f) => !f.endpoint || f.endpoint === endpointId);
    return i < 0 ? undefined : list.splice(i, 1)[0];
  };

  const flagNext = () => {
    if (faults.nsfw <= 0) return false;
    if (faults.nsfwAfter > 0) {
      faults.nsfwAfter--;
      return false;
    }
    faults.nsfw--;
    return true;
  };

  /** The photo a flux-lora request answers (control.photos), chosen when the request arrives. */
  const photoFor = (endpointId: string, input: Record<string, unknown>): Buffer | null => {
    if (endpointId !== 'fal-ai/flux-lora') return null;
    const lora = Array.isArray(input.loras) ? (input.loras[0] as { path?: unknown } | undefined)?.path : undefined;
    const set = (typeof lora === 'string' ? faults.photos.get(lora) : undefined) ?? faults.photos.get('*');
    if (!set) return null;
    const turn = set.turn++;
    const next = set.sequence.shift();
    if (next)
      return (next === 'stranger' ? set.stranger : set.person)[turn % (next === 'stranger' ? set.stranger : set.person).length] ?? null;
    if (set.strangerLeft > 0) {
      set.strangerLeft--;
      return set.stranger[turn % set.stranger.length] ?? null;
    }
    return set.person[turn % set.person.length] ?? null;
  };

  let base = '';
  const fakeFetch: typeof fetch = (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const prefix = FAL_HOST_PREFIX[url.host];
    const target = prefix ? `${base}${prefix}${url.pathname}${url.search}` : url.href;
    return fetch(input instanceof Request ? new Request(target, input) : target, init);
  };

  const host = (bytes: Buffer, contentType: string, fileName: string) => {
    const path = `/cdn/files/${randomUUID()}/${encodeURIComponent(fileName)}`;
    files.set(path, { contentType, bytes });
    return `${base}${path}`;
  };

  function injectedError(op: QueueOp): Response | null {
    const fault = faults.http.get(op);
    if (!fault || fault.left <= 0) return null;
    fault.left -= 1;
    return json({ detail: `Injected HTTP ${fault.status}` }, fault.status);
  }

  const authorised = (req: Request) => req.headers.get('authorization') === `Key ${key}`;

  async function readInput(req: Request): Promise<Record<string, unknown> | Response> {
    if (!req.headers.get('content-type')?.startsWith('application/json')) {
      return json({ detail: [{ loc: ['body'], msg: 'Input should be a valid JSON object', type: 'model_attributes_type' }] }, 422);
    }
    const text = await req.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return json({ detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] }, 422);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return json({ detail: [{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }] }, 422);
    }
    return body as Record<string, unknown>;
  }

  /** A model call fal would take (no injected error, the key, a known endpoint, valid input), or its refusal. */
  async function acceptCall(
    req: Request,
    op: 'run' | 'submit',
    endpointId: string,
  ): Promise<{ handler: EndpointHandler; input: Record<string, unknown> } | Response> {
    const injected = injectedError(op);
    if (injected) return injected;
    if (!authorised(req)) return json({ detail: 'Unauthorized' }, 401);
    const handler = endpoints.get(endpointId);
    if (!handler) return json({ detail: `Application '${endpointId}' not found` }, 404);
    const input = await readInput(req);
    if (input instanceof Response) return input;
    const problems = handler.validate(input);
    if (problems.length) return json({ detail: problems }, 422);
    return { handler, input };
  }

  function settle(id: string) {
    let entry = settledPromises.get(id);
    if (!entry) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      entry = { promise, resolve };
      settledPromises.set(id, entry);
    }
    return entry;
  }

  async function runRequest(request: QueueRequest): Promise<void> {
    const handler = endpoints.get(request.endpointId)!;
    await delay(latencyMs / 2);
    if (request.cancelled) return;
    request.state = 'IN_PROGRESS';
    if (request.stalled) return;
    await finish(request, handler);
  }

  async function finish(request: QueueRequest, handler: EndpointHandler): Promise<void> {
    const failure = take(faults.fail, request.endpointId);
    const started = Date.now();
    try {
      if (failure) throw new FakeModelError(failure.status, failure.message);
      request.output = await handler.run(request.input, {
        requestId: request.id,
        host,
        fetch: fakeFetch,
        nsfw: request.nsfw,
        photo: request.photo,
      });
    } catch (err) {
      request.error = err instanceof FakeModelError ? err : new FakeModelError(500, (err as Error).message, 'internal_error');
    }
    await delay(Math.max(0, latencyMs / 2 - (Date.now() - started)));
    if (request.cancelled) return;
    request.state = 'COMPLETED';
    if (request.webhookUrl) {
      if (faults.dropWebhooks > 0) faults.dropWebhooks -= 1;
      else await deliverWebhook(request, {});
    }
    settle(request.id).resolve();
  }

  function webhookBody(request: QueueRequest): Record<string, unknown> {
    return request.error
      ? {
          request_id: request.id,
          gateway_request_id: request.id,
          status: 'ERROR',
          error: request.error.message,
          payload: { detail: request.error.message },
        }
      : { request_id: request.id, gateway_request_id: request.id, status: 'OK', payload: request.output };
  }

  async function deliverWebhook(request: QueueRequest, o: WebhookOptions & { url?: string }): Promise<WebhookDelivery> {
    const url = o.url ?? request.webhookUrl;
    if (!url) throw new Error(`request ${request.id} has no webhook URL`);
    const signedBody = JSON.stringify(o.body ?? webhookBody(request));
    const body = o.tamperBody ? signedBody.replace('"status":"OK"', '"status":"ERROR"').replace(/}$/, ',"tampered":true}') : signedBody;
    const timestamp = String(o.timestamp ?? Math.floor(Date.now() / 1000));
    const message = `${request.id}\n${USER_ID}\n${timestamp}\n${createHash('sha256').update(signedBody).digest('hex')}`;
    const signer: KeyObject = o.forged ? forgeryKey.privateKey : signingKey.privateKey;
    const headers = {
      'content-type': 'application/json',
      'x-fal-webhook-request-id': request.id,
      'x-fal-webhook-user-id': USER_ID,
      'x-fal-webhook-timestamp': timestamp,
      'x-fal-webhook-signature': sign(null, Buffer.from(message), signer).toString('hex'),
    };
    let status = 0;
    // fal retries failed deliveries (10 times over 2 hours); a short version of that here.
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(5_000) });
        status = res.status;
        await res.arrayBuffer();
        if (res.ok || o.forged || o.tamperBody || o.timestamp !== undefined) break;
      } catch {
        status = 0;
      }
      await delay(50);
    }
    const delivery: WebhookDelivery = { url, requestId: request.id, body, headers, status, forged: !!o.forged };
    webhooks.push(delivery);
    return delivery;
  }

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const path = url.pathname;
    received.push({
      method: req.method,
      path,
      search: url.search,
      headers: Object.fromEntries(req.headers),
      body: req.method === 'GET' || req.method === 'HEAD' ? '' : await req.clone().text(),
    });
    for (const extra of extraHandlers) {
      const answer = await extra(req.clone());
      if (answer) return answer;
    }

    // Files this fake hosts: outputs and uploads.
    if (path.startsWith('/cdn/') && req.method === 'GET') {
      const file = files.get(path);
      return file
        ? new Response(new Uint8Array(file.bytes), {
            headers: { 'content-type': file.contentType, 'content-length': String(file.bytes.length) },
          })
        : new Response('Not Found', { status: 404 });
    }
    if ((path === '/rest/.well-known/jwks.json' || path === '/rest/.well-known/jwks') && req.method === 'GET') {
      return json({ keys: [jwk] });
    }
    if (path === '/rest/storage/upload/initiate' && req.method === 'POST') {
      const injected = injectedError('upload');
      if (injected) return injected;
      if (!authorised(req)) return json({ detail: 'Unauthorized' }, 401);
      if (url.searchParams.get('storage_type') !== 'fal-cdn-v3') return json({ detail: 'Unknown storage_type' }, 400);
      const body = await readInput(req);
      if (body instanceof Response) return body;
      const missing = ['content_type', 'file_name'].filter((f) => typeof body[f] !== 'string' || !body[f]);
      if (missing.length) return json({ detail: missing.map((f) => ({ loc: ['body', f], msg: 'Field required', type: 'missing' })) }, 422);
      const token = randomUUID();
      pendingUploads.set(token, { contentType: body.content_type as string, fileName: body.file_name as string });
      return json({
        upload_url: `${base}/upload/${token}`,
        file_url: `https://v3.fal.media/files/${token}/${encodeURIComponent(body.file_name as string)}`,
      });
    }
    const upload = path.match(/^\/upload\/([0-9a-f-]{36})$/);
    if (upload && req.method === 'PUT') {
      const pending = pendingUploads.get(upload[1]!);
      if (!pending) return new Response('No such upload', { status: 404 });
      if (req.headers.get('content-type') !== pending.contentType)
        return new Response('Content-Type differs from the initiated upload', { status: 400 });
      const bytes = Buffer.from(await req.arrayBuffer());
      if (bytes.length === 0) return new Response('Empty body', { status: 400 });
      pendingUploads.delete(upload[1]!);
      files.set(`/cdn/files/${upload[1]}/${encodeURIComponent(pending.fileName)}`, { contentType: pending.contentType, bytes });
      return new Response(null, { status: 200 });
    }

    if (path.startsWith('/run/') && req.method === 'POST') {
      const call = await acceptCall(req, 'run', path.slice('/run/'.length));
      if (call instanceof Response) return call;
      const { handler, input } = call;
      const requestId = randomUUID();
      try {
        const output = await handler.run(input, {
          requestId,
          host,
          fetch: fakeFetch,
          nsfw: flagNext(),
          photo: photoFor(path.slice('/run/'.length), input),
        });
        return json(output, 200, { 'x-fal-request-id': requestId });
      } catch (err) {
        const e = err instanceof FakeModelError ? err : new FakeModelError(500, (err as Error).message);
        return json({ detail: errorDetail(e) }, e.status, { 'x-fal-request-id': requestId });
      }
    }

    if (!path.startsWith('/queue/')) return json({ detail: 'Not Found' }, 404);
    const queuePath = path.slice('/queue/'.length);
    const byId = queuePath.match(/^([^/]+)\/([^/]+)\/requests\/([^/]+)(\/status|\/cancel)?$/);
    if (byId) {
      const [, owner, alias, id, tail] = byId;
      const op: QueueOp = tail === '/status' ? 'status' : tail === '/cancel' ? 'cancel' : 'result';
      const expectedMethod = op === 'cancel' ? 'PUT' : 'GET';
      if (req.method !== expectedMethod) return json({ detail: 'Method Not Allowed' }, 405);
      const injected = injectedError(op);
      if (injected) return injected;
      if (!authorised(req)) return json({ detail: 'Unauthorized' }, 401);
      const request = requests.get(id!);
      // The status and result paths carry only owner/app: a subpath here is a client bug fal answers 404 to.
      if (!request || request.endpointId.split('/').slice(0, 2).join('/') !== `${owner}/${alias}`) {
        return op === 'cancel' ? json({ status: 'NOT_FOUND' }, 404) : json({ detail: 'Request not found' }, 404);
      }
      if (op === 'status') {
        const asked = url.searchParams.get('logs') === '1';
        const logs = asked ? [] : null;
        if (request.state === 'IN_QUEUE') {
          const position = faults.queueStatus.queuePosition;
          return json({ status: 'IN_QUEUE', queue_position: position, logs, response_url: responseUrl(request) }, 202);
        }
        if (request.state === 'IN_PROGRESS') {
          const lines = asked
            ? faults.queueStatus.logs.map((message) => ({ message, level: 'INFO', source: 'USER', timestamp: new Date().toISOString() }))
            : null;
          return json({ status: 'IN_PROGRESS', logs: lines, response_url: responseUrl(request) }, 202);
        }
        return json(
          request.error
            ? {
                status: 'COMPLETED',
                logs,
                response_url: responseUrl(request),
                error: request.error.message,
                error_type: request.error.errorType,
              }
            : { status: 'COMPLETED', logs, response_url: responseUrl(request), metrics: { inference_time: latencyMs / 1000 } },
          200,
        );
      }
      if (op === 'cancel') {
        cancelled.push(request.id);
        if (request.state === 'COMPLETED') return json({ status: 'ALREADY_COMPLETED' }, 400);
        request.cancelled = true;
        request.state = 'COMPLETED';
        request.error = new FakeModelError(400, 'Request was cancelled by the user', 'cancelled');
        settle(request.id).resolve();
        return json({ status: 'CANCELLATION_REQUESTED' }, 202);
      }
      if (request.state !== 'COMPLETED') return json({ detail: 'Request is still in progress' }, 400);
      if (request.error) return json({ detail: errorDetail(request.error) }, request.error.status, { 'x-fal-request-id': request.id });
      return json(request.output, 200, { 'x-fal-request-id': request.id });
    }

    if (req.method !== 'POST') return json({ detail: 'Method Not Allowed' }, 405);
    const endpointId = queuePath;
    const call = await acceptCall(req, 'submit', endpointId);
    if (call instanceof Response) return call;
    const { input } = call;
    const webhookUrl = url.searchParams.get('fal_webhook') ?? undefined;
    if (webhookUrl && !/^https?:\/\//.test(webhookUrl)) {
      return json({ detail: [{ loc: ['query', 'fal_webhook'], msg: 'Input should be a valid URL', type: 'url_parsing' }] }, 422);
    }
    const request: QueueRequest = {
      id: randomUUID(),
      endpointId,
      input,
      state: 'IN_QUEUE',
      webhookUrl,
      cancelled: false,
      stalled: !!take(faults.stall, endpointId),
      nsfw: flagNext(),
      photo: photoFor(endpointId, input),
    };
    requests.set(request.id, request);
    settle(request.id);
    void runRequest(request);
    const reqUrl = responseUrl(request);
    return json({
      status: 'IN_QUEUE',
      request_id: request.id,
      response_url: reqUrl,
      status_url: `${reqUrl}/status`,
      cancel_url: `${reqUrl}/cancel`,
      queue_position: 0,
    });
  }

  function responseUrl(request: QueueRequest): string {
    return `https://queue.fal.run/${request.endpointId.split('/').slice(0, 2).join('/')}/requests/${request.id}`;
  }

  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: handle, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeFal = {
    url: base,
    fetch: fakeFetch,
    key,
    jwksUrl: 'https://rest.alpha.fal.ai/.well-known/jwks.json',
    received,
    requests,
    cancelled,
    webhooks,
    settled: (id) => settle(id).promise,
    registerEndpoint: (id, handler) => void endpoints.set(id, handler),
    control: {
      failNext: (o = {}) => {
        for (let i = 0; i < (o.times ?? 1); i++)
          faults.fail.push({ endpoint: o.endpoint, status: o.status ?? 500, message: o.message ?? 'Model failed' });
      },
      stallNext: (o = {}) => {
        for (let i = 0; i < (o.times ?? 1); i++) faults.stall.push({ endpoint: o.endpoint });
      },
      release: async (id) => {
        const request = requests.get(id);
        if (!request || !request.stalled || request.state === 'COMPLETED') throw new Error(`request ${id} is not stalled`);
        request.stalled = false;
        await finish(request, endpoints.get(request.endpointId)!);
      },
      nsfwNext: (o = {}) => {
        faults.nsfw += o.times ?? 1;
        faults.nsfwAfter = o.after ?? 0;
      },
      photos: (set) => {
        if (!set) return void faults.photos.clear();
        faults.photos.set(set.lora ?? '*', {
          person: set.person,
          stranger: set.stranger,
          strangerLeft: set.strangerNext ?? 0,
          sequence: [...(set.sequence ?? [])],
          turn: 0,
        });
      },
      strangerNext: (times = 1, lora = '*') => {
        const set = faults.photos.get(lora);
        if (!set) throw new Error('control.photos first: the fake has no stranger to send');
        set.strangerLeft += times;
      },
      httpErrorNext: (op, status, times = 1) => void faults.http.set(op, { status, left: times }),
      dropWebhooks: (times = 1) => void (faults.dropWebhooks += times),
      sendWebhook: (id, o = {}) => {
        const request = requests.get(id);
        if (!request) throw new Error(`no request ${id}`);
        return deliverWebhook(request, o);
      },
      setLatency: (ms) => void (latencyMs = ms),
      queueStatus: (set) => void (faults.queueStatus = { queuePosition: set?.queuePosition ?? 0, logs: [...(set?.logs ?? [])] }),
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
  fake.registerEndpoint('fal-ai/flux-lora', fluxLora);
  fake.registerEndpoint('fal-ai/flux-lora-fast-training', fluxLoraFastTraining);
  fake.registerEndpoint('fal-ai/flux-lora/image-to-image', fluxLoraImageToImage);
  fake.registerEndpoint('fal-ai/clarity-upscaler', clarityUpscaler);
  return fake;
}

/**
 * A failed model's result body: fal's content checker answers pydantic-style with the type
 * `content_policy_violation`; other model errors carry their message.
 */
function errorDetail(error: FakeModelError): unknown {
  return error.errorType === 'content_policy_violation' ? [{ loc: ['body'], msg: error.message, type: error.errorType }] : error.message;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---- Input checks in pydantic's words -------------------------------------------------------------

type Check = (input: Record<string, unknown>, out: ValidationDetail[]) => void;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

function required(field: string): Check {
  return (input, out) => {
    if (input[field] === undefined || input[field] === null) out.push({ loc: ['body', field], msg: 'Field required', type: 'missing' });
  };
}

function str(field: string, opts: { url?: boolean } = {}): Check {
  return (input, out) => {
    const v = input[field];
    if (v === undefined) return;
    if (typeof v !== 'string') out.push({ loc: ['body', field], msg: 'Input should be a valid string', type: 'string_type' });
    else if (opts.url && !/^https?:\/\/|^data:/.test(v))
      out.push({ loc: ['body', field], msg: 'Input should be a valid URL', type: 'url_parsing' });
  };
}

function bool(field: string): Check {
  return (input, out) => {
    const v = input[field];
    if (v !== undefined && typeof v !== 'boolean')
      out.push({ loc: ['body', field], msg: 'Input should be a valid boolean', type: 'bool_type' });
  };
}

function num(field: string, opts: { int?: boolean; ge?: number; le?: number; nullable?: boolean }): Check {
  return (input, out) => checkNumber(input[field], ['body', field], opts, out);
}

function checkNumber(
  v: unknown,
  loc: (string | number)[],
  opts: { int?: boolean; ge?: number; le?: number; gt?: number; nullable?: boolean },
  out: ValidationDetail[],
) {
  if (v === undefined || (v === null && opts.nullable)) return;
  if (typeof v !== 'number' || Number.isNaN(v))
    return void out.push({
      loc,
      msg: `Input should be a valid ${opts.int ? 'integer' : 'number'}`,
      type: opts.int ? 'int_type' : 'float_type',
    });
  if (opts.int && !isInt(v))
    return void out.push({ loc, msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float' });
  if (opts.ge !== undefined && v < opts.ge)
    out.push({ loc, msg: `Input should be greater than or equal to ${opts.ge}`, type: 'greater_than_equal' });
  if (opts.gt !== undefined && v <= opts.gt) out.push({ loc, msg: `Input should be greater than ${opts.gt}`, type: 'greater_than' });
  if (opts.le !== undefined && v > opts.le)
    out.push({ loc, msg: `Input should be less than or equal to ${opts.le}`, type: 'less_than_equal' });
}

function oneOf(field: string, values: string[]): Check {
  return (input, out) => {
    const v = input[field];
    if (v !== undefined && !values.includes(v as string)) {
      out.push({ loc: ['body', field], msg: `Input should be ${values.map((x) => `'${x}'`).join(' or ')}`, type: 'enum' });
    }
  };
}

const IMAGE_SIZE_PRESETS: Record<string, { width: number; height: number }> = {
  square_hd: { width: 1024, height: 1024 },
  square: { width: 512, height: 512 },
  portrait_4_3: { width: 768, height: 1024 },
  portrait_16_9: { width: 576, height: 1024 },
  landscape_4_3: { width: 1024, height: 768 },
  landscape_16_9: { width: 1024, height: 576 },
};
const MAX_SIDE = 14142;

const imageSize: Check = (input, out) => {
  const v = input.image_size;
  if (v === undefined || (typeof v === 'string' && v in IMAGE_SIZE_PRESETS)) return;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return void out.push({
      loc: ['body', 'image_size'],
      msg: `Input should be a valid ImageSize or one of ${Object.keys(IMAGE_SIZE_PRESETS).join(', ')}`,
      type: 'union_tag_invalid',
    });
  }
  for (const side of ['width', 'height'] as const) {
    const s = (v as Record<string, unknown>)[side];
    if (s === undefined) continue;
    checkNumber(s, ['body', 'image_size', side], { int: true, gt: 0, le: MAX_SIDE }, out);
  }
};

const loras: Check = (input, out) => {
  const v = input.loras;
  if (v === undefined) return;
  if (!Array.isArray(v)) return void out.push({ loc: ['body', 'loras'], msg: 'Input should be a valid list', type: 'list_type' });
  v.forEach((l, i) => {
    if (typeof l !== 'object' || l === null)
      return void out.push({ loc: ['body', 'loras', i], msg: 'Input should be a valid dictionary', type: 'dict_type' });
    const lora = l as Record<string, unknown>;
    if (typeof lora.path !== 'string' || !lora.path)
      out.push({ loc: ['body', 'loras', i, 'path'], msg: 'Field required', type: 'missing' });
    checkNumber(lora.scale, ['body', 'loras', i, 'scale'], { ge: 0, le: 4 }, out);
  });
};

function validator(checks: Check[]): (input: Record<string, unknown>) => ValidationDetail[] {
  return (input) => {
    const out: ValidationDetail[] = [];
    for (const check of checks) check(input, out);
    return out;
  };
}

/** fal-ai/flux-lora: real image bytes of the asked size and format, hosted by the fake. */
export const fluxLora: EndpointHandler = {
  validate: validator([
    required('prompt'),
    str('prompt'),
    imageSize,
    loras,
    num('seed', { int: true, nullable: true }),
    num('num_inference_steps', { int: true, ge: 1, le: 50 }),
    num('guidance_scale', { ge: 0, le: 35 }),
    num('num_images', { int: true, ge: 1, le: 4 }),
    bool('enable_safety_checker'),
    oneOf('output_format', ['jpeg', 'png']),
    bool('sync_mode'),
  ]),
  async run(input, ctx) {
    const size = input.image_size ?? 'landscape_4_3';
    const { width, height } =
      typeof size === 'string'
        ? IMAGE_SIZE_PRESETS[size]!
        : { width: (size as Record<string, number>).width ?? 512, height: (size as Record<string, number>).height ?? 512 };
    const format = (input.output_format as 'jpeg' | 'png' | undefined) ?? 'jpeg';
    const count = (input.num_images as number | undefined) ?? 1;
    const seed = (input.seed as number | null | undefined) ?? Math.floor(Math.random() * 2147483647);
    const digest = createHash('sha256').update(`${input.prompt}:${seed}`).digest();
    const images = [];
    for (let i = 0; i < count; i++) {
      // A flagged image comes back black, as fal's safety checker returns it.
      const background = ctx.nsfw ? { r: 0, g: 0, b: 0 } : { r: digest[i * 3]!, g: digest[i * 3 + 1]!, b: digest[i * 3 + 2]! };
      const img =
        ctx.photo && !ctx.nsfw
          ? sharp(ctx.photo).resize({ width, height, fit: 'contain', background: { r: 120, g: 120, b: 124 } })
          : sharp({ create: { width, height, channels: 3, background } });
      const bytes = await (format === 'png' ? img.png() : img.jpeg()).toBuffer();
      const contentType = `image/${format}`;
      images.push({
        url: ctx.host(bytes, contentType, `${ctx.requestId}-${i}.${format === 'png' ? 'png' : 'jpg'}`),
        width,
        height,
        content_type: contentType,
      });
    }
    return {
      images,
      timings: { inference: 0.01 },
      seed,
      has_nsfw_concepts: images.map(() => ctx.nsfw),
      prompt: input.prompt,
    };
  },
};

/** fal-ai/flux-lora-fast-training: reads the zip like fal does and answers a LoRA file it hosts. */
export const fluxLoraFastTraining: EndpointHandler = {
  validate: validator([
    required('images_data_url'),
    str('images_data_url', { url: true }),
    str('trigger_word'),
    bool('create_masks'),
    num('steps', { int: true, ge: 1, le: 10000 }),
    bool('is_style'),
  ]),
  async run(input, ctx) {
    const res = await ctx.fetch(input.images_data_url as string);
    if (!res.ok) throw new FakeModelError(422, `Could not download images_data_url (HTTP ${res.status})`, 'file_download_error');
    const zip = Buffer.from(await res.arrayBuffer());
    if (zip.subarray(0, 4).toString('binary') !== 'PK\x03\x04')
      throw new FakeModelError(422, 'images_data_url is not a zip archive', 'invalid_archive');
    const lora = Buffer.concat([Buffer.from('fake-safetensors:'), createHash('sha256').update(zip).digest()]);
    const config = Buffer.from(JSON.stringify({ trigger_word: input.trigger_word ?? null, steps: input.steps ?? 1000 }));
    return {
      diffusers_lora_file: {
        url: ctx.host(lora, 'application/octet-stream', 'pytorch_lora_weights.safetensors'),
        content_type: 'application/octet-stream',
        file_name: 'pytorch_lora_weights.safetensors',
        file_size: lora.length,
      },
      config_file: {
        url: ctx.host(config, 'application/json', 'config.json'),
        content_type: 'application/json',
        file_name: 'config.json',
        file_size: config.length,
      },
    };
  },
};

/** Reads an input image the way fal does: a 422 `file_download_error` when the URL cannot be read. */
async function readImage(ctx: RunContext, url: string): Promise<{ data: Buffer; width: number; height: number }> {
  const res = await ctx.fetch(url);
  if (!res.ok) throw new FakeModelError(422, `Could not download image_url (HTTP ${res.status})`, 'file_download_error');
  const data = Buffer.from(await res.arrayBuffer());
  const meta = await sharp(data)
    .metadata()
    .catch(() => null);
  if (!meta?.width || !meta.height) throw new FakeModelError(422, 'image_url is not an image', 'image_load_error');
  return { data, width: meta.width, height: meta.height };
}

const FLAGGED = 'The content could not be processed because it contained material flagged by a content checker.';

/**
 * fal-ai/flux-lora/image-to-image: the flux-lora input plus `image_url` and `strength` (0–1). Answers like
 * flux-lora: an image of the asked size (the source tinted by the prompt's colour, `strength` of it), with
 * `has_nsfw_concepts` (a flagged image comes back black).
 */
export const fluxLoraImageToImage: EndpointHandler = {
  validate: validator([
    required('image_url'),
    str('image_url', { url: true }),
    num('strength', { ge: 0, le: 1 }),
    ...[
      required('prompt'),
      str('prompt'),
      imageSize,
      loras,
      num('seed', { int: true, nullable: true }),
      num('num_inference_steps', { int: true, ge: 1, le: 50 }),
      num('guidance_scale', { ge: 0, le: 35 }),
      num('num_images', { int: true, ge: 1, le: 4 }),
      bool('enable_safety_checker'),
      oneOf('output_format', ['jpeg', 'png']),
    ],
  ]),
  async run(input, ctx) {
    const source = await readImage(ctx, input.image_url as string);
    const size = input.image_size as { width?: number; height?: number } | undefined;
    const width = size?.width ?? source.width;
    const height = size?.height ?? source.height;
    const format = (input.output_format as 'jpeg' | 'png' | undefined) ?? 'jpeg';
    const seed = (input.seed as number | null | undefined) ?? Math.floor(Math.random() * 2147483647);
    const strength = (input.strength as number | undefined) ?? 0.85;
    const digest = createHash('sha256').update(`${input.prompt}:${seed}`).digest();
    const tint = { r: digest[0]!, g: digest[1]!, b: digest[2]!, alpha: strength };
    const img = ctx.nsfw
      ? sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 } } })
      : sharp(source.data)
          .resize(width, height, { fit: 'cover' })
          .composite([{ input: { create: { width, height, channels: 4, background: tint } } }]);
    const bytes = await (format === 'png' ? img.png() : img.jpeg()).toBuffer();
    const contentType = `image/${format}`;
    const image = {
      url: ctx.host(bytes, contentType, `${ctx.requestId}-0.${format === 'png' ? 'png' : 'jpg'}`),
      width,
      height,
      content_type: contentType,
    };
    return { images: [image], timings: { inference: 0.01 }, seed, has_nsfw_concepts: [ctx.nsfw], prompt: input.prompt };
  },
};

/**
 * fal-ai/clarity-upscaler: `image_url`, `upscale_factor` (1–4), `creativity` and `resemblance` (0–1) and the
 * rest; answers `{image, seed, timings}` with the source resized by the factor. Its output has no
 * has_nsfw_concepts: flagged content fails the request with a `content_policy_violation`.
 */
export const clarityUpscaler: EndpointHandler = {
  validate: validator([
    required('image_url'),
    str('image_url', { url: true }),
    str('prompt'),
    str('negative_prompt'),
    num('upscale_factor', { ge: 1, le: 4 }),
    num('creativity', { ge: 0, le: 1 }),
    num('resemblance', { ge: 0, le: 1 }),
    num('guidance_scale', { ge: 0, le: 20 }),
    num('num_inference_steps', { int: true, ge: 4, le: 50 }),
    num('seed', { int: true, nullable: true }),
    bool('enable_safety_checker'),
  ]),
  async run(input, ctx) {
    if (ctx.nsfw && input.enable_safety_checker !== false) throw new FakeModelError(422, FLAGGED, 'content_policy_violation');
    const source = await readImage(ctx, input.image_url as string);
    const factor = (input.upscale_factor as number | undefined) ?? 2;
    const width = Math.round(source.width * factor);
    const height = Math.round(source.height * factor);
    const bytes = await sharp(source.data).resize(width, height, { fit: 'fill' }).png().toBuffer();
    const seed = (input.seed as number | null | undefined) ?? Math.floor(Math.random() * 2147483647);
    const file_name = `${ctx.requestId}.png`;
    return {
      image: { url: ctx.host(bytes, 'image/png', file_name), content_type: 'image/png', file_name, file_size: bytes.length, width, height },
      seed,
      timings: { inference: 0.01 },
    };
  },
};
