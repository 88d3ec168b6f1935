import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import sharp, { type OverlayOptions } from 'sharp';
import { describe, expect, it } from 'vitest';
import { layoutOf, renderImage } from './builtin-generator.ts';
import type { GenerateInput } from './provider.ts';

/**
 * Twelve prompts, twelve people: the built-in engine's contact sheet, kept as a test artefact to look at
 * (test-results-engine/contact-sheet.png, ignored by git; Playwright empties test-results/ when it starts,
 * so the sheet has a folder of its own). The test checks what a machine can: every prompt gets a person of
 * the described kind and twelve different pictures.
 */
const PROMPTS = [
  'a woman in a red coat walking through a snowy city street at night',
  'professional headshot of a man in a navy blazer and white shirt, grey backdrop',
  'an elderly man with a white beard and glasses in a brown tweed jacket reading in a cozy library',
  'close-up portrait of a young East Asian woman with long black hair in a cream sweater, golden hour in a garden',
  'full-body photo of a girl in a yellow raincoat with an umbrella on a rainy street',
  'an African man with short hair in a black leather jacket in a Paris alley, morning light',
  'a blonde woman in an emerald silk dress on a rooftop at sunset',
  'a red-haired woman with a bob in a green turtleneck in a cafe',
  'a bald man with sunglasses in a white t-shirt and jeans on a tropical beach',
  'a South Asian woman in a purple blazer, corporate headshot, light grey backdrop',
  'a hiker with a beanie and an orange puffer jacket in the snowy mountains',
  'an old woman with silver hair in a bun wearing a pink cardigan in a foggy forest',
];

const SIZE = { width: 384, height: 480 };
const CAPTION = 40;
const GAP = 8;
const COLUMNS = 4;
const CONTACT_SHEET = fileURLToPath(new URL('../../../test-results-engine/contact-sheet.png', import.meta.url));

const request = (prompt: string, i: number): GenerateInput => ({
  prompt,
  imageSize: SIZE,
  loras: [],
  seed: 7 + i,
  numInferenceSteps: 28,
  guidanceScale: 3.5,
  outputFormat: 'jpeg',
});

/** The prompt in two lines of small text under its picture. */
function caption(prompt: string): Buffer {
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const words = prompt.split(' ');
  const lines = ['', ''];
  for (const word of words) {
    const line = lines[0]!.length + word.length < 58 && !lines[1] ? 0 : 1;
    lines[line] += `${word} `;
  }
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE.width}" height="${CAPTION}">` +
      lines
        .map(
          (l, i) =>
            `<text x="0" y="${14 + i * 16}" font-family="DejaVu Sans, sans-serif" font-size="12" fill="#222">${escape(l.trim().slice(0, 64))}</text>`,
        )
        .join('') +
      `</svg>`,
  );
}

describe('the built-in engine contact sheet', () => {
  it('renders twelve prompts as twelve people of the described kind, written to test-results-engine/', async () => {
    const genders: (string | undefined)[] = [];
    const cells: OverlayOptions[] = [];
    const pixels: Buffer[] = [];
    for (const [i, prompt] of PROMPTS.entries()) {
      const input = request(prompt, i);
      genders.push(layoutOf(input).cast?.gender);
      const image = await renderImage(input);
      pixels.push(await sharp(image).resize(48, 60).raw().toBuffer());
      const left = GAP + (i % COLUMNS) * (SIZE.width + GAP);
      const top = GAP + Math.floor(i / COLUMNS) * (SIZE.height + CAPTION + GAP);
      cells.push({ input: image, left, top }, { input: caption(prompt), left, top: top + SIZE.height + 4 });
    }
    const rows = Math.ceil(PROMPTS.length / COLUMNS);
    const sheet = await sharp({
      create: {
        width: GAP + COLUMNS * (SIZE.width + GAP),
        height: GAP + rows * (SIZE.height + CAPTION + GAP),
        channels: 3,
        background: '#f4f2ee',
      },
    })
      .composite(cells)
      .png()
      .toBuffer();
    await mkdir(new URL('../../../test-results-engine/', import.meta.url), { recursive: true });
    await writeFile(CONTACT_SHEET, sheet);

    expect(genders).toEqual([
      'feminine',
      'masculine',
      'masculine',
      'feminine',
      'feminine',
      'masculine',
      'feminine',
      'feminine',
      'masculine',
      'feminine',
      genders[10],
      'feminine',
    ]);
    expect(genders[10]).toBeDefined();
    // Twelve different pictures, not one picture twelve times.
    for (let a = 0; a < pixels.length; a++) {
      for (let b = a + 1; b < pixels.length; b++) expect(pixels[a]!.equals(pixels[b]!), `${a} and ${b}`).toBe(false);
    }
    const meta = await sharp(CONTACT_SHEET).metadata();
    expect({ width: meta.width, height: meta.height }).toEqual({ width: 1576, height: 1592 });
  });
});
