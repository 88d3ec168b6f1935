import type { Config } from '../../config.ts';
import type { Logger } from '../../logger.ts';
import type { VisionAnalyser } from '../../vision/analyser.ts';
import { keyFromMediaUrl, type StorageProvider } from '../storage/index.ts';
import { createBuiltinCaptioner } from './builtin-captioner.ts';
import { createBuiltinFinisher } from './builtin-finisher.ts';
import { createBuiltinGenerator } from './builtin-generator.ts';
import { createBuiltinTrainer, type BuiltinTrainer } from './builtin-trainer.ts';
import { createFalCaptioner } from './fal-captioner.ts';
import { createFalFinisher } from './fal-finisher.ts';
import { createFalGenerator } from './fal-generator.ts';
import { createFalTrainer } from './fal-trainer.ts';
import type { ImageCaptioner, ImageFinisher, ImageGenerator, TrainingProvider } from './provider.ts';

export * from './provider.ts';

/** Engines given instead of the configured ones (tests and benchmarks). */
export interface InferenceOverrides {
  generator?: ImageGenerator;
  /** By default it follows the engine. */
  finisher?: ImageFinisher;
  captioner?: ImageCaptioner;
  builtinTrainer?: BuiltinTrainer;
  /** Setting it selects fal for training. */
  falTrainer?: TrainingProvider;
}

/**
 * The inference engines this instance uses: fal.ai's when FAL_KEY is set, else the built-in ones (a built-in
 * generator reads a character's LoRA file from `storage`; the built-in captioner and trainer use `vision`).
 */
export function createInference(
  config: Config,
  deps: { storage: StorageProvider; vision: VisionAnalyser; logger: Logger },
  overrides: InferenceOverrides = {},
) {
  const { storage, vision, logger } = deps;
  const falTimeoutMs = config.FAL_GENERATION_TIMEOUT_SECONDS * 1000;
  const generator =
    overrides.generator ??
    (config.FAL_KEY
      ? createFalGenerator({ credentials: config.FAL_KEY, timeoutMs: falTimeoutMs, logger })
      : createBuiltinGenerator({
          loadLora: async (path) => {
            const key = keyFromMediaUrl(path);
            return key ? storage.read(key) : null;
          },
        }));
  const finisher =
    overrides.finisher ??
    (config.FAL_KEY
      ? createFalFinisher({ credentials: config.FAL_KEY, timeoutMs: falTimeoutMs, logger })
      : createBuiltinFinisher({ generator: overrides.generator ?? generator }));
  const captioner =
    overrides.captioner ?? (config.FAL_KEY ? createFalCaptioner({ credentials: config.FAL_KEY }) : createBuiltinCaptioner(vision));
  const falTrainer = overrides.falTrainer ?? (config.FAL_KEY ? createFalTrainer({ credentials: config.FAL_KEY }) : undefined);
  const builtinTrainer = overrides.builtinTrainer ?? createBuiltinTrainer({ vision, faceTimeoutMs: config.VISION_TIMEOUT_SECONDS * 1000 });
  return { generator, finisher, captioner, falTrainer, builtinTrainer };
}
