/**
 * Router navigation state that opens /app/create-image prefilled (product §2): `remixSettings` from a generation
 * (Regenerate in the viewer, cards, explore) or `selectedCharacter` from a completed training. Several SPA
 * features send it and the create-image feature reads it, so the contract lives here.
 */
import type { GenerationCharacter, GenerationView } from './generation.ts';

/** The settings a remix carries; the seed is always cleared so the new image differs (product §2). */
export interface RemixSettings {
  prompt: string;
  width?: number;
  height?: number;
  steps?: number | null;
  guidance?: number | null;
  /** The character LoRA the image used, if any. */
  lora?: { path: string; scale: number } | null;
  /** Only with 'Keep the seed': the form starts with this seed, locked. */
  seed?: string | null;
}

/** 'Edit with a prompt': the image the edit starts from, shown beside the prompt. */
export interface EditSource {
  id: string;
  imageUrl: string;
  width: number;
  height: number;
}

export interface CreateImageNavigationState {
  remixSettings?: RemixSettings;
  selectedCharacter?: GenerationCharacter;
  editSource?: EditSource;
}

/** Remix settings of a saved generation (seed cleared). */
export function remixSettingsOf(generation: GenerationView): RemixSettings {
  const { params } = generation;
  return {
    prompt: params.prompt,
    width: params.image_size.width,
    height: params.image_size.height,
    steps: params.num_inference_steps,
    guidance: params.guidance_scale,
    lora: params.loras[0] ?? null,
  };
}
