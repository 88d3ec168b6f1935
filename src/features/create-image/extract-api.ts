import { UPLOAD_MESSAGES, type CaptionResponse, type UploadResponse } from '@common/captions';
import { CREDIT_COSTS, LIMITS } from '@common/product';
import { ApiError, responseBody } from '@/backend/api-error';
import type { ApiPort } from '@/backend/port';

/** Prompt extraction (product §2, §4, §5, §7, §8): the uploader and the two caption calls, with their messages. */

export type AnalysisType = 'fast' | 'detailed';

export const ANALYSIS_TYPES: ReadonlyArray<{ value: AnalysisType; label: string; description: string; cost: number }> = [
  { value: 'fast', label: 'Fast', description: 'One sentence: subject, framing and light.', cost: CREDIT_COSTS.captionFast },
  {
    value: 'detailed',
    label: 'Detailed',
    description: 'Several sentences: subject, clothing, setting, framing, light and style.',
    cost: CREDIT_COSTS.captionDetailed,
  },
];
export const DEFAULT_ANALYSIS: AnalysisType = 'detailed';

export const analysisOf = (type: AnalysisType) => ANALYSIS_TYPES.find((a) => a.value === type)!;

const CAPTION_PATH: Record<AnalysisType, string> = {
  fast: '/api/image/fast-caption',
  detailed: '/api/image/detail-caption',
};

export const ACCEPTED_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
/** Some systems give dropped files no MIME type; the extension decides then. The server checks the bytes anyway. */
const ACCEPTED_EXTENSIONS = /\.(jpe?g|png|webp)$/i;

/** The product §5 upload rule for a chosen file: the message to show, or null when it may be used. */
export function fileProblem(file: File): string | null {
  const typeOk = file.type ? (ACCEPTED_TYPES as readonly string[]).includes(file.type) : ACCEPTED_EXTENSIONS.test(file.name);
  if (!typeOk) return UPLOAD_MESSAGES.invalidType;
  if (file.size > LIMITS.uploadMaxBytes) return UPLOAD_MESSAGES.tooLarge;
  return null;
}

/** A failure whose message is already the one the panel shows (product §8). */
export class ExtractionError extends Error {
  override name = 'ExtractionError';
}

/** POST /api/upload (multipart, field `file`) → the stored image's URL. */
export async function uploadImage(api: ApiPort, file: File, signal?: AbortSignal): Promise<string> {
  const form = new FormData();
  form.append('file', file);
  let answer: Partial<UploadResponse> | null;
  try {
    answer = await api.request<Partial<UploadResponse> | null>('/api/upload', { method: 'POST', body: form, signal });
  } catch (err) {
    if (err instanceof ApiError) throw new ExtractionError(`Upload failed: ${err.status} - ${responseBody(err)}`);
    throw err;
  }
  if (!answer?.success || typeof answer.url !== 'string' || !answer.url)
    throw new ExtractionError('Upload failed: Invalid response format');
  return answer.url;
}

/** POST /api/image/fast-caption or /detail-caption with the uploaded image's URL → the prompt text. */
export async function captionImage(api: ApiPort, imageUrl: string, type: AnalysisType, signal?: AbortSignal): Promise<string> {
  let answer: Partial<CaptionResponse> | null;
  try {
    answer = await api.request<Partial<CaptionResponse> | null>(CAPTION_PATH[type], {
      method: 'POST',
      body: { image_url: imageUrl },
      signal,
    });
  } catch (err) {
    if (err instanceof ApiError) throw new ExtractionError(`API error: ${err.status} - ${responseBody(err)}`);
    throw err;
  }
  if (typeof answer?.results !== 'string') throw new ExtractionError('Invalid API response: missing results field');
  return answer.results;
}

/** The message for any failure of an extraction run with the given analysis type. */
export function extractionErrorMessage(err: unknown, type: AnalysisType): string {
  if (err instanceof ExtractionError) return err.message;
  return `Failed to generate prompt with ${analysisOf(type).label}. Please try again.`;
}
