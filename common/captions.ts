import { z } from 'zod';
import { LIMITS } from './product.ts';
import { storableText, TEXT_LIMITS } from './text.ts';

/** The uploader's answers to a file it refuses (product §5 wording), shared by the extract panel and the server. */
export const UPLOAD_MESSAGES = {
  invalidType: 'Invalid file type (JPG, PNG, WEBP only).',
  tooLarge: 'File is too large (max 5MB).',
  /** The spec's wording for the pixel budget, which a small file with huge stated dimensions can break. */
  tooManyPixels: `File is too large (max ${LIMITS.imageMaxPixels / 1_000_000} megapixels).`,
} as const;

/** Prompt extraction (product §7): POST /api/image/fast-caption and /api/image/detail-caption. */
export const captionRequestSchema = z.object({
  image_url: storableText(TEXT_LIMITS.url).trim().min(1, 'is required'),
});
export type CaptionRequest = z.infer<typeof captionRequestSchema>;

export interface CaptionResponse {
  results: string;
}

/** POST /api/upload answer (product §7: must contain success and url). */
export interface UploadResponse {
  success: true;
  url: string;
}
