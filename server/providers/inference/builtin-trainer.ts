import sharp from 'sharp';
import type { VisionAnalyser } from '../../vision/analyser.ts';
import { buildBuiltinLora } from './builtin-lora.ts';

/**
 * The built-in trainer: derives the built-in engine's character artefact (reference face crop and colour
 * profile, see builtin-lora.ts) from the training photos. The face box comes from the local image
 * analyser when it answers; without it the crop falls back to the attention heuristic.
 */
export interface BuiltinTrainer {
  readonly name: 'builtin';
  train(input: { images: Uint8Array[]; characterName: string; triggerWord: string | null }): Promise<Buffer>;
}

export function createBuiltinTrainer(deps: { vision?: VisionAnalyser; faceTimeoutMs?: number }): BuiltinTrainer {
  const faceBox = deps.vision
    ? async (image: Buffer) => {
        try {
          const analysis = await deps.vision!.analyse(image, { timeoutMs: deps.faceTimeoutMs });
          const face = [...analysis.faces].sort((a, b) => b.score - a.score)[0];
          if (!face) return null;
          const meta = await sharp(image).metadata();
          const [x, y, w, h] = face.box;
          const width = meta.width ?? 0;
          const height = meta.height ?? 0;
          return { left: Math.round(x * width), top: Math.round(y * height), width: Math.round(w * width), height: Math.round(h * height) };
        } catch {
          // The analyser is an improvement, not a requirement: the crop heuristic still works.
          return null;
        }
      }
    : undefined;

  return {
    name: 'builtin',
    train({ images, characterName, triggerWord }) {
      return buildBuiltinLora({ images: images.map((b) => Buffer.from(b)), characterName, triggerWord, faceBox });
    },
  };
}
