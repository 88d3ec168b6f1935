import { Worker } from 'node:worker_threads';
import type { FaceEmbedding } from './face-embedding.ts';
import type { ImageAnalysis, PhotoMeasures } from './types.ts';
import type { WorkerRequest, WorkerResponse } from './vision-worker.ts';

/** Why an analysis failed: the image could not be read, the analyser ran out of time, or it broke. */
export class VisionError extends Error {
  constructor(
    message: string,
    readonly kind: 'bad-image' | 'timeout' | 'failed',
  ) {
    super(message);
    this.name = 'VisionError';
  }
}

export interface VisionAnalyser {
  /** Loads the models (human's and the NSFW classifier) now instead of on the first image. */
  warm(): Promise<void>;
  analyse(image: Buffer | Uint8Array, opts?: { timeoutMs?: number }): Promise<ImageAnalysis>;
  /** Measures a training photo (faces, light, blur, hash, NSFW scores); a bad file is reported, not thrown. */
  check(image: Buffer | Uint8Array, opts?: { timeoutMs?: number }): Promise<PhotoMeasures>;
  /**
   * The photo's face embedding (server/vision/face-embedding.ts): how many faces count as people, and the
   * main face's embedding when exactly one does. A file that is not a readable image throws a 'bad-image'.
   */
  faceEmbedding(image: Buffer | Uint8Array, opts?: { timeoutMs?: number }): Promise<FaceEmbedding>;
  /** Images sent to the worker and not answered yet (queued or in analysis). */
  queueLength(): number;
  close(): Promise<void>;
}

export interface VisionAnalyserOptions {
  /** Per image, including the first model load (~1 s) and any wait behind earlier images. */
  timeoutMs?: number;
}

interface Pending {
  resolve(value: WorkerResponse): void;
  reject(err: Error): void;
}

interface Running {
  worker: Worker;
  pending: Map<number, Pending>;
}

/**
 * Runs the analyser in one worker thread, started on first use and reused, so the server's event loop keeps
 * answering while models load and images are analysed. A timed-out or crashed worker is thrown away and
 * the next call starts a fresh one.
 */
export function createVisionAnalyser(opts: VisionAnalyserOptions = {}): VisionAnalyser {
  const defaultTimeout = opts.timeoutMs ?? 30_000;
  let current: Running | undefined;
  let nextId = 1;

  function start(): Running {
    // The worker file is TypeScript: Node 24 strips its types natively. Each photo leaves megabytes of short-lived
    // buffers (the photo decoded, as floats, the models' outputs); a small young generation collects them
    // before they pile up (with V8's default the worker's resident memory grew ~60 MB more over 20 checks).
    const worker = new Worker(new URL('./vision-worker.ts', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    const run: Running = { worker, pending: new Map() };
    const failAll = (err: Error) => {
      if (current === run) current = undefined;
      for (const p of run.pending.values()) p.reject(err);
      run.pending.clear();
    };
    worker.unref();
    worker.on('message', (res: WorkerResponse) => {
      const p = run.pending.get(res.id);
      run.pending.delete(res.id);
      p?.resolve(res);
    });
    worker.on('error', (err) => failAll(new VisionError(`The image analyser stopped: ${err.message}`, 'failed')));
    worker.on('exit', (code) => failAll(new VisionError(`The image analyser exited (code ${code}).`, 'failed')));
    return run;
  }

  function call(req: WorkerRequest, timeoutMs: number, transfer: ArrayBuffer[] = []): Promise<WorkerResponse> {
    current ??= start();
    const run = current;
    return new Promise<WorkerResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        run.pending.delete(req.id);
        // A stuck model cannot be interrupted from outside: drop the whole worker and whatever waits on it.
        if (current === run) current = undefined;
        void run.worker.terminate();
        reject(new VisionError(`The image analyser took longer than ${Math.max(1, Math.round(timeoutMs / 1000))} s.`, 'timeout'));
      }, timeoutMs);
      run.pending.set(req.id, {
        resolve: (res) => {
          clearTimeout(timer);
          resolve(res);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      });
      run.worker.postMessage(req, transfer);
    });
  }

  async function send(kind: 'analyse' | 'check' | 'embed', image: Buffer | Uint8Array, timeoutMs = defaultTimeout) {
    // Copy into a buffer of our own so it can be moved to the worker without touching the caller's.
    const copy = new Uint8Array(image.byteLength);
    copy.set(image);
    const res = await call({ id: nextId++, kind, image: copy }, timeoutMs, [copy.buffer]);
    if (!res.ok)
      throw new VisionError(res.badImage ? `The image could not be read: ${res.error}` : res.error, res.badImage ? 'bad-image' : 'failed');
    return res;
  }

  return {
    async warm() {
      const res = await call({ id: nextId++, kind: 'load' }, Math.max(defaultTimeout, 60_000));
      if (!res.ok) throw new VisionError(res.error, 'failed');
    },
    async analyse(image, callOpts = {}) {
      const res = await send('analyse', image, callOpts.timeoutMs);
      if (!res.analysis) throw new VisionError('The image analyser answered without a result.', 'failed');
      return res.analysis;
    },
    async check(image, callOpts = {}) {
      const res = await send('check', image, callOpts.timeoutMs);
      if (!res.measures) throw new VisionError('The image analyser answered without a result.', 'failed');
      return res.measures;
    },
    async faceEmbedding(image, callOpts = {}) {
      const res = await send('embed', image, callOpts.timeoutMs);
      if (!res.face) throw new VisionError('The image analyser answered without a result.', 'failed');
      return res.face;
    },
    queueLength: () => current?.pending.size ?? 0,
    async close() {
      const run = current;
      current = undefined;
      await run?.worker.terminate();
    },
  };
}
