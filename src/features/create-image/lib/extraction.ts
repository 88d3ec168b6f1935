import { UPLOAD_MESSAGES } from '@common/captions';
import { CREDIT_COSTS, LIMITS } from '@common/product';

/** Prompt extraction (product §2, §4, §5, §7, §8): the analysis types, the upload rule and the messages (the calls are in ../api.ts). */

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

/** The message for any failure of an extraction run with the given analysis type. */
export function extractionErrorMessage(err: unknown, type: AnalysisType): string {
  if (err instanceof ExtractionError) return err.message;
  return `Failed to generate prompt with ${analysisOf(type).label}. Please try again.`;
}
