import { parentPort } from 'node:worker_threads';
import { analyseImage } from './analyse-image.ts';
import { faceEmbeddingOf } from './face-embedding.ts';
import { loadHuman } from './human-model.ts';
import { measurePhoto } from './measure-photo.ts';
import { loadNsfwModel } from './nsfw-model.ts';

/**
 * The analyser's entry, as a worker thread (photo checks) or a child process (captions): analyses images one at a
 * time (the models are not re-entrant) and answers each request by id. Started by analyser.ts; never imported by
 * the server itself.
 */

export type WorkerRequest =
  | { id: number; kind: 'analyse'; image: Uint8Array }
  | { id: number; kind: 'check'; image: Uint8Array }
  | { id: number; kind: 'embed'; image: Uint8Array }
  | { id: number; kind: 'load' };
export type WorkerResponse =
  | {
      id: number;
      ok: true;
      analysis?: Awaited<ReturnType<typeof analyseImage>>;
      measures?: Awaited<ReturnType<typeof measurePhoto>>;
      face?: Awaited<ReturnType<typeof faceEmbeddingOf>>;
    }
  | { id: number; ok: false; error: string; badImage: boolean };

interface Port {
  on(event: 'message', listener: (req: WorkerRequest) => void): void;
  postMessage(res: WorkerResponse): void;
}

function childProcessPort(): Port {
  if (!process.send) throw new Error('vision-worker.ts must run in a worker thread or a child process with an IPC channel');
  // The server went away: nothing will ask again.
  process.on('disconnect', () => process.exit(0));
  return { on: (event, listener) => process.on(event, listener), postMessage: (res) => process.send!(res) };
}

const port: Port = parentPort ?? childProcessPort();

let queue: Promise<unknown> = Promise.resolve();

port.on('message', (req: WorkerRequest) => {
  queue = queue.then(async () => {
    try {
      if (req.kind === 'load') {
        await loadHuman();
        await loadNsfwModel();
        port.postMessage({ id: req.id, ok: true } satisfies WorkerResponse);
      } else if (req.kind === 'check') {
        const measures = await measurePhoto(req.image);
        port.postMessage({ id: req.id, ok: true, measures } satisfies WorkerResponse);
      } else if (req.kind === 'embed') {
        const face = await faceEmbeddingOf(req.image);
        port.postMessage({ id: req.id, ok: true, face } satisfies WorkerResponse);
      } else {
        const analysis = await analyseImage(req.image);
        port.postMessage({ id: req.id, ok: true, analysis } satisfies WorkerResponse);
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // sharp's decode errors mean the file is not a readable image, not that the analyser is broken.
      const badImage = /unsupported image format|Input buffer|corrupt|pixel limit|VipsJpeg|pngload|webpload/i.test(message);
      port.postMessage({ id: req.id, ok: false, error: message, badImage } satisfies WorkerResponse);
    }
  });
});
