import { fork } from 'node:child_process';
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
  /** Images sent to the workers and not answered yet (queued or in analysis). */
  queueLength(): number;
  /** Which worker threads are running now, holding their models in memory. */
  running(): { photoChecks: boolean; captions: boolean };
  close(): Promise<void>;
}

export interface VisionAnalyserOptions {
  /** Per image, including the first model load (~1 s) and any wait behind earlier images. */
  timeoutMs?: number;
  /** How long the captions' worker stays after its last caption before it ends and gives its memory back. */
  captionIdleMs?: number;
}

/** Captions are occasional and their models (emotion, pose, objects) are the heavy part: see createVisionAnalyser. */
const CAPTION_IDLE_MS = 60_000;

interface Pending {
  resolve(value: WorkerResponse): void;
  reject(err: Error): void;
}

/** Where vision-worker.ts runs: a thread of this process, or a process of its own. */
interface VisionProcess {
  post(req: WorkerRequest, transfer: ArrayBuffer[]): void;
  end(): Promise<unknown>;
  on(event: 'message', listener: (res: WorkerResponse) => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
  on(event: 'exit', listener: (code: number | null) => void): void;
}

const WORKER_FILE = new URL('./vision-worker.ts', import.meta.url);

function workerThread(): VisionProcess {
  // The worker file is TypeScript: Node 24 strips its types natively. Each photo leaves megabytes of short-lived
  // buffers (the photo decoded, as floats, the models' outputs); a small young generation collects them
  // before they pile up (with V8's default the worker's resident memory grew ~60 MB more over 20 checks).
  const worker = new Worker(WORKER_FILE, { resourceLimits: { maxYoungGenerationSizeMb: 8 } });
  worker.unref();
  return {
    post: (req, transfer) => worker.postMessage(req, transfer),
    end: () => worker.terminate(),
    on: (event: string, listener: (...args: any[]) => void) => worker.on(event, listener),
  };
}

function childProcess(): VisionProcess {
  // Node 24 strips the file's types itself: no loader flags of this process (tsx, Vitest's) are passed on.
  const child = fork(WORKER_FILE, { serialization: 'advanced', execArgv: [] });
  child.unref();
  child.channel?.unref();
  return {
    post: (req) => child.send(req),
    end: () => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : (child.once('exit', resolve), child.kill('SIGKILL')))),
    on: (event: string, listener: (...args: any[]) => void) => child.on(event, listener),
  };
}

interface Running {
  worker: VisionProcess;
  pending: Map<number, Pending>;
  idle?: NodeJS.Timeout;
}

/** One vision process, started on first use; a timed-out or crashed one is thrown away and the next call starts a fresh one. */
function workerLane(opts: { start: () => VisionProcess; idleMs?: number }) {
  let current: Running | undefined;

  function start(): Running {
    const worker = opts.start();
    const run: Running = { worker, pending: new Map() };
    const failAll = (err: Error) => {
      if (current === run) current = undefined;
      clearTimeout(run.idle);
      for (const p of run.pending.values()) p.reject(err);
      run.pending.clear();
    };
    worker.on('message', (res: WorkerResponse) => {
      const p = run.pending.get(res.id);
      run.pending.delete(res.id);
      p?.resolve(res);
      if (opts.idleMs !== undefined && run.pending.size === 0) endWhenIdle(run, opts.idleMs);
    });
    worker.on('error', (err) => failAll(new VisionError(`The image analyser stopped: ${err.message}`, 'failed')));
    worker.on('exit', (code) => failAll(new VisionError(`The image analyser exited (code ${code}).`, 'failed')));
    return run;
  }

  function endWhenIdle(run: Running, idleMs: number) {
    clearTimeout(run.idle);
    run.idle = setTimeout(() => {
      if (run.pending.size > 0 || current !== run) return;
      // WebAssembly memory never shrinks: only ending the process returns what its models and tensors took.
      current = undefined;
      void run.worker.end();
    }, idleMs);
    run.idle.unref();
  }

  return {
    call(req: WorkerRequest, timeoutMs: number, transfer: ArrayBuffer[] = []): Promise<WorkerResponse> {
      current ??= start();
      const run = current;
      clearTimeout(run.idle);
      return new Promise<WorkerResponse>((resolve, reject) => {
        const timer = setTimeout(() => {
          run.pending.delete(req.id);
          // A stuck model cannot be interrupted from outside: drop the whole worker and whatever waits on it.
          if (current === run) current = undefined;
          void run.worker.end();
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
        run.worker.post(req, transfer);
      });
    },
    running: () => current !== undefined,
    queueLength: () => current?.pending.size ?? 0,
    async close() {
      const run = current;
      current = undefined;
      clearTimeout(run?.idle);
      await run?.worker.end();
    },
  };
}

/**
 * Runs the analyser off the server's event loop, which keeps answering while models load and images are
 * analysed. Photo checks and face embeddings share one worker thread that stays (face models and the NSFW
 * classifier, the memory budget of decision 016). Captions run in a child process of their own that ends after a
 * minute without captions: their models (a second copy of the face models, emotion, pose, objects) take ~250 MB,
 * and only a process's exit gives all of it back (a thread's heap and WebAssembly memory stay with the process's
 * allocator after the thread ends, and grew with each restart).
 */
export function createVisionAnalyser(opts: VisionAnalyserOptions = {}): VisionAnalyser {
  const defaultTimeout = opts.timeoutMs ?? 30_000;
  const photos = workerLane({ start: workerThread });
  const captions = workerLane({ start: childProcess, idleMs: opts.captionIdleMs ?? CAPTION_IDLE_MS });
  let nextId = 1;

  async function send(kind: 'analyse' | 'check' | 'embed', image: Buffer | Uint8Array, timeoutMs = defaultTimeout) {
    // Copy into a buffer of our own so it can be moved to the worker without touching the caller's.
    const copy = new Uint8Array(image.byteLength);
    copy.set(image);
    const lane = kind === 'analyse' ? captions : photos;
    const res = await lane.call({ id: nextId++, kind, image: copy }, timeoutMs, [copy.buffer]);
    if (!res.ok)
      throw new VisionError(res.badImage ? `The image could not be read: ${res.error}` : res.error, res.badImage ? 'bad-image' : 'failed');
    return res;
  }

  return {
    async warm() {
      const res = await photos.call({ id: nextId++, kind: 'load' }, Math.max(defaultTimeout, 60_000));
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
    queueLength: () => photos.queueLength() + captions.queueLength(),
    running: () => ({ photoChecks: photos.running(), captions: captions.running() }),
    async close() {
      await Promise.all([photos.close(), captions.close()]);
    },
  };
}
