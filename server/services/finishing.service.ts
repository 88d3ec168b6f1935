import { randomSeed, type GenerateImageResponse } from '@common/generation.ts';
import {
  UPSCALE_COSTS,
  upscaledSize,
  upscaleSourceMaxSide,
  type EditRequest,
  type UpscaleFactor,
  type UpscaleRequest,
} from '@common/finishing.ts';
import { CREDIT_COSTS } from '@common/product.ts';
import type { Db } from '../db/index.ts';
import type { ImageFinisher, SourceImage } from '../providers/inference/index.ts';
import { keyFromMediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import type { GenerationWithCharacter } from '../repositories/generations.repository.ts';
import { noSuchSource, sourceMissing, upscaleTooLarge, type PaidWork } from './generation-errors.ts';
import { characterOfRequest, generateInputOf, imageResponseOf, requestedRow, type Character } from './generations.service.ts';
import type { PaidCallRunner, PaidCallStore, SourceRefusals } from './paid-jobs.ts';

export interface FinishingDeps {
  db: Db;
  storage: StorageProvider;
  /** Upscales and edits, on the same engine as the generator. */
  finisher: ImageFinisher;
  /** The paid-call runner shared with generations (paid-jobs.ts). */
  runner: PaidCallRunner;
  /** Reads a source while an earlier call of the user runs (the runner's store). */
  store: Pick<PaidCallStore, 'ownedSource'>;
  /** The request's character, one of the caller's usable characters (default: characters.service's rule). */
  usableCharacter?: (userId: string, loraFileUrl: string) => Promise<Character>;
}

export type FinishingService = ReturnType<typeof createFinishingService>;

/** The refusals of a start whose source is not the user's, or too large for `factor`. */
const refusalsFor = (factor?: UpscaleFactor): SourceRefusals => ({
  noSource: noSuchSource,
  tooLarge: ({ generation: { width, height } }) => upscaleTooLarge(width, height, factor!),
});

/**
 * Finishing a saved image: upscale 2× or 4×, or edit (re-render from the source with a new prompt). Each is
 * a new generation, paid through the same runner as create-image; its source must be the caller's ACTIVE
 * generation, whose stored file is read after the debit (gone: refunded).
 */
export function createFinishingService(deps: FinishingDeps) {
  const { storage, finisher, runner, store } = deps;
  const usableCharacter = characterOfRequest(deps);

  /**
   * The stored image of a source the start read. Gone from storage (a file lost while its row stayed) after
   * the debit: the caller refunds it, and the message says so.
   */
  async function sourceImage(source: GenerationWithCharacter, work: PaidWork, action: string): Promise<SourceImage> {
    const g = source.generation;
    const key = keyFromMediaUrl(g.imageUrl);
    const data = key ? await storage.read(key) : null;
    if (!data) throw sourceMissing(work, action);
    return { data, contentType: g.outputFormat === 'png' ? 'image/png' : 'image/jpeg', width: g.width, height: g.height };
  }

  /**
   * While an earlier generation of the user runs here, an upscale or edit waits in their queue: a source that
   * is not theirs, or too large, is refused now rather than after it (the start checks it again, with the debit).
   */
  async function refuseSourceWhileQueued(userId: string, sourceId: string, upscaleFactor?: UpscaleFactor) {
    if (!runner.busy(userId)) return;
    const source = await store.ownedSource(userId, sourceId);
    if (!source) throw noSuchSource();
    const { width, height } = source.generation;
    if (upscaleFactor && !upscaledSize(width, height, upscaleFactor)) throw upscaleTooLarge(width, height, upscaleFactor);
  }

  /**
   * Calls of the same upscale (same user, source and factor) while one runs share its answer: a double click
   * charges once. Per instance; the SPA also disables the buttons while a call runs.
   */
  const upscalesRunning = new Map<string, Promise<GenerateImageResponse>>();

  async function upscale(userId: string, { generation_id: sourceId, factor }: UpscaleRequest): Promise<GenerateImageResponse> {
    const work: PaidWork = { cost: UPSCALE_COSTS[factor], doing: 'upscaling', done: 'upscaled' };
    await refuseSourceWhileQueued(userId, sourceId, factor);
    const result = await runner.queued(userId, (started) =>
      runner.run(
        userId,
        {
          work,
          reason: `Image upscale ${factor}×`,
          refundReason: `Refund: image upscale ${factor}× failed`,
          jobInput: { operation: 'upscale', sourceId, factor },
          provider: finisher.name,
          source: { id: sourceId, maxSide: upscaleSourceMaxSide(factor) },
        },
        async (source) => {
          const { generation: g, character } = source!;
          const format = g.outputFormat === 'png' ? 'png' : 'jpeg';
          const seed = Number(g.seed ?? NaN);
          const input = {
            image: await sourceImage(source!, work, 'upscaled'),
            factor,
            prompt: g.prompt,
            seed: Number.isSafeInteger(seed) ? seed : randomSeed(),
            outputFormat: format,
          } as const;
          return {
            outputFormat: format,
            call: (opts) => finisher.upscale(input, opts),
            row: () => ({
              prompt: g.prompt,
              style: g.style,
              loraId: g.loraId,
              loraScale: g.loraScale,
              seed: g.seed,
              numInferenceSteps: g.numInferenceSteps,
              guidanceScale: g.guidanceScale,
              sourceId,
              derivation: 'upscale',
              upscaleFactor: factor,
              // An upscale shows the same face: it inherits its source's likeness (or gets it when the source is checked).
              likeness: g.likeness,
              likenessVerdict: g.likenessVerdict,
            }),
            character,
          };
        },
        started,
        refusalsFor(factor),
      ),
    );
    return imageResponseOf(result);
  }

  return {
    /** POST /api/image/upscale: a new generation, the source upscaled 2× or 4×. */
    upscale(userId: string, request: UpscaleRequest): Promise<GenerateImageResponse> {
      const key = `${userId}:${request.generation_id}:${request.factor}`;
      let running = upscalesRunning.get(key);
      if (!running) {
        running = upscale(userId, request).finally(() => upscalesRunning.delete(key));
        upscalesRunning.set(key, running);
      }
      return running;
    },

    /** POST /api/image/edit: a new generation re-rendered from the source with a new prompt. */
    async edit(userId: string, request: EditRequest): Promise<GenerateImageResponse> {
      const character = await usableCharacter(userId, request);
      const input = generateInputOf(request);
      const work: PaidWork = { cost: CREDIT_COSTS.edit, doing: 'editing', done: 'edited' };
      await refuseSourceWhileQueued(userId, request.source_id);
      const result = await runner.queued(userId, (started) =>
        runner.run(
          userId,
          {
            work,
            reason: 'Image edit',
            refundReason: 'Refund: image edit failed',
            jobInput: { operation: 'edit', ...input, sourceId: request.source_id, strength: request.strength },
            provider: finisher.name,
            source: { id: request.source_id, maxSide: null },
          },
          async (source) => {
            const image = await sourceImage(source!, work, 'edited');
            return {
              outputFormat: request.output_format,
              call: (opts) => finisher.edit({ ...input, image, strength: request.strength }, opts),
              row: (output) => ({
                ...requestedRow(request, character, output.seed ?? input.seed),
                sourceId: request.source_id,
                derivation: 'edit',
                editStrength: request.strength,
              }),
              character: character ?? null,
            };
          },
          started,
          refusalsFor(),
        ),
      );
      return imageResponseOf(result);
    },
  };
}
