import type { TrainerReport } from '@common/training.ts';
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

/** What the server asks a provider to render (product §3 generation request; num_images is always 1). */
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

/** A saved generation's image, read back from our storage, that a finishing call starts from. */
export interface SourceImage {
  data: Buffer;
  contentType: string;
  width: number;
  height: number;
}

/** Upscale a saved image by 2 or 4, keeping its face and composition. */
export interface UpscaleInput {
  image: SourceImage;
  factor: 2 | 4;
  /** The source's prompt: a hint for a model that adds detail. */
  prompt: string;
  seed: number;
  outputFormat: 'jpeg' | 'png';
}

/** Re-render a saved image with a new prompt; `strength` (0–1) is how far the result may move from it. */
export interface EditInput extends GenerateInput {
  image: SourceImage;
  strength: number;
}

/** Finishing a result: one implementation per file (builtin-finisher.ts, fal-finisher.ts). */
export interface ImageFinisher {
  readonly name: 'builtin' | 'fal';
  upscale(input: UpscaleInput, opts?: CallOptions): Promise<GenerateOutput>;
  edit(input: EditInput, opts?: CallOptions): Promise<GenerateOutput>;
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

  /** Rejected input, flagged content and cancellations fail the same way again; the rest may not. */
  get retryable(): boolean {
    return this.kind === 'timeout' || this.kind === 'failed';
  }
}

/** What the server asks a trainer to learn (product §3 training submission payload). */
export interface TrainingInput {
  /** A zip of the training photos, at a URL the trainer can read (see TrainingProvider.uploadArchive). */
  imagesDataUrl: string;
  /** Omitted when empty. */
  triggerWord?: string;
  createMasks: boolean;
  steps: number;
  isStyle: boolean;
}

export interface TrainingSubmitOptions extends CallOptions {
  /** Where the trainer reports the end of the run (fal: `fal_webhook`); polling works without it. */
  webhookUrl?: string;
}

/** Where a training run is. A FAILED state is final; a thrown error means "ask again later". */
export type TrainingState =
  | { status: 'IN_QUEUE' | 'IN_PROGRESS'; /** Where it is, as the trainer's queue status and logs say. */ report?: TrainerReport | null }
  | { status: 'COMPLETED'; loraFileUrl: string; result: unknown }
  | { status: 'FAILED'; error: string };

export interface TrainingProvider {
  readonly name: 'builtin' | 'fal';
  /** Puts the photo archive where the trainer can read it and returns its URL. */
  uploadArchive(zip: Buffer, opts?: CallOptions): Promise<string>;
  submit(input: TrainingInput, opts?: TrainingSubmitOptions): Promise<{ requestId: string }>;
  status(requestId: string, opts?: CallOptions): Promise<TrainingState>;
}
