import { randomUUID } from 'node:crypto';

/**
 * fal.ai's storage upload and Florence-2 caption queue, as a web request handler for a fake server on
 * loopback. It checks what it receives as strictly as fal does (auth header, JSON body, the image URL
 * being one of its own uploads, status paths without the endpoint's subpath) so that a client drifting
 * from shared/contracts/fal.md fails here. Mount it in the shared fake: `startFakeFal({ handlers: [captions.handle] })`
 * (it answers null for paths it does not own, and takes storage uploads so it can check the image URL).
 */

const CAPTION_APP = 'fal-ai/florence-2-large';
const CAPTION_ENDPOINTS = ['caption', 'more-detailed-caption'];

export interface FalCaptionRequest {
  endpoint: string;
  input: unknown;
}

export interface FalCaptionFake {
  handle(req: Request): Promise<Response | null>;
  /** Uploaded files by their fal URL. */
  uploads: Map<string, { contentType: string; bytes: Buffer }>;
  /** Caption requests submitted, in order. */
  submitted: FalCaptionRequest[];
  /** Makes the next caption request fail as a model error (COMPLETED with error; result answers `status`). */
  failNext(status: number, detail: string): void;
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function unprocessable(loc: string[], msg: string): Response {
  return json({ detail: [{ loc, msg, type: 'value_error' }] }, 422);
}

export function createFalCaptionFake(opts: { key: string }): FalCaptionFake {
  const uploads = new Map<string, { contentType: string; bytes: Buffer }>();
  const pendingUploads = new Map<string, { contentType: string; fileUrl: string }>();
  const submitted: FalCaptionRequest[] = [];
  const jobs = new Map<string, { endpoint: string; imageUrl: string; polls: number; failure?: { status: number; detail: string } }>();
  let nextFailure: { status: number; detail: string } | undefined;

  const authorised = (req: Request) => req.headers.get('authorization') === `Key ${opts.key}`;

  async function handle(req: Request): Promise<Response | null> {
    const url = new URL(req.url);
    const path = url.pathname;

    // Storage: initiate, then PUT the bytes to the signed upload URL it hands out.
    if (path === '/rest/storage/upload/initiate' && req.method === 'POST') {
      if (!authorised(req)) return json({ detail: 'Unauthorized' }, 401);
      if (url.searchParams.get('storage_type') !== 'fal-cdn-v3') return json({ detail: 'unknown storage_type' }, 400);
      const body = (await req.json().catch(() => null)) as { content_type?: unknown; file_name?: unknown } | null;
      if (typeof body?.content_type !== 'string' || typeof body.file_name !== 'string') {
        return unprocessable(['body', 'content_type'], 'field required');
      }
      const id = randomUUID();
      const fileUrl = `https://v3.fal.media/files/${id}/${body.file_name}`;
      pendingUploads.set(id, { contentType: body.content_type, fileUrl });
      return json({ upload_url: `${url.origin}/upload/${id}`, file_url: fileUrl });
    }
    const upload = path.match(/^\/upload\/([0-9a-f-]+)$/);
    if (upload && req.method === 'PUT') {
      const pending = pendingUploads.get(upload[1]);
      if (!pending) return new Response('no such upload', { status: 404 });
      if (req.headers.get('content-type') !== pending.contentType)
        return new Response('content type differs from initiate', { status: 400 });
      const bytes = Buffer.from(await req.arrayBuffer());
      if (bytes.length === 0) return new Response('empty body', { status: 400 });
      pendingUploads.delete(upload[1]);
      uploads.set(pending.fileUrl, { contentType: pending.contentType, bytes });
      return new Response(null, { status: 200 });
    }

    if (!path.startsWith(`/queue/${CAPTION_APP}/`)) return null;
    if (!authorised(req)) return json({ detail: 'Unauthorized' }, 401);
    const rest = path.slice(`/queue/${CAPTION_APP}/`.length);

    if (req.method === 'POST' && CAPTION_ENDPOINTS.includes(rest)) {
      if (!req.headers.get('content-type')?.startsWith('application/json')) return json({ detail: 'expected JSON' }, 415);
      const input = (await req.json().catch(() => null)) as { image_url?: unknown } | null;
      submitted.push({ endpoint: `${CAPTION_APP}/${rest}`, input });
      if (typeof input?.image_url !== 'string') return unprocessable(['body', 'image_url'], 'field required');
      if (!uploads.has(input.image_url)) return unprocessable(['body', 'image_url'], 'could not download the file');
      const id = randomUUID();
      jobs.set(id, { endpoint: rest, imageUrl: input.image_url, polls: 0, failure: nextFailure });
      nextFailure = undefined;
      const base = `https://queue.fal.run/${CAPTION_APP}/requests/${id}`;
      return json({
        status: 'IN_QUEUE',
        request_id: id,
        response_url: base,
        status_url: `${base}/status`,
        cancel_url: `${base}/cancel`,
        queue_position: 0,
      });
    }

    const status = rest.match(/^requests\/([0-9a-f-]+)\/status$/);
    if (status && req.method === 'GET') {
      const job = jobs.get(status[1]);
      if (!job) return json({ detail: 'Request not found' }, 404);
      const logs = url.searchParams.get('logs') === '1' ? [] : null;
      job.polls++;
      if (job.polls === 1) return json({ status: 'IN_PROGRESS', logs }, 202);
      return json(
        job.failure
          ? { status: 'COMPLETED', logs, error: job.failure.detail, error_type: 'model_error' }
          : { status: 'COMPLETED', logs, metrics: { inference_time: 0.4 } },
        200,
      );
    }

    const result = rest.match(/^requests\/([0-9a-f-]+)$/);
    if (result && req.method === 'GET') {
      const job = jobs.get(result[1]);
      if (!job) return json({ detail: 'Request not found' }, 404);
      if (job.polls < 2) return json({ detail: 'Request is still in progress' }, 400);
      if (job.failure) return json({ detail: job.failure.detail }, job.failure.status, { 'x-fal-request-id': result[1] });
      const image = uploads.get(job.imageUrl)!;
      const results =
        job.endpoint === 'caption'
          ? `A photo (${image.bytes.length} bytes of ${image.contentType}).`
          : `The image shows a detailed scene. It was ${image.bytes.length} bytes of ${image.contentType}. The light is even.`;
      return json({ results }, 200, { 'x-fal-request-id': result[1] });
    }
    return json({ detail: 'Not found' }, 404);
  }

  return {
    handle,
    uploads,
    submitted,
    failNext(status, detail) {
      nextFailure = { status, detail };
    },
  };
}
