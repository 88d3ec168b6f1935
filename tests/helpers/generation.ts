/** A valid body for POST /api/image/generate-image (product §3 generation request), small and quick to render. */
export const generationRequestBody = (overrides: Record<string, unknown> = {}) => ({
  prompt: 'a lighthouse on a cliff at dusk',
  image_size: { width: 512, height: 512 },
  loras: [] as { path: string; scale: number }[],
  num_inference_steps: 28,
  guidance_scale: 3.5,
  num_images: 1,
  enable_safety_checker: true,
  output_format: 'jpeg',
  ...overrides,
});
