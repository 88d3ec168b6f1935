/**
 * Inference providers: image generation, image captions and character (LoRA) training.
 * One implementation per file (builtin.ts, fal.ts), chosen once at start from the config.
 */

export interface ImageSize {
  width: number;
  height: number;
}

export interface LoraWeight {
  /** lora_file_url of a COMPLETED training (a product media URL for builtin, a fal URL for fal). */
  path: string;
  scale: number;
}

/** What the server asks a provider to render (spec §3 generation request; num_images is always 1). */
export interface GenerateInput {
  prompt: string;
  imageSize: ImageSize;
  loras: LoraWeight[];
  seed: number;
  numInferenceSteps: number;
  guidanceScale: number;
  outputFormat: 'jpeg' | 'png';
}

export interface ProviderImage {
  /** Bytes, when the provider renders locally. */
  data?: Buffer;
  /** A short-lived URL to copy from, when the provider hosts the result. */
  url?: string;
  width: number;
  height: number;
  contentType: string;
  nsfw: boolean;
}

export interface GenerateOutput {
  images: ProviderImage[];
  seed: number;
  providerRequestId?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface ImageGenerator {
  readonly name: 'builtin' | 'fal';
  generate(input: GenerateInput, opts?: CallOptions): Promise<GenerateOutput>;
}

export type CaptionDetail = 'fast' | 'detailed';

export interface CaptionInput {
  image: Buffer;
  contentType: string;
  detail: CaptionDetail;
}

export interface ImageCaptioner {
  readonly name: 'builtin' | 'fal';
  caption(input: CaptionInput, opts?: CallOptions): Promise<string>;
}

/** A provider failure: `retryable` tells the caller whether trying again may help. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'rejected' | 'failed' | 'nsfw' | 'cancelled',
    readonly status?: number,
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
