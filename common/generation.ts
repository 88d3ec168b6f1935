/**
 * The generation request (product §3) and its validation rules (product §5), shared by the create-image form and
 * the server's POST /api/image/generate-image. The server parses with `generationRequestSchema`; the SPA
 * uses the same bounds, defaults and helpers so both sides agree on every number.
 */
import { z } from 'zod';
import type { LikenessVerdict } from './likeness.ts';
import { LIMITS } from './product.ts';
import { storableText, TEXT_LIMITS } from './text.ts';

export const DIMENSION = { min: 512, max: 2048, step: 8 } as const;
/** Random seeds are integers below this (product §5). */
export const SEED_LIMIT = 2147483647;
export const PROMPT_MAX_LENGTH = TEXT_LIMITS.prompt;

export const GENERATION_BOUNDS = {
  steps: { min: 1, max: 50, step: 1 },
  guidance: { min: 1, max: 20, step: 0.1 },
  loraScale: { min: 0.5, max: 1.5, step: 0.01 },
} as const;

export type OutputFormat = 'jpeg' | 'png';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['jpeg', 'png'];

export const GENERATION_DEFAULTS = {
  width: 1024,
  height: 1024,
  numInferenceSteps: 28,
  guidanceScale: 3.5,
  loraScale: 1,
  outputFormat: 'jpeg' as OutputFormat,
} as const;

export const ASPECT_PRESETS = [
  { label: '1:1', width: 1024, height: 1024 },
  { label: '16:9', width: 1024, height: 576 },
  { label: '9:16', width: 576, height: 1024 },
] as const;

const dimension = z
  .number({ error: 'must be a number' })
  .int('must be a whole number')
  .min(DIMENSION.min, `must be at least ${DIMENSION.min}`)
  .max(DIMENSION.max, `must be at most ${DIMENSION.max}`)
  .refine((v) => v % DIMENSION.step === 0, `must be a multiple of ${DIMENSION.step}`);

const between = (min: number, max: number) =>
  z.number({ error: 'must be a number' }).min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);

export const generationRequestSchema = z.object({
  prompt: storableText(PROMPT_MAX_LENGTH).trim().min(1, 'must not be blank'),
  image_size: z.object({ width: dimension, height: dimension }, { error: 'must be {width, height}' }),
  loras: z
    .array(
      z.object({
        path: storableText(TEXT_LIMITS.url).trim().min(1, 'must not be blank'),
        scale: between(GENERATION_BOUNDS.loraScale.min, GENERATION_BOUNDS.loraScale.max).default(GENERATION_DEFAULTS.loraScale),
      }),
      { error: 'must be a list' },
    )
    .max(1, 'at most one character can be used')
    .default([]),
  seed: z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be at least 0')
    .max(SEED_LIMIT - 1, `must be below ${SEED_LIMIT}`)
    .optional(),
  num_inference_steps: between(GENERATION_BOUNDS.steps.min, GENERATION_BOUNDS.steps.max)
    .int('must be a whole number')
    .default(GENERATION_DEFAULTS.numInferenceSteps),
  guidance_scale: between(GENERATION_BOUNDS.guidance.min, GENERATION_BOUNDS.guidance.max).default(GENERATION_DEFAULTS.guidanceScale),
  // Spec §3: always one image with the safety checker on; a client asking for anything else is told so.
  num_images: z
    .literal(LIMITS.generationImageCount, { error: `must be ${LIMITS.generationImageCount}` })
    .default(LIMITS.generationImageCount),
  enable_safety_checker: z.literal(true, { error: 'must be true' }).default(true),
  output_format: z.enum(OUTPUT_FORMATS, { error: `must be one of ${OUTPUT_FORMATS.join(', ')}` }).default(GENERATION_DEFAULTS.outputFormat),
});

/** What a client sends. */
export type GenerationRequestInput = z.input<typeof generationRequestSchema>;
/** What the server works with after parsing: defaults filled, num_images 1, safety checker on. */
export type GenerationRequest = z.output<typeof generationRequestSchema>;

/** One image of a generate-image answer (product §3 response). */
export interface GeneratedImage {
  url: string;
  width: number;
  height: number;
  content_type: string;
}

/** How a generation came from another one (upscale or edit); null for a plain generation. */
export type Derivation = 'upscale' | 'edit';

/** The source a generation was made from, as a card and the viewer show it. */
export interface GenerationSource {
  id: string;
  kind: Derivation;
  /** Upscales: 2 or 4. */
  factor: number | null;
  /** Edits: the strength used. */
  strength: number | null;
}

/** The character a generation used, joined from lora_trainings (product §3). */
export interface GenerationCharacter {
  id: string;
  character_name: string;
  trigger_word: string | null;
  lora_file_url: string | null;
  /**
   * Its training photos showed different people, so it has no reference face and its images no likeness check
   * (issue 54 item 15); only on a generation's character, and only when true.
   */
  photos_differ?: boolean;
}

/** The client view of a saved generation (product §3): id, result, params, timestamp, isFavorited. */
export interface GenerationView {
  id: string;
  result: { images: GeneratedImage[]; prompt: string; timestamp: string; style: string | null };
  params: {
    prompt: string;
    image_size: { width: number; height: number };
    loras: { path: string; scale: number }[];
    seed: string | null;
    num_inference_steps: number | null;
    guidance_scale: number | null;
    output_format: string;
  };
  timestamp: string;
  isFavorited: boolean;
  lora_trainings: GenerationCharacter | null;
  /** The generation this one was upscaled or edited from; null for a plain generation. */
  source: GenerationSource | null;
  /** Likeness to its character's face, 0–100; null: no character, no reference face, or not checked yet. */
  likeness: number | null;
  likeness_verdict: LikenessVerdict | null;
  /** The photo shoot it was made in, or null for a single generation. */
  shoot_id: string | null;
}

/** A generations row as the data store holds it (product §3), with its character joined from lora_trainings. */
export interface GenerationRecord {
  id: string;
  prompt: string;
  style: string | null;
  width: number;
  height: number;
  output_format: string;
  image_url: string;
  lora_scale: number | null;
  seed: string | null;
  num_inference_steps: number | null;
  guidance_scale: number | null;
  is_favorite: boolean;
  created_at: string;
  lora_trainings: GenerationCharacter | null;
  /** Finishing: the source generation and how this one came from it. */
  source_id?: string | null;
  derivation?: Derivation | null;
  upscale_factor?: number | null;
  edit_strength?: number | null;
  /** The likeness check (common/likeness.ts). */
  likeness?: number | null;
  likeness_verdict?: LikenessVerdict | null;
  shoot_id?: string | null;
}

const contentTypeOf = (format: string) => (format === 'png' ? 'image/png' : 'image/jpeg');

/**
 * The client view of a saved generation (product §3) from its row: the server builds it for our API, the
 * hosted adapter from what Supabase answers, so both modes show the same thing.
 */
export function toGenerationView(row: GenerationRecord): GenerationView {
  const images: GeneratedImage[] = [
    { url: row.image_url, width: row.width, height: row.height, content_type: contentTypeOf(row.output_format) },
  ];
  const timestamp = new Date(row.created_at).toISOString();
  const character = row.lora_trainings;
  return {
    id: row.id,
    result: { images, prompt: row.prompt, timestamp, style: row.style },
    params: {
      prompt: row.prompt,
      image_size: { width: row.width, height: row.height },
      loras: character?.lora_file_url ? [{ path: character.lora_file_url, scale: row.lora_scale ?? 1 }] : [],
      seed: row.seed,
      num_inference_steps: row.num_inference_steps,
      guidance_scale: row.guidance_scale,
      output_format: row.output_format,
    },
    timestamp,
    isFavorited: row.is_favorite,
    lora_trainings: character
      ? {
          id: character.id,
          character_name: character.character_name,
          trigger_word: character.trigger_word,
          lora_file_url: character.lora_file_url,
          ...(character.photos_differ ? { photos_differ: true } : {}),
        }
      : null,
    source:
      row.source_id && row.derivation
        ? { id: row.source_id, kind: row.derivation, factor: row.upscale_factor ?? null, strength: row.edit_strength ?? null }
        : null,
    // Only a checked image has a verdict; a likeness without one would be a half-written check.
    likeness: row.likeness_verdict ? (row.likeness ?? null) : null,
    likeness_verdict: row.likeness_verdict ?? null,
    shoot_id: row.shoot_id ?? null,
  };
}

/** POST /api/image/generate-image answers the spec's response plus the saved generation. */
export interface GenerateImageResponse {
  images: GeneratedImage[];
  prompt: string;
  seed: number;
  generation: GenerationView;
}

/**
 * Width/height field on blur (product §5): clamp to 512–2048 and round down to a multiple of 8; empty or
 * non-numeric input gives back the previous value.
 */
export function clampDimension(input: string | number, previous: number): number {
  const typed = dimensionNumber(input);
  if (typed === null) return previous;
  const value = Math.min(DIMENSION.max, Math.max(DIMENSION.min, Math.floor(typed)));
  return value - (value % DIMENSION.step);
}

/** The number a width/height field holds, or null when it is empty or not a plain number. */
export function dimensionNumber(input: string | number): number | null {
  const text = String(input).trim();
  return text !== '' && /^\d+(\.\d+)?$/.test(text) ? Number(text) : null;
}

/** An integer in 0..SEED_LIMIT-1 (product §5: below 2147483647). */
export function randomSeed(random: () => number = Math.random): number {
  return Math.floor(random() * SEED_LIMIT) % SEED_LIMIT;
}

/**
 * Seed field: digits only (product §5), and no more than the largest seed the image API takes, so that a locked
 * seed is always the seed used (product §4) rather than refused, or replaced by a random one past 2^53.
 */
export function seedDigits(input: string): string {
  const digits = input.replace(/\D+/g, '');
  return digits !== '' && BigInt(digits) >= BigInt(SEED_LIMIT) ? String(SEED_LIMIT - 1) : digits;
}
