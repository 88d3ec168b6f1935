import { describe, expect, it } from 'vitest';
import {
  ASPECT_PRESETS,
  clampDimension,
  GENERATION_DEFAULTS,
  generationRequestSchema,
  randomSeed,
  SEED_LIMIT,
  seedDigits,
} from './generation.ts';
import { thumbUrl } from './media.ts';

const valid = { prompt: 'a lighthouse at dusk', image_size: { width: 1024, height: 576 } };

function firstIssue(input: unknown): string {
  const result = generationRequestSchema.safeParse(input);
  if (result.success) return 'ok';
  return result.error.issues[0].path.join('.');
}

describe('generationRequestSchema', () => {
  it('fills the spec defaults: one image with the safety checker on', () => {
    const parsed = generationRequestSchema.parse(valid);
    expect(parsed).toEqual({
      prompt: 'a lighthouse at dusk',
      image_size: { width: 1024, height: 576 },
      loras: [],
      seed: undefined,
      num_inference_steps: 28,
      guidance_scale: 3.5,
      num_images: 1,
      enable_safety_checker: true,
      output_format: 'jpeg',
    });
  });

  it('trims the prompt and keeps a given seed, LoRA and format', () => {
    const parsed = generationRequestSchema.parse({
      ...valid,
      prompt: '  hi  ',
      seed: 2147483646,
      loras: [{ path: '/media/loras/x.safetensors', scale: 1.5 }],
      output_format: 'png',
    });
    expect(parsed).toMatchObject({ prompt: 'hi', seed: 2147483646, loras: [{ scale: 1.5 }], output_format: 'png' });
  });

  it.each([
    [{ ...valid, prompt: '   ' }, 'prompt'],
    [{ ...valid, prompt: undefined }, 'prompt'],
    [{ ...valid, prompt: 'x'.repeat(2001) }, 'prompt'],
    [{ ...valid, image_size: undefined }, 'image_size'],
    [{ ...valid, image_size: { width: 504, height: 1024 } }, 'image_size.width'],
    [{ ...valid, image_size: { width: 1024, height: 2056 } }, 'image_size.height'],
    [{ ...valid, image_size: { width: 1020, height: 1024 } }, 'image_size.width'],
    [{ ...valid, image_size: { width: '1024', height: 1024 } }, 'image_size.width'],
    [{ ...valid, loras: [{ path: 'a', scale: 0.49 }] }, 'loras.0.scale'],
    [{ ...valid, loras: [{ path: 'a', scale: 1.51 }] }, 'loras.0.scale'],
    [{ ...valid, loras: [{ path: ' ', scale: 1 }] }, 'loras.0.path'],
    [{ ...valid, loras: [{ path: 'a' }, { path: 'b' }] }, 'loras'],
    [{ ...valid, seed: -1 }, 'seed'],
    [{ ...valid, seed: 2147483647 }, 'seed'],
    [{ ...valid, seed: 1.5 }, 'seed'],
    [{ ...valid, num_inference_steps: 0 }, 'num_inference_steps'],
    [{ ...valid, num_inference_steps: 51 }, 'num_inference_steps'],
    [{ ...valid, num_inference_steps: 2.5 }, 'num_inference_steps'],
    [{ ...valid, guidance_scale: 0.9 }, 'guidance_scale'],
    [{ ...valid, guidance_scale: 20.1 }, 'guidance_scale'],
    [{ ...valid, num_images: 0 }, 'num_images'],
    [{ ...valid, num_images: 4 }, 'num_images'],
    [{ ...valid, enable_safety_checker: 'no' }, 'enable_safety_checker'],
    [{ ...valid, enable_safety_checker: false }, 'enable_safety_checker'],
    [{ ...valid, prompt: 'a\u0000b' }, 'prompt'],
    [{ ...valid, prompt: 'lone \ud800 surrogate' }, 'prompt'],
    [{ ...valid, loras: [{ path: '/media/loras/\u0000' }] }, 'loras.0.path'],
    [{ ...valid, loras: [{ path: 'x'.repeat(2049) }] }, 'loras.0.path'],
    [{ ...valid, output_format: 'webp' }, 'output_format'],
  ])('rejects %j at %s', (input, field) => {
    expect(firstIssue(input)).toBe(field);
  });

  it('accepts every aspect preset', () => {
    for (const p of ASPECT_PRESETS) expect(firstIssue({ ...valid, image_size: { width: p.width, height: p.height } })).toBe('ok');
  });
});

describe('clampDimension', () => {
  it('clamps to 512–2048 and rounds down to a multiple of 8', () => {
    expect(clampDimension('100', 1024)).toBe(512);
    expect(clampDimension('5000', 1024)).toBe(2048);
    expect(clampDimension('1023', 1024)).toBe(1016);
    expect(clampDimension('777.9', 1024)).toBe(776);
    expect(clampDimension(600, 1024)).toBe(600);
  });

  it('reverts empty or non-numeric input to the previous value', () => {
    expect(clampDimension('', 576)).toBe(576);
    expect(clampDimension('  ', 576)).toBe(576);
    expect(clampDimension('abc', 576)).toBe(576);
    expect(clampDimension('12px', 576)).toBe(576);
    expect(clampDimension('-800', 576)).toBe(576);
  });
});

describe('seeds', () => {
  it('draws integers below 2147483647', () => {
    expect(randomSeed(() => 0)).toBe(0);
    expect(randomSeed(() => 0.999999999999)).toBeLessThan(SEED_LIMIT);
    for (let i = 0; i < 100; i++) expect(Number.isInteger(randomSeed())).toBe(true);
  });

  it('keeps digits only', () => {
    expect(seedDigits('12a3-4 ')).toBe('1234');
    expect(seedDigits('0042')).toBe('0042');
  });

  it('caps the field at the largest seed the image API takes, so a locked seed is never refused or replaced', () => {
    expect(seedDigits('2147483646')).toBe('2147483646');
    expect(seedDigits('2147483647')).toBe('2147483646');
    expect(seedDigits('12345678901234567890')).toBe('2147483646');
    expect(seedDigits('00000000000000001')).toBe('00000000000000001');
    expect(seedDigits('')).toBe('');
  });
});

describe('defaults and thumbnails', () => {
  it('match the spec', () => {
    expect(GENERATION_DEFAULTS).toMatchObject({ numInferenceSteps: 28, guidanceScale: 3.5, loraScale: 1, outputFormat: 'jpeg' });
    expect(ASPECT_PRESETS.map((p) => `${p.label}=${p.width}x${p.height}`)).toEqual(['1:1=1024x1024', '16:9=1024x576', '9:16=576x1024']);
  });

  it('maps media URLs to thumbnail URLs and leaves others alone', () => {
    expect(thumbUrl('/media/generations/u/a.jpeg', 384)).toBe('/media/thumbs/384/generations/u/a.jpeg');
    expect(thumbUrl('https://x.test/media/generations/u/a.png', 768)).toBe('https://x.test/media/thumbs/768/generations/u/a.png');
    expect(thumbUrl('https://cdn.example/a.png', 384)).toBe('https://cdn.example/a.png');
  });
});
