import { VisionError, type VisionAnalyser } from '../../vision/analyser.ts';
import { detailedCaption, fastCaption } from '../../vision/describe.ts';
import { ProviderError, type ImageCaptioner } from './provider.ts';

/** Captions from the local analyser (faces, pose, objects, colour and light), no network needed. */
export function createBuiltinCaptioner(analyser: VisionAnalyser): ImageCaptioner {
  return {
    name: 'builtin',
    async caption(input, opts = {}) {
      opts.signal?.throwIfAborted();
      try {
        const analysis = await analyser.analyse(input.image);
        return input.detail === 'fast' ? fastCaption(analysis) : detailedCaption(analysis);
      } catch (err) {
        if (err instanceof VisionError) {
          const kind = err.kind === 'timeout' ? 'timeout' : err.kind === 'bad-image' ? 'rejected' : 'failed';
          throw new ProviderError(err.message, kind);
        }
        throw err;
      }
    },
  };
}
