import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createBuiltinGenerator } from './builtin-generator.ts';
import { BUILTIN_LORA_FORMAT, buildBuiltinLora, parseBuiltinLora } from './builtin-lora.ts';
import { readPrompt } from './builtin-scene.ts';
import { ProviderError, type GenerateInput } from './index.ts';

const base: GenerateInput = {
  prompt: 'a woman walking on a tropical beach at sunset',
  imageSize: { width: 512, height: 384 },
  loras: [],
  seed: 1234,
  numInferenceSteps: 28,
  guidanceScale: 3.5,
  outputFormat: 'jpeg',
};

const noLoras = createBuiltinGenerator({ loadLora: async () => null });

async function render(input: Partial<GenerateInput>, generator = noLoras): Promise<Buffer> {
  const out = await generator.generate({ ...base, ...input });
  expect(out.images).toHaveLength(1);
  return out.images[0]!.data!;
}

/** Mean absolute difference of two same-sized images, per channel value (0–255). */
async function difference(a: Buffer, b: Buffer): Promise<number> {
  const [ra, rb] = await Promise.all([a, b].map((img) => sharp(img).removeAlpha().raw().toBuffer()));
  let sum = 0;
  for (let i = 0; i < ra!.length; i++) sum += Math.abs(ra![i]! - rb![i]!);
  return sum / ra!.length;
}

/** A stand-in training photo: a face-like oval on a coloured background. */
async function photo(skin: string, backdrop: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="400"><rect width="300" height="400" fill="${backdrop}"/><ellipse cx="150" cy="150" rx="70" ry="90" fill="${skin}"/><circle cx="125" cy="135" r="8" fill="#222"/><circle cx="175" cy="135" r="8" fill="#222"/><rect x="60" y="260" width="180" height="140" fill="#345"/></svg>`;
  return sharp(Buffer.from(svg)).jpeg().toBuffer();
}

describe('builtin generator', () => {
  it('gives byte-identical output for the same request', async () => {
    const [a, b] = [await render({}), await render({})];
    expect(a.equals(b)).toBe(true);
  });

  it('gives a visibly different image for another seed', async () => {
    const [a, b] = [await render({ seed: 1 }), await render({ seed: 2 })];
    expect(a.equals(b)).toBe(false);
    expect(await difference(a, b)).toBeGreaterThan(4);
  });

  it('renders exactly the requested size and format', async () => {
    for (const [width, height, format] of [
      [1024, 576, 'jpeg'],
      [576, 1024, 'png'],
      [512, 512, 'png'],
    ] as const) {
      const out = await noLoras.generate({ ...base, imageSize: { width, height }, outputFormat: format });
      const image = out.images[0]!;
      const meta = await sharp(image.data!).metadata();
      expect({ width: meta.width, height: meta.height, format: meta.format }).toEqual({ width, height, format });
      expect(image).toMatchObject({ width, height, contentType: `image/${format}`, nsfw: false });
    }
  });

  it('reads the scene and colours from the prompt', () => {
    expect(readPrompt('a city street at night').kind).toBe('city');
    expect(readPrompt('a city street at night').night).toBe(true);
    expect(readPrompt('professional headshot, grey backdrop').kind).toBe('studio');
    expect(readPrompt('snowy mountains').kind).toBe('mountain');
    expect(readPrompt('a red forest').palette).not.toEqual(readPrompt('a blue forest').palette);
  });

  it('paints a different picture for a different prompt', async () => {
    const [beach, city] = [await render({ prompt: 'a beach' }), await render({ prompt: 'a city skyline at night' })];
    expect(await difference(beach, city)).toBeGreaterThan(10);
  });

  it('shows the character of a built-in LoRA, more strongly with a higher scale', async () => {
    const lora = await buildBuiltinLora({
      images: [await photo('#e0b090', '#2a6f4f'), await photo('#d8a888', '#2f7050'), await photo('#e4b898', '#1f5f45')],
      characterName: 'Ada',
      triggerWord: 'ada',
    });
    const withLora = createBuiltinGenerator({ loadLora: async (path) => (path === '/media/loras/ada.json' ? lora : null) });
    const plain = await render({}, withLora);
    const one = await render({ loras: [{ path: '/media/loras/ada.json', scale: 1 }] }, withLora);
    const again = await render({ loras: [{ path: '/media/loras/ada.json', scale: 1 }] }, withLora);
    const strong = await render({ loras: [{ path: '/media/loras/ada.json', scale: 1.5 }] }, withLora);
    expect(one.equals(again)).toBe(true);
    expect(await difference(plain, one)).toBeGreaterThan(5);
    expect(await difference(plain, strong)).toBeGreaterThan(await difference(plain, one));
  });

  it('fails clearly when the LoRA file is missing or not a built-in one', async () => {
    await expect(render({ loras: [{ path: '/media/x', scale: 1 }] })).rejects.toMatchObject({ kind: 'failed' });
    const foreign = createBuiltinGenerator({ loadLora: async () => Buffer.from('safetensors bytes') });
    const err = await render({ loras: [{ path: 'https://v3.fal.media/x.safetensors', scale: 1 }] }, foreign).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'rejected' });
  });
});

describe('buildBuiltinLora', () => {
  it('builds the documented artefact from photos', async () => {
    const bytes = await buildBuiltinLora({ images: [await photo('#e0b090', '#aa3333')], characterName: 'Ada', triggerWord: 'ada' });
    const lora = parseBuiltinLora(bytes)!;
    expect(lora).toMatchObject({ format: BUILTIN_LORA_FORMAT, characterName: 'Ada', triggerWord: 'ada', imageCount: 1 });
    expect(lora.palette.length).toBeGreaterThan(0);
    const reference = await sharp(Buffer.from(lora.referenceImage, 'base64')).metadata();
    expect({ format: reference.format, width: reference.width, height: reference.height }).toEqual({ format: 'jpeg', width: 256, height: 256 });
  });

  it('refuses when no photo can be read', async () => {
    await expect(buildBuiltinLora({ images: [Buffer.from('not an image')], characterName: 'Ada' })).rejects.toThrow(/could be read/);
  });
});
