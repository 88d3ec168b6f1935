/** Product-wide constants shared by the SPA and the server (product §9). */
export const PRODUCT_NAME = 'Likeness';

export const CREDIT_COSTS = {
  generation: 10,
  training: 500,
  captionFast: 1,
  captionDetailed: 2,
  /** Finishing a result (common/finishing.ts): an upscale by its factor; an edit costs what a generation does. */
  upscale2x: 5,
  upscale4x: 10,
  edit: 10,
} as const;

export const LIMITS = {
  pageSize: 40,
  recentGenerations: 6,
  featuredLimit: 12,
  generationImageCount: 1,
  uploadMaxBytes: 5 * 1024 * 1024,
  /** The training archive (training_images.zip) the browser builds from the chosen photos. */
  trainingArchiveMaxBytes: 50 * 1024 * 1024,
  trainingMinImages: 4,
  trainingMaxImages: 50,
  trainingSteps: 1000,
  originalsRetentionDays: 30,
  /**
   * Bytes of original uploads one account may keep (they are deleted after originalsRetentionDays). Chosen
   * from the heaviest honest month: the Professional plan's 7 trainings × a 50 MB archive = 350 MB, plus
   * about 100 prompt-extraction images at up to 5 MB = 500 MB; twice that leaves room for re-uploads and
   * failed attempts, while one account can no longer fill a disk.
   */
  uploadQuotaBytes: 1024 * 1024 * 1024,
  /**
   * The largest image the server decodes anywhere (uploads, training photos, captions). 50 megapixels covers
   * every phone camera's full-resolution output while bounding one decode at about 200 MB of RGBA.
   */
  imageMaxPixels: 50_000_000,
  /** The longest side an upscale may produce (an upscale of an upscale stops here). */
  upscaleMaxLongSide: 4096,
} as const;

export const TIMINGS = {
  tokenRefreshMs: 55_000,
  copyFeedbackMs: 2_000,
  panelResetMs: 300,
  trainingSuccessBannerMs: 180_000,
  checkoutAttempts: 3,
} as const;

export const LAYOUT = {
  mobileBreakpointPx: 768,
  sidebarOpenPx: 240,
  sidebarClosedPx: 64,
  sidebarTransitionS: 0.3,
  anchorOffsetPx: 80,
  explorePromptCut: 150,
} as const;
