import { z } from 'zod';

/** Prompt extraction (spec §7): POST /api/image/fast-caption and /api/image/detail-caption. */
export const captionRequestSchema = z.object({
  image_url: z.string().trim().min(1, 'is required').max(2048),
});
export type CaptionRequest = z.infer<typeof captionRequestSchema>;

export interface CaptionResponse {
  results: string;
}

/** POST /api/upload answer (spec §7: must contain success and url). */
export interface UploadResponse {
  success: true;
  url: string;
}
