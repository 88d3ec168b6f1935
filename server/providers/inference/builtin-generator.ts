import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { characterColours, parseBuiltinLora, type BuiltinLora, type CharacterColours } from './builtin-lora.ts';
import { composeScene } from './builtin-backdrop.ts';
import { between, type Rng } from './builtin-random.ts';
import {
  castPerson,
  headBox,
  personBounds,
  personSvg,
  placePair,
  placePerson,
  type Cast,
  type Light,
  type Placement,
} from './builtin-person.ts';
import { mix, parseHex, readPrompt, saturate, tintPalette, type Palette, type SceneReading } from './builtin-scene.ts';
import type { Framing } from './builtin-words.ts';
import { ProviderError, type GenerateInput, type GenerateOutput, type ImageGenerator } from './provider.ts';

/**
 * The built-in engine: paints, with SVG and sharp, the illustrated people and the place the prompt's words
 * describe (decision 003), so the product works offline with no model. Every random choice comes from a
 * generator seeded by the request, so the same request always gives the same bytes.
 */
export interface BuiltinGeneratorDeps {
  /** Reads a LoRA artefact by its lora_file_url; null when there is none. */
  loadLora(path: string): Promise<Buffer | null>;
}

/** The SVG is painted at this long side and scaled up: soft shapes survive, and it keeps renders fast. */
const PAINT_LONG_SIDE = 512;

export function createBuiltinGenerator(deps: BuiltinGeneratorDeps): ImageGenerator {
  return {
    name: 'builtin',
    async generate(input, opts) {
      if (opts?.signal?.aborted) throw new ProviderError('The generation was cancelled', 'cancelled');
      const loras = await loadLoras(deps, input);
      const data = await renderImage(input, loras);
      if (opts?.signal?.aborted) throw new ProviderError('The generation was cancelled', 'cancelled');
      return {
        images: [
          {
            data,
            width: input.imageSize.width,
            height: input.imageSize.height,
            contentType: input.outputFormat === 'png' ? 'image/png' : 'image/jpeg',
            nsfw: false,
          },
        ],
        seed: input.seed,
      } satisfies GenerateOutput;
    },
  };
}

interface AppliedLora {
  lora: BuiltinLora;
  scale: number;
  /** Skin and hair colours read from the reference photo. */
  colours: CharacterColours;
}

async function loadLoras(deps: BuiltinGeneratorDeps, input: GenerateInput): Promise<AppliedLora[]> {
  const applied: AppliedLora[] = [];
  for (const { path, scale } of input.loras) {
    const bytes = await deps.loadLora(path);
    if (!bytes) throw new ProviderError('The character model file could not be found', 'failed');
    const lora = parseBuiltinLora(bytes);
    if (!lora) throw new ProviderError('This character model was not made by the built-in engine', 'rejected');
    applied.push({ lora, scale, colours: await characterColours(lora) });
  }
  return applied;
}

/** Renders the image for a request. Exported for the benchmark. */
export async function renderImage(input: GenerateInput, loras: AppliedLora[] = []): Promise<Buffer> {
  const { width, height } = input.imageSize;
  const rng = seededRandom(input, loras);
  const { reading, palette, cast, at, companion } = composition(input, loras, rng);
  const scene = composeScene(width, height, reading, palette, at && { x: at.x, y: at.y + 200 * at.scale, size: 140 * at.scale }, rng);

  // The place is painted small and scaled up: soft, and cheap to rasterise. Behind a person it is painted
  // smaller still (the closer the framing, the softer), a portrait lens's depth of field.
  const paintScale = PAINT_LONG_SIDE / Math.max(width, height);
  const pw = Math.max(1, Math.round(width * paintScale));
  const ph = Math.max(1, Math.round(height * paintScale));
  const downscale = cast ? BACKDROP_DOWNSCALE[cast.framing] : 1;
  // Rasterise before resizing: given an SVG, sharp would re-render the vectors sharp at the new size.
  const small = await sharp(Buffer.from(svgDocument(width, height, pw / downscale, ph / downscale, scene.defs, scene.backdrop)))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const painted =
    downscale > 1
      ? await sharp(small.data, { raw: small.info }).resize(pw, ph, { fit: 'fill', kernel: 'cubic' }).raw().toBuffer()
      : small.data;
  // Overlays are blended here rather than by sharp's composite, which converts the whole frame to floats.
  blendInto(
    { data: painted, width: pw, height: ph },
    await rasterise(svgDocument(width, height, pw, ph, scene.defs, scene.foreground)),
    0,
    0,
  );
  const full = {
    data: await sharp(painted, { raw: { width: pw, height: ph, channels: 3 } })
      .resize(width, height, { fit: 'fill', kernel: 'linear' })
      .raw()
      .toBuffer(),
    width,
    height,
  };

  // The person is drawn at full size, crisp against the soft place, and only over the part of the picture it
  // can cover: the body, a character's face (its reference photo), then what is worn over the face and the
  // nearest snow or rain where it falls in front of the person (elsewhere it was painted with the place).
  if (cast && at) {
    const character = loras[0];
    const light = lightOf(reading, palette);
    const person = personSvg(cast, at, light, !!character);
    // A companion stands beside, a step behind: drawn first.
    const beside = companion ? personSvg(companion.cast, companion.at, light) : { body: '', over: '' };
    const box = unionOf([
      personBounds(cast, at, width, height),
      ...(companion ? [personBounds(companion.cast, companion.at, width, height)] : []),
    ]);
    const inBox = (body: string) =>
      rasterise(
        `<svg xmlns="http://www.w3.org/2000/svg" width="${box.width}" height="${box.height}" viewBox="${box.left} ${box.top} ${box.width} ${box.height}">${body}</svg>`,
      );
    blendInto(full, await inBox(beside.body + beside.over + person.body), box.left, box.top);
    if (character) {
      const photo = await portraitLayer(character, headBox(at), palette, width, height);
      blendInto(full, photo, photo.left, photo.top);
    }
    blendInto(full, await inBox(person.over + scene.near), box.left, box.top);
  }
  finishPixels(full.data, width, height, input.numInferenceSteps, rng);
  const mark = previewMark(width, height);
  blendInto(full, await rasterise(mark.svg), mark.left, mark.top);
  if (reading.monochrome) toGrey(full.data);

  const image = sharp(full.data, { raw: { width, height, channels: 3 } });
  return input.outputFormat === 'png'
    ? image.png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer()
    : image.jpeg({ quality: 88, chromaSubsampling: '4:2:0' }).toBuffer();
}

/** How many times smaller than the paint size the place behind a person is painted, by framing. */
const BACKDROP_DOWNSCALE: Record<Framing, number> = { head: 5, half: 3, full: 2 };

interface Composition {
  reading: SceneReading;
  palette: Palette;
  /** The person (a character, when one is given) and where they stand; null for a scene alone. */
  cast: Cast | null;
  at: Placement | null;
  /** A second person beside the first, when the prompt asks for two. */
  companion: { cast: Cast; at: Placement } | null;
}

/**
 * What the picture shows and where: the prompt's reading, its palette for this seed and guidance, and the
 * person (if any) with every open choice made. Exported so tests can find where the person stands.
 */
export function layoutOf(input: GenerateInput, loras: AppliedLora[] = []): Composition {
  return composition(input, loras, seededRandom(input, loras));
}

function composition(input: GenerateInput, loras: AppliedLora[], rng: Rng): Composition {
  const reading = readPrompt(input.prompt);
  let palette = reading.palette;
  for (const { lora, scale } of loras) palette = tintPalette(palette, lora.palette, 0.35 * Math.min(1.5, scale));
  palette = shiftForSeed(palette, rng);
  // Guidance is the engine's "contrast with the prompt": more guidance, richer colour.
  palette = saturate(palette, 0.8 + Math.min(20, Math.max(1, input.guidanceScale)) * 0.06);
  // A character is about a face: unless the prompt asks for the whole figure, it is framed no wider than half.
  const personReading =
    reading.person && loras.length > 0 && reading.person.framing === 'full' && !reading.person.framingSaid
      ? { ...reading.person, framing: 'half' as const }
      : reading.person;
  let cast = reading.person || loras.length > 0 ? castPerson(personReading, reading, rng) : null;
  const character = loras[0];
  if (cast && character) {
    // The character's own skin and hair; its photo shows its hairstyle, so none is drawn unless asked for.
    cast = {
      ...cast,
      ...character.colours,
      hair: reading.person?.hairColour ?? character.colours.hair,
      hairStyle: reading.person?.hairStyle ?? 'short',
    };
  }
  const { width, height } = input.imageSize;
  if (cast && reading.companion) {
    // Two people share a framing (no wider than a couple's half-body when one face was asked for).
    const framing = cast.framing === 'head' ? 'half' : cast.framing;
    const first = { ...cast, framing };
    const other = castPerson(
      { ...reading.companion, gender: reading.companion.gender ?? (cast.gender === 'feminine' ? 'masculine' : 'feminine') },
      reading,
      rng,
    );
    const second = { ...other, framing, walking: cast.walking };
    const [at, beside] = placePair(width, height, first, second, rng);
    return { reading, palette, cast: first, at, companion: { cast: second, at: beside } };
  }
  const at = cast ? placePerson(width, height, cast, rng) : null;
  return { reading, palette, cast, at, companion: null };
}

type Box = { left: number; top: number; width: number; height: number };

function unionOf(boxes: Box[]): Box {
  const left = Math.min(...boxes.map((b) => b.left));
  const top = Math.min(...boxes.map((b) => b.top));
  const right = Math.max(...boxes.map((b) => b.left + b.width));
  const bottom = Math.max(...boxes.map((b) => b.top + b.height));
  return { left, top, width: right - left, height: bottom - top };
}

/** How the scene's light falls on the person. */
function lightOf(reading: SceneReading, p: Palette): Light {
  if (reading.night) return { tint: '#34467a', amount: 0.22, dim: 0.3 };
  if (reading.weather === 'rain') return { tint: '#7d8794', amount: 0.14, dim: 0.12 };
  if (reading.golden) return { tint: '#ffa860', amount: 0.16, dim: 0 };
  if (reading.kind === 'studio') return { tint: p.glow, amount: 0.04, dim: 0 };
  return { tint: p.glow, amount: 0.08, dim: 0 };
}

function svgDocument(W: number, H: number, pw: number, ph: number, defs: string, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.max(1, Math.round(pw))}" height="${Math.max(1, Math.round(ph))}" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none"><defs>${defs}</defs>${body}</svg>`;
}

/**
 * The composition's random choices, seeded by what the picture is of: prompt, seed, size and character.
 * Steps, guidance, LoRA scale and format change how it is rendered (grain, colour, the character's
 * presence, encoding), not what it shows, as moving those sliders with a locked seed would suggest.
 */
function seededRandom(input: GenerateInput, loras: Pick<AppliedLora, 'lora'>[]): Rng {
  const key = JSON.stringify([input.prompt, input.seed, input.imageSize, loras.map((l) => [l.lora.referenceImage, l.lora.palette])]);
  const digest = createHash('sha256').update(key).digest();
  let a = digest.readUInt32LE(0);
  // mulberry32: small, fast and good enough for composition choices.
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Another seed, another light: a gentle hue and brightness drift so seeds differ beyond layout. */
function shiftForSeed(p: Palette, rng: Rng): Palette {
  const warm = rng() < 0.5 ? '#ffb070' : '#6f8cff';
  const t = between(rng, 0.04, 0.16);
  return { ...p, skyTop: mix(p.skyTop, warm, t), skyBottom: mix(p.skyBottom, warm, t * 0.8), glow: mix(p.glow, warm, t * 0.5) };
}

/**
 * The character's reference photo, blended over the drawn head like a double exposure: a soft oval that
 * fades into the picture, more present the higher the LoRA scale.
 */
async function portraitLayer(
  { lora, scale }: AppliedLora,
  head: { cx: number; cy: number; ry: number },
  p: Palette,
  width: number,
  height: number,
): Promise<Raster & { left: number; top: number }> {
  const side = Math.max(16, Math.min(width, height, Math.round(head.ry * 3.2)));
  const opacity = Math.min(1, Math.max(0.3, 0.2 + 0.65 * scale));
  const mask = Buffer.from(
    // An oval the shape of a head, solid over the face and fading out by the hairline and the chin.
    `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}"><defs><radialGradient id="m" cx="0.5" cy="0.5" r="0.5"><stop offset="0" stop-color="#fff" stop-opacity="${opacity}"/><stop offset="0.55" stop-color="#fff" stop-opacity="${opacity * 0.9}"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><ellipse cx="${side / 2}" cy="${side / 2}" rx="${side * 0.37}" ry="${side * 0.47}" fill="url(#m)"/></svg>`,
  );
  const [r, g, b] = parseHex(p.glow).map((v) => v / 255) as [number, number, number];
  const photo = await sharp(Buffer.from(lora.referenceImage, 'base64'))
    .resize(side, side, { fit: 'cover', position: 'centre' })
    // Lit by the scene: a faint wash of its light colour.
    .linear([0.88 + r * 0.12, 0.88 + g * 0.12, 0.88 + b * 0.12], [0, 0, 0])
    .ensureAlpha()
    .composite([{ input: mask, blend: 'dest-in' }])
    .raw()
    .toBuffer();
  const left = Math.min(width - side, Math.max(0, Math.round(head.cx - side / 2)));
  const top = Math.min(height - side, Math.max(0, Math.round(head.cy + head.ry * 0.15 - side / 2)));
  return { data: photo, width: side, height: side, left, top };
}

/** Pixels with their size: RGB for a picture, RGBA (not premultiplied) for an overlay. */
interface Raster {
  data: Buffer;
  width: number;
  height: number;
}

async function rasterise(svg: string): Promise<Raster> {
  const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Blends an RGBA overlay onto RGB pixels with its top-left corner at (left, top), in place; edges clip. */
function blendInto(target: Raster, overlay: Raster, left: number, top: number): void {
  const x0 = Math.max(0, -left);
  const x1 = Math.min(overlay.width, target.width - left);
  const y0 = Math.max(0, -top);
  const y1 = Math.min(overlay.height, target.height - top);
  const src = overlay.data;
  const dst = target.data;
  for (let y = y0; y < y1; y++) {
    let s = (y * overlay.width + x0) * 4;
    let d = ((y + top) * target.width + x0 + left) * 3;
    for (let x = x0; x < x1; x++, s += 4, d += 3) {
      const a = src[s + 3]!;
      if (a === 0) continue;
      if (a === 255) {
        dst[d] = src[s]!;
        dst[d + 1] = src[s + 1]!;
        dst[d + 2] = src[s + 2]!;
        continue;
      }
      const t = a / 255;
      dst[d] = dst[d]! + (src[s]! - dst[d]!) * t;
      dst[d + 1] = dst[d + 1]! + (src[s + 1]! - dst[d + 1]!) * t;
      dst[d + 2] = dst[d + 2]! + (src[s + 2]! - dst[d + 2]!) * t;
    }
  }
}

/** The lens's fall-off: from the centre (a little above the middle) to the corners, the picture darkens. */
const VIGNETTE = { cx: 0.5, cy: 0.45, radius: 0.75, from: 0.55, depth: 0.55 };
const VIGNETTE_STEPS = 256;

/**
 * Vignette and film grain, applied in place in one pass over the pixels; fewer inference steps leave more
 * grain, as a diffusion model would. The vignette is a table lookup on the squared distance (no square
 * root per pixel), so the pass stays a few milliseconds for a megapixel.
 */
function finishPixels(pixels: Buffer, width: number, height: number, steps: number, rng: Rng): void {
  const amplitude = 8 + 36 / Math.max(1, steps);
  // Distances are measured in units of the picture's size, like an SVG gradient on the whole frame.
  const dx2 = new Float64Array(width);
  for (let x = 0; x < width; x++) dx2[x] = ((x + 0.5) / width - VIGNETTE.cx) ** 2;
  const inner2 = (VIGNETTE.radius * VIGNETTE.from) ** 2;
  const outer2 = VIGNETTE.radius ** 2;
  const gain = new Float64Array(VIGNETTE_STEPS + 1);
  for (let k = 0; k <= VIGNETTE_STEPS; k++) {
    const d = Math.sqrt(inner2 + ((outer2 - inner2) * k) / VIGNETTE_STEPS) / VIGNETTE.radius;
    gain[k] = 1 - VIGNETTE.depth * Math.min(1, (d - VIGNETTE.from) / (1 - VIGNETTE.from));
  }
  const toStep = VIGNETTE_STEPS / (outer2 - inner2);
  let s = (rng() * 4294967296) >>> 0 || 1;
  let i = 0;
  for (let y = 0; y < height; y++) {
    const dy2 = ((y + 0.5) / height - VIGNETTE.cy) ** 2;
    for (let x = 0; x < width; x++, i += 3) {
      const d2 = dx2[x]! + dy2;
      const g = d2 <= inner2 ? 1 : gain[Math.min(VIGNETTE_STEPS, ((d2 - inner2) * toStep) | 0)]!;
      // xorshift32: one value per pixel keeps the grain grey.
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      const n = (((s >>> 0) & 0xff) / 255 - 0.5) * amplitude;
      pixels[i] = clampByte(pixels[i]! * g + n);
      pixels[i + 1] = clampByte(pixels[i + 1]! * g + n);
      pixels[i + 2] = clampByte(pixels[i + 2]! * g + n);
    }
  }
}

/** Each RGB pixel to its luma (Rec. 601 weights), in place: a black-and-white photograph's tones. */
function toGrey(pixels: Buffer): void {
  for (let i = 0; i < pixels.length; i += 3) {
    const y = Math.round(0.299 * pixels[i] + 0.587 * pixels[i + 1] + 0.114 * pixels[i + 2]);
    pixels[i] = pixels[i + 1] = pixels[i + 2] = y;
  }
}

function clampByte(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

/** A small, quiet "preview" label in the bottom-right corner. */
function previewMark(width: number, height: number): { svg: string; left: number; top: number } {
  const unit = Math.max(9, Math.round(Math.min(width, height) * 0.02));
  const padX = unit * 0.8;
  const boxW = Math.round(unit * 4.6 + padX * 2 + unit * 1.1);
  const boxH = Math.round(unit * 1.9);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${boxW}" height="${boxH}">` +
    `<rect width="${boxW}" height="${boxH}" rx="${boxH / 2}" fill="#000" fill-opacity="0.35"/>` +
    `<circle cx="${padX + unit * 0.35}" cy="${boxH / 2}" r="${unit * 0.32}" fill="none" stroke="#fff" stroke-opacity="0.85" stroke-width="${unit * 0.12}"/>` +
    `<text x="${padX + unit * 1.05}" y="${boxH / 2 + unit * 0.36}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="${unit}" letter-spacing="${unit * 0.08}" fill="#fff" fill-opacity="0.85">preview</text>` +
    `</svg>`;
  return { svg, left: width - boxW - unit, top: height - boxH - unit };
}
