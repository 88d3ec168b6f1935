import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createBuiltinGenerator, layoutOf } from './builtin-generator.ts';
import { BUILTIN_LORA_FORMAT, buildBuiltinLora, characterColours, parseBuiltinLora } from './builtin-lora.ts';
import { headBox, torsoBox } from './builtin-person.ts';
import { readPrompt } from './builtin-scene.ts';
import { ProviderError, type GenerateInput } from './provider.ts';

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

  it("marks every image 'preview' in its bottom-right corner", async () => {
    // A bright scene: the mark is a dark pill with light lettering, 2% of the short side high.
    const { data, info } = await sharp(await render({ prompt: 'a snowy field under a white sky', imageSize: { width: 1000, height: 800 } }))
      .raw()
      .toBuffer({ resolveWithObject: true });
    const luma = (x: number, y: number) => {
      const i = (y * info.width + x) * info.channels;
      return 0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!;
    };
    const region = (left: number, top: number, w: number, h: number) => {
      const values: number[] = [];
      for (let y = top; y < top + h; y++) for (let x = left; x < left + w; x++) values.push(luma(x, y));
      return values;
    };
    const mark = region(1000 - 16 - 100, 800 - 16 - 30, 100, 30);
    const above = region(1000 - 16 - 100, 800 - 16 - 90, 100, 30);
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    expect(mean(above) - mean(mark)).toBeGreaterThan(25);
    expect(mark.filter((v) => v > mean(mark) + 60).length).toBeGreaterThan(40);
  });

  it('reads the scene and colours from the prompt', () => {
    expect(readPrompt('a city street at night').kind).toBe('city');
    expect(readPrompt('a city street at night').night).toBe(true);
    expect(readPrompt('professional headshot, grey backdrop').kind).toBe('studio');
    expect(readPrompt('snowy mountains').kind).toBe('mountain');
    expect(readPrompt('a red forest').palette).not.toEqual(readPrompt('a blue forest').palette);
  });

  it("renders 'black and white' and 'monochrome' prompts without colour, with a character too", async () => {
    /** Mean of each pixel's max − min over R, G and B: 0 for a grey picture. */
    const saturation = async (image: Buffer) => {
      const raw = await sharp(image).removeAlpha().raw().toBuffer();
      let sum = 0;
      for (let i = 0; i < raw.length; i += 3)
        sum += Math.max(raw[i]!, raw[i + 1]!, raw[i + 2]!) - Math.min(raw[i]!, raw[i + 1]!, raw[i + 2]!);
      return sum / (raw.length / 3);
    };
    const lora = await buildBuiltinLora({ images: [await photo('#d9a27c', '#3a7bd5')], characterName: 'Ada', triggerWord: 'ada' });
    const withCharacter = createBuiltinGenerator({ loadLora: async () => lora });
    const portrait = 'studio portrait of a woman with red hair, teal backdrop, golden light';
    expect(await saturation(await render({ prompt: portrait }))).toBeGreaterThan(15);
    for (const prompt of [
      `black and white ${portrait}`,
      `${portrait}, monochrome`,
      'B&W street photo of a man in a red coat',
      'grayscale landscape at sunset',
    ]) {
      expect(readPrompt(prompt).monochrome).toBe(true);
      expect(await saturation(await render({ prompt })), prompt).toBeLessThan(1.5);
      expect(await saturation(await render({ prompt, outputFormat: 'png' }))).toBe(0);
    }
    const character = await render({ prompt: `black and white headshot of a person`, loras: [{ path: 'x', scale: 1 }] }, withCharacter);
    expect(await saturation(character)).toBeLessThan(1.5);
    expect(readPrompt('a white and black cat').monochrome).toBe(false);
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

  it("blends the character's photo where the head is, more closely with a higher scale", async () => {
    const reference = await photo('#e0b090', '#2a6f4f');
    const lora = parseBuiltinLora(await buildBuiltinLora({ images: [reference], characterName: 'Ada', triggerWord: 'ada' }))!;
    const colours = await characterColours(lora);
    const input = { ...base, prompt: 'portrait of ada in a park', imageSize: { width: 512, height: 640 } };
    const distances: number[] = [];
    for (const scale of [0, 0.5, 1.5]) {
      const loras = scale ? [{ lora, scale, colours }] : [];
      const withLora = createBuiltinGenerator({ loadLora: async () => Buffer.from(JSON.stringify(lora)) });
      const image = await render({ ...input, loras: loras.map(() => ({ path: '/media/loras/ada.json', scale })) }, withLora);
      const head = headBox(layoutOf(input, loras).at!);
      distances.push(await regionDistance(image, head, reference));
    }
    // Without the character the head is a drawing; with it the photo shows through, the more the higher the scale.
    expect(distances[1]).toBeLessThan(distances[0]! - 5);
    expect(distances[2]).toBeLessThan(distances[1]!);
  });

  it('fails clearly when the LoRA file is missing or not a built-in one', async () => {
    await expect(render({ loras: [{ path: '/media/x', scale: 1 }] })).rejects.toMatchObject({ kind: 'failed' });
    const foreign = createBuiltinGenerator({ loadLora: async () => Buffer.from('safetensors bytes') });
    const err = await render({ loras: [{ path: 'https://v3.fal.media/x.safetensors', scale: 1 }] }, foreign).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'rejected' });
  });
});

type Rgb = [number, number, number];

/** Mean colour of the pixels of `image` in `boxes`. */
async function meanColour(image: Buffer, boxes: { left: number; top: number; width: number; height: number }[]): Promise<Rgb> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const sum: Rgb = [0, 0, 0];
  let n = 0;
  for (const box of boxes) {
    for (let y = Math.round(box.top); y < Math.round(box.top + box.height); y++) {
      for (let x = Math.round(box.left); x < Math.round(box.left + box.width); x++) {
        const i = (y * info.width + x) * 3;
        sum[0] += data[i]!;
        sum[1] += data[i + 1]!;
        sum[2] += data[i + 2]!;
        n++;
      }
    }
  }
  return sum.map((v) => v / n) as Rgb;
}

/** Hue in degrees (0 red, 120 green, 240 blue). */
function hue([r, g, b]: Rgb): number {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max === min) return 0;
  const d = max - min;
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return (h * 60 + 360) % 360;
}

const luma = ([r, g, b]: Rgb) => 0.299 * r + 0.587 * g + 0.114 * b;

/** Mean absolute difference between the head's box in `image` and the reference photo scaled to it. */
async function regionDistance(image: Buffer, head: { cx: number; cy: number; rx: number; ry: number }, reference: Buffer): Promise<number> {
  const box = {
    left: Math.round(head.cx - head.rx * 0.7),
    top: Math.round(head.cy - head.ry * 0.7),
    width: Math.round(head.rx * 1.4),
    height: Math.round(head.ry * 1.4),
  };
  const crop = await sharp(image).extract(box).removeAlpha().raw().toBuffer();
  // The reference crop is square and centred on the face; the head's box is its middle.
  const ref = await sharp(
    await sharp(reference).resize(256, 256, { fit: 'cover' }).extract({ left: 64, top: 48, width: 128, height: 160 }).toBuffer(),
  )
    .resize(box.width, box.height, { fit: 'fill' })
    .removeAlpha()
    .raw()
    .toBuffer();
  let sum = 0;
  for (let i = 0; i < crop.length; i++) sum += Math.abs(crop[i]! - ref[i]!);
  return sum / crop.length;
}

describe('the person the prompt describes', () => {
  const portrait = { width: 512, height: 640 };

  /** The garment's colour: the torso either side of the front opening (where a shirt or lapels show). */
  async function garmentColour(prompt: string): Promise<Rgb> {
    const input = { ...base, prompt, imageSize: portrait };
    const { cast, at } = layoutOf(input);
    expect(cast, prompt).not.toBeNull();
    const torso = torsoBox(cast!, at!);
    const side = { ...torso, width: torso.width * 0.3 };
    return meanColour(await render(input), [side, { ...side, left: torso.left + torso.width * 0.7 }]);
  }

  it("paints the garment's colour where the person stands: a red coat is red, a navy blazer dark blue", async () => {
    const red = await garmentColour('a woman in a red coat standing in a park');
    const navy = await garmentColour('a man in a navy blazer standing in a park');
    expect(hue(red) < 20 || hue(red) > 340, `red coat ${red}`).toBe(true);
    expect(red[0] - Math.max(red[1], red[2])).toBeGreaterThan(60);
    expect(hue(navy), `navy blazer ${navy}`).toBeGreaterThan(200);
    expect(hue(navy)).toBeLessThan(250);
    expect(luma(navy)).toBeLessThan(80);
    const white = await garmentColour('a man in a white t-shirt in a park');
    const black = await garmentColour('a man in a black leather jacket in a park');
    expect(luma(white) - luma(black)).toBeGreaterThan(120);
  });

  it('changes the clothes, not the place, when only the clothing words change', async () => {
    const green = await garmentColour('a woman in a green dress in a park');
    const yellow = await garmentColour('a woman in a yellow dress in a park');
    expect(hue(green)).toBeGreaterThan(100);
    expect(hue(green)).toBeLessThan(170);
    expect(hue(yellow)).toBeGreaterThan(30);
    expect(hue(yellow)).toBeLessThan(60);
  });

  it('paints two people when the prompt names two, each in their own clothes', async () => {
    const input = { ...base, prompt: 'a woman in a red dress and her husband in a navy suit at a wedding', imageSize: portrait };
    const { cast, at, companion } = layoutOf(input);
    expect([cast?.gender, companion?.cast.gender]).toEqual(['feminine', 'masculine']);
    const image = await render(input);
    const sides = (box: ReturnType<typeof torsoBox>) => {
      const side = { ...box, width: box.width * 0.3 };
      return [side, { ...side, left: box.left + box.width * 0.7 }];
    };
    const dress = await meanColour(image, sides(torsoBox(cast!, at!)));
    const suit = await meanColour(image, sides(torsoBox(companion!.cast, companion!.at)));
    expect(dress[0] - Math.max(dress[1], dress[2]), `red dress ${dress}`).toBeGreaterThan(60);
    expect(hue(suit), `navy suit ${suit}`).toBeGreaterThan(200);
    expect(luma(suit)).toBeLessThan(80);
  });

  it('paints the hair colour the prompt names above the forehead', async () => {
    const crown = async (prompt: string) => {
      const input = { ...base, prompt, imageSize: portrait };
      const head = headBox(layoutOf(input).at!);
      return meanColour(await render(input), [
        { left: head.cx - head.rx * 0.4, top: head.cy - head.ry * 0.95, width: head.rx * 0.8, height: head.ry * 0.2 },
      ]);
    };
    const blonde = await crown('close-up portrait of a woman with long blonde hair');
    const black = await crown('close-up portrait of a woman with long black hair');
    expect(luma(blonde) - luma(black)).toBeGreaterThan(80);
  });

  it('paints falling snow and a night sky', async () => {
    const input = (prompt: string) => ({ ...base, prompt, imageSize: portrait, seed: 5 });
    const sky = { left: 0, top: 0, width: portrait.width, height: portrait.height * 0.3 };
    const whiteDots = async (prompt: string) => {
      const { data } = await sharp(await render(input(prompt)))
        .extract(sky)
        .raw()
        .toBuffer({ resolveWithObject: true });
      let n = 0;
      for (let i = 0; i < data.length; i += 3) if (data[i]! > 215 && data[i + 1]! > 215 && data[i + 2]! > 215) n++;
      return n;
    };
    expect(await whiteDots('a woman on a snowy street at night')).toBeGreaterThan(
      20 + 3 * (await whiteDots('a woman on a street at night')),
    );
    const day = luma(await meanColour(await render(input('a woman on a city street')), [sky]));
    const night = luma(await meanColour(await render(input('a woman on a city street at night')), [sky]));
    expect(day - night).toBeGreaterThan(40);
  });
});

describe('buildBuiltinLora', () => {
  it('builds the documented artefact from photos', async () => {
    const bytes = await buildBuiltinLora({ images: [await photo('#e0b090', '#aa3333')], characterName: 'Ada', triggerWord: 'ada' });
    const lora = parseBuiltinLora(bytes)!;
    expect(lora).toMatchObject({ format: BUILTIN_LORA_FORMAT, characterName: 'Ada', triggerWord: 'ada', imageCount: 1 });
    expect(lora.palette.length).toBeGreaterThan(0);
    const reference = await sharp(Buffer.from(lora.referenceImage, 'base64')).metadata();
    expect({ format: reference.format, width: reference.width, height: reference.height }).toEqual({
      format: 'jpeg',
      width: 256,
      height: 256,
    });
  });

  it('refuses when no photo can be read', async () => {
    await expect(buildBuiltinLora({ images: [Buffer.from('not an image')], characterName: 'Ada' })).rejects.toThrow(/could be read/);
  });
});
