import {
  randomSeed,
  toGenerationView as generationViewOf,
  type GenerateImageResponse,
  type GenerationRequest,
  type GenerationView,
} from '@common/generation.ts';
import type { Db } from '../db/index.ts';
import type { GenerateInput, ImageGenerator } from '../providers/inference/index.ts';
import { generationsRepository as repo, type GenerationWithCharacter } from '../repositories/generations.repository.ts';
import { requireUsableCharacter } from './characters.service.ts';
import { GENERATION_WORK } from './generation-errors.ts';
import type { PaidCallRunner, PaidResult } from './paid-jobs.ts';
import { spaceOf } from './team-access.ts';

export interface GenerationsDeps {
  db: Db;
  generator: ImageGenerator;
  /** The paid-call runner this instance's generations, upscales, edits and shoot photos share (paid-jobs.ts). */
  runner: PaidCallRunner;
  /** The request's character, one of the caller's usable characters (default: characters.service's rule). */
  usableCharacter?: (userId: string, loraFileUrl: string) => Promise<Character>;
}

export type GenerationsService = ReturnType<typeof createGenerationsService>;

export type Character = Awaited<ReturnType<typeof requireUsableCharacter>>;

/** The client view of a saved generation (product §3), built by the rule both modes share. */
export function toGenerationView({ generation: g, character }: GenerationWithCharacter): GenerationView {
  return generationViewOf({
    id: g.id,
    prompt: g.prompt,
    style: g.style,
    width: g.width,
    height: g.height,
    output_format: g.outputFormat,
    image_url: g.imageUrl,
    lora_scale: g.loraScale,
    seed: g.seed,
    num_inference_steps: g.numInferenceSteps,
    guidance_scale: g.guidanceScale,
    is_favorite: g.isFavorite,
    created_at: g.createdAt.toISOString(),
    source_id: g.sourceId,
    derivation: g.derivation,
    upscale_factor: g.upscaleFactor,
    edit_strength: g.editStrength,
    likeness: g.likeness,
    likeness_verdict: g.likenessVerdict,
    shoot_id: g.shootId,
    lora_trainings: character
      ? {
          id: character.id,
          character_name: character.characterName,
          trigger_word: character.triggerWord,
          lora_file_url: character.loraFileUrl,
          photos_differ: character.photosDiffer ?? false,
        }
      : null,
  });
}

/** The answer of a paid image call (POST /api/image/generate-image, /upscale, /edit). */
export const imageResponseOf = ({ kept, saved, character }: PaidResult): GenerateImageResponse => ({
  images: kept.map((k) => k.image),
  prompt: saved.prompt,
  seed: Number(saved.seed),
  generation: toGenerationView({ generation: saved, character }),
});

/** What a provider is asked to render for a request; a request without a seed gets a random one. */
export function generateInputOf(request: GenerationRequest): GenerateInput {
  return {
    prompt: request.prompt,
    imageSize: request.image_size,
    loras: request.loras,
    seed: request.seed ?? randomSeed(),
    numInferenceSteps: request.num_inference_steps,
    guidanceScale: request.guidance_scale,
    outputFormat: request.output_format,
  };
}

/** A generation row's fields that come from a generate or edit request (its character, and the seed used). */
export const requestedRow = (request: GenerationRequest, character: Character | undefined, seed: number | string) => ({
  prompt: request.prompt,
  loraId: character?.id ?? null,
  loraScale: character ? request.loras[0].scale : null,
  seed: String(seed),
  numInferenceSteps: request.num_inference_steps,
  guidanceScale: request.guidance_scale,
});

/** The request's character, which must be one of the caller's usable characters (characters.service). */
export function characterOfRequest(deps: Pick<GenerationsDeps, 'db' | 'usableCharacter'>) {
  const usable = deps.usableCharacter ?? ((userId, loraFileUrl) => requireUsableCharacter(deps.db, userId, { loraFileUrl }));
  return async (userId: string, request: GenerationRequest): Promise<Character | undefined> => {
    const lora = request.loras[0];
    return lora ? usable(userId, lora.path) : undefined;
  };
}

/** Create image: a prompt (and maybe a character) rendered into a new generation, paid through the runner. */
export function createGenerationsService(deps: GenerationsDeps) {
  const { db, generator, runner } = deps;
  const usableCharacter = characterOfRequest(deps);

  function generate(userId: string, request: GenerationRequest, character: Character | undefined, started: () => void) {
    const input = generateInputOf(request);
    return runner.run(
      userId,
      {
        work: GENERATION_WORK,
        reason: 'Image generation',
        refundReason: 'Refund: image generation failed',
        jobInput: input,
        provider: generator.name,
      },
      () => ({
        outputFormat: request.output_format,
        call: (opts) => generator.generate(input, opts),
        row: (output) => requestedRow(request, character, output.seed ?? input.seed),
        character: character ?? null,
      }),
      started,
    );
  }

  return {
    /** POST /api/image/generate-image for the caller. */
    async create(userId: string, request: GenerationRequest): Promise<GenerateImageResponse> {
      const character = await usableCharacter(userId, request);
      return imageResponseOf(await runner.queued(userId, (started) => generate(userId, request, character, started)));
    },

    /** `team`: the space (issue 49; a team the caller is in, else 404), none for the personal one. */
    async listRecent(userId: string, limit: number, team?: string): Promise<GenerationView[]> {
      return (await repo.listRecent(db, userId, limit, await spaceOf(db, userId, team))).map(toGenerationView);
    },

    async listCharacters(userId: string, team?: string) {
      return (await repo.listCharacters(db, userId, await spaceOf(db, userId, team))).map((c) => ({
        id: c.id,
        character_name: c.characterName,
        trigger_word: c.triggerWord,
        lora_file_url: c.loraFileUrl,
        gender: c.gender,
        hair_color: c.hairColor,
        created_at: c.createdAt.toISOString(),
      }));
    },

    /** The instance's provider slots (shared with the shoot runner). */
    slots: runner.slots,
    /** Provider calls running now on this instance (health and tests). */
    inFlight: runner.inFlight,
    /** Requests waiting for a provider slot here, or for the same user's previous generation. */
    waiting: runner.waiting,
    /**
     * Shutdown, once the grace period is over: generations, upscales and edits still running are cut short and
     * refunded (their callers get a clear message), and waiting ones are refused.
     */
    abortAll: runner.abortAll,
  };
}
