import type { VisionAnalyser } from '../../server/vision/analyser.ts';
import type { NsfwScores } from '../../server/vision/types.ts';

/** Scores nsfwjs would give an explicit image. No such image exists in this repository: the verdict is injected. */
const EXPLICIT: NsfwScores = { drawing: 0.01, hentai: 0.02, neutral: 0.01, porn: 0.9, sexy: 0.06 };

/**
 * The real analyser, except that the NSFW classifier answers "explicit" (on the whole image and with faces
 * masked) for the images `isExplicit` picks: the refusal paths are tested without unsafe material.
 */
export function withExplicitVerdict(real: VisionAnalyser, isExplicit: (image: Uint8Array) => boolean): VisionAnalyser {
  return {
    ...real,
    async check(image, opts) {
      const measures = await real.check(image, opts);
      if (!isExplicit(image) || !measures.decoded) return measures;
      return { ...measures, decoded: { ...measures.decoded, nsfw: EXPLICIT, nsfwFacesMasked: EXPLICIT } };
    },
  };
}

/** An analyser whose photo checks fail as a crashed or overloaded worker's would. */
export function failingChecks(real: VisionAnalyser): VisionAnalyser {
  return {
    ...real,
    async check() {
      throw new Error('The image analyser took longer than 30 s.');
    },
  };
}
