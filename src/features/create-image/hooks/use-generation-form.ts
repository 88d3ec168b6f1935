import { useCallback, useEffect, useState } from 'react';
import type { CreateImageNavigationState, EditSource } from '@common/create-image-state';
import { EDIT_STRENGTH, type EditRequestInput } from '@common/finishing';
import {
  clampDimension,
  DIMENSION,
  dimensionNumber,
  GENERATION_BOUNDS,
  GENERATION_DEFAULTS,
  randomSeed,
  seedDigits,
  type GenerationRequestInput,
  type OutputFormat,
} from '@common/generation';

export interface GenerationFormState {
  prompt: string;
  width: number;
  height: number;
  /** What the width/height fields show while being typed in; committed on blur. */
  widthText: string;
  heightText: string;
  steps: number;
  guidance: number;
  loraScale: number;
  /** The chosen character's LoRA file, or null for 'No character'. */
  loraPath: string | null;
  seed: string;
  seedLocked: boolean;
  outputFormat: OutputFormat;
  /** 'Edit with a prompt': the source image and how far the result may move from it; null for a new image. */
  editSource: EditSource | null;
  strength: number;
}

const clampTo = (value: number | null | undefined, { min, max }: { min: number; max: number }, fallback: number) =>
  typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;

/** The form's first state: defaults (product §9), then a remix or a chosen character from navigation state. */
export function initialFormState(nav?: CreateImageNavigationState | null): GenerationFormState {
  const remix = nav?.remixSettings;
  const width = remix?.width ? clampDimension(remix.width, GENERATION_DEFAULTS.width) : GENERATION_DEFAULTS.width;
  const height = remix?.height ? clampDimension(remix.height, GENERATION_DEFAULTS.height) : GENERATION_DEFAULTS.height;
  const character = nav?.selectedCharacter?.lora_file_url ?? null;
  return {
    prompt: remix?.prompt ?? '',
    width,
    height,
    widthText: String(width),
    heightText: String(height),
    steps: Math.round(clampTo(remix?.steps, GENERATION_BOUNDS.steps, GENERATION_DEFAULTS.numInferenceSteps)),
    guidance: clampTo(remix?.guidance, GENERATION_BOUNDS.guidance, GENERATION_DEFAULTS.guidanceScale),
    loraScale: character
      ? GENERATION_DEFAULTS.loraScale
      : clampTo(remix?.lora?.scale, GENERATION_BOUNDS.loraScale, GENERATION_DEFAULTS.loraScale),
    loraPath: character ?? remix?.lora?.path ?? null,
    // Remixes carry no seed (product §2) unless the person asked to keep it ('Keep the seed').
    seed: remix?.seed ? seedDigits(remix.seed) : '',
    seedLocked: !!remix?.seed,
    outputFormat: GENERATION_DEFAULTS.outputFormat,
    editSource: nav?.editSource ?? null,
    strength: EDIT_STRENGTH.default,
  };
}

export const isPromptBlank = (prompt: string) => prompt.trim() === '';

/** Rounds down to a multiple of 8 within bounds (product §5: again on submit). */
const roundDimension = (value: number) => clampDimension(value, DIMENSION.min);

/**
 * The generation request for the current form (product §3, §5): dimensions rounded again, the seed used only
 * when locked and non-empty (else random below 2147483647), a LoRA only with a character.
 */
export function toGenerationRequest(form: GenerationFormState, random: () => number = Math.random): GenerationRequestInput {
  const lockedSeed = form.seedLocked && form.seed !== '' ? Number(form.seed) : null;
  return {
    prompt: form.prompt.trim(),
    image_size: { width: roundDimension(form.width), height: roundDimension(form.height) },
    loras: form.loraPath ? [{ path: form.loraPath, scale: form.loraScale }] : [],
    seed: lockedSeed !== null && Number.isSafeInteger(lockedSeed) ? lockedSeed : randomSeed(random),
    num_inference_steps: form.steps,
    guidance_scale: form.guidance,
    num_images: 1,
    enable_safety_checker: true,
    output_format: form.outputFormat,
  };
}

/** The request for the current form: an edit of its source image, or a new image. */
export function toFormRequest(form: GenerationFormState, random: () => number = Math.random): GenerationRequestInput | EditRequestInput {
  const request = toGenerationRequest(form, random);
  if (!form.editSource) return request;
  const strength = Math.min(EDIT_STRENGTH.max, Math.max(EDIT_STRENGTH.min, form.strength));
  return { ...request, source_id: form.editSource.id, strength };
}

/** How long the sentence about a size the form changed stays beside the fields. */
export const SIZE_NOTE_MS = 5000;

/**
 * What a size field did with what was typed, when it did not keep it as typed (product §5's rules), as one
 * sentence: 'Width set to 2048, the largest size'. Null when the typed number stands.
 */
export function sizeNote(field: 'Width' | 'Height', typed: string, committed: number): string | null {
  if (typed.trim() === '') return `${field} kept at ${committed}`;
  const number = dimensionNumber(typed);
  if (number === null) return `${field} kept at ${committed}: numbers only`;
  if (number === committed) return null;
  if (number > DIMENSION.max) return `${field} set to ${committed}, the largest size`;
  if (number < DIMENSION.min) return `${field} set to ${committed}, the smallest size`;
  return `${field} set to ${committed}, a multiple of ${DIMENSION.step}`;
}

/** The create-image form's state and the rules of each field (product §5). */
export function useGenerationForm(nav?: CreateImageNavigationState | null) {
  const [form, setForm] = useState(() => initialFormState(nav));
  const patch = useCallback((change: Partial<GenerationFormState>) => setForm((f) => ({ ...f, ...change })), []);
  // Said for a few seconds after a blur that changed what was typed, then gone.
  const [note, setNote] = useState<{ text: string } | null>(null);
  useEffect(() => {
    if (!note) return;
    const timer = setTimeout(() => setNote(null), SIZE_NOTE_MS);
    return () => clearTimeout(timer);
  }, [note]);
  const { width, widthText, height, heightText } = form;
  const commit = useCallback((field: 'Width' | 'Height', typed: string, previous: number) => {
    const value = clampDimension(typed, previous);
    const text = sizeNote(field, typed, value);
    // A size that stands replaces an earlier note; a blur after Enter (nothing new typed) keeps it.
    if (text) setNote({ text });
    else if (value !== previous) setNote(null);
    return value;
  }, []);

  return {
    form,
    setPrompt: useCallback((prompt: string) => patch({ prompt }), [patch]),
    setWidthText: useCallback((widthText: string) => patch({ widthText }), [patch]),
    setHeightText: useCallback((heightText: string) => patch({ heightText }), [patch]),
    /** What the last blur of a size field did to what was typed, for a few seconds; null otherwise. */
    sizeNote: note?.text ?? null,
    /** On blur: clamp to 512–2048, round down to a multiple of 8; empty or non-numeric reverts. */
    commitWidth: useCallback(() => {
      const value = commit('Width', widthText, width);
      patch({ width: value, widthText: String(value) });
    }, [commit, patch, width, widthText]),
    commitHeight: useCallback(() => {
      const value = commit('Height', heightText, height);
      patch({ height: value, heightText: String(value) });
    }, [commit, patch, height, heightText]),
    applyPreset: useCallback(
      (width: number, height: number) => patch({ width, height, widthText: String(width), heightText: String(height) }),
      [patch],
    ),
    setSteps: useCallback((steps: number) => patch({ steps }), [patch]),
    setGuidance: useCallback((guidance: number) => patch({ guidance }), [patch]),
    setLoraScale: useCallback((loraScale: number) => patch({ loraScale }), [patch]),
    /** Choosing a character fills its LoRA and resets the LoRA power to 1 (product §4). */
    selectCharacter: useCallback((loraPath: string | null) => patch({ loraPath, loraScale: GENERATION_DEFAULTS.loraScale }), [patch]),
    setSeed: useCallback((text: string) => patch({ seed: seedDigits(text) }), [patch]),
    toggleSeedLock: useCallback(() => setForm((f) => ({ ...f, seedLocked: !f.seedLocked })), []),
    setOutputFormat: useCallback((outputFormat: OutputFormat) => patch({ outputFormat }), [patch]),
    setStrength: useCallback((strength: number) => patch({ strength }), [patch]),
    /** Back to a new image: the source is dropped, the prompt and settings stay. */
    clearEditSource: useCallback(() => patch({ editSource: null }), [patch]),
  };
}

export type GenerationForm = ReturnType<typeof useGenerationForm>;
