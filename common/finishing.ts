/**
 * Finishing a result: upscale a saved generation 2× or 4×, or edit it with a new prompt from the
 * source image at a chosen strength. The request schemas, costs, limits and texts both sides share.
 */
import { z } from 'zod';
import { generationRequestSchema, type GenerationSource } from './generation.ts';
import { CREDIT_COSTS, LIMITS } from './product.ts';

export const UPSCALE_FACTORS = [2, 4] as const;
export type UpscaleFactor = (typeof UPSCALE_FACTORS)[number];

/** Credits an upscale takes, by factor. */
export const UPSCALE_COSTS: Record<UpscaleFactor, number> = { 2: CREDIT_COSTS.upscale2x, 4: CREDIT_COSTS.upscale4x };

/** 'Strength': how far an edit may move from its source (0.2 keeps most of it, 0.95 almost a new image). */
export const EDIT_STRENGTH = { min: 0.2, max: 0.95, step: 0.05, default: 0.6 } as const;

const generationId = z.uuid({ error: 'must be the id of one of your generations' });

export const upscaleRequestSchema = z.object({
  generation_id: generationId,
  factor: z.union([z.literal(2), z.literal(4)], { error: 'must be 2 or 4' }),
});
export type UpscaleRequest = z.output<typeof upscaleRequestSchema>;

/** An edit is a generation request plus its source and strength. */
export const editRequestSchema = generationRequestSchema.extend({
  source_id: generationId,
  strength: z
    .number({ error: 'must be a number' })
    .min(EDIT_STRENGTH.min, `must be at least ${EDIT_STRENGTH.min}`)
    .max(EDIT_STRENGTH.max, `must be at most ${EDIT_STRENGTH.max}`)
    .default(EDIT_STRENGTH.default),
});
export type EditRequestInput = z.input<typeof editRequestSchema>;
export type EditRequest = z.output<typeof editRequestSchema>;

/** The longest side an image may have to be upscaled by `factor` within the limit. */
export const upscaleSourceMaxSide = (factor: number): number => Math.floor(LIMITS.upscaleMaxLongSide / factor);

/** Size of an upscale, or null when its long side would pass the limit. */
export function upscaledSize(width: number, height: number, factor: number): { width: number; height: number } | null {
  return Math.max(width, height) > upscaleSourceMaxSide(factor) ? null : { width: width * factor, height: height * factor };
}

/** Refusal of an upscale past the limit (server message and the viewer's disabled-button note). */
export function upscaleTooLargeMessage(width: number, height: number, factor: number): string {
  return `Upscale ${factor}× would make this ${width}×${height} image ${width * factor}×${height * factor} px; the long side can be at most ${LIMITS.upscaleMaxLongSide} px.`;
}

/** 'Upscaled 2× from' / 'Edited from' (followed by the link to the source). */
export function sourceLabel(source: Pick<GenerationSource, 'kind' | 'factor'>): string {
  return source.kind === 'upscale' ? `Upscaled ${source.factor ?? 2}× from` : 'Edited from';
}
