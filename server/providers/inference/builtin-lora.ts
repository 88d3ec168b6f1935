import sharp from 'sharp';
import { DECODE_LIMITS } from '../../domain/image-budget.ts';
import { z } from 'zod';
import { shade, toHex } from './builtin-scene.ts';

/**
 * The built-in engine's "LoRA": not weights but what the engine needs to paint a character — a face
 * reference and a colour profile — derived from the training photos. Stored by the trainer as JSON
 * under the training's lora_file_url; the generator reads it back through `loadLora`.
 */
export const BUILTIN_LORA_FORMAT = 'likeness-builtin-lora/1';

const hex = z.string().regex(/^#[0-9a-f]{6}$/i);

export const builtinLoraSchema = z.object({
  format: z.literal(BUILTIN_LORA_FORMAT),
  characterName: z.string().min(1),
  triggerWord: z.string().nullable(),
  /** Dominant colours of the photos, most typical first. */
  palette: z.array(hex).min(1).max(8),
  /** A square JPEG crop centred on the face (base64). */
  referenceImage: z.string().min(1),
  /** How many photos the artefact was derived from. */
  imageCount: z.number().int().positive(),
  createdAt: z.string(),
});

export type BuiltinLora = z.infer<typeof builtinLoraSchema>;

export const REFERENCE_SIZE = 256;

export interface BuildBuiltinLoraInput {
  images: Buffer[];
  characterName: string;
  triggerWord?: string | null;
  /** Improves the reference crop when a face detector is available; attention crop otherwise. */
  faceBox?: (image: Buffer) => Promise<{ left: number; top: number; width: number; height: number } | null>;
  now?: Date;
}

/** Builds the artefact from training photos: a face crop of the first usable photo and their common colours. */
export async function buildBuiltinLora(input: BuildBuiltinLoraInput): Promise<Buffer> {
  if (input.images.length === 0) throw new Error('buildBuiltinLora needs at least one image');
  let reference: Buffer | null = null;
  const colours: [number, number, number][] = [];
  for (const image of input.images) {
    try {
      colours.push(await dominantColour(image));
      reference ??= await referenceCrop(image, input.faceBox);
    } catch {
      // An unreadable photo does not spoil the others; the trainer checked the archive already.
    }
  }
  if (!reference) throw new Error('None of the training photos could be read as an image');
  const artefact: BuiltinLora = {
    format: BUILTIN_LORA_FORMAT,
    characterName: input.characterName,
    triggerWord: input.triggerWord || null,
    palette: paletteOf(colours),
    referenceImage: reference.toString('base64'),
    imageCount: input.images.length,
    createdAt: (input.now ?? new Date()).toISOString(),
  };
  return Buffer.from(JSON.stringify(artefact));
}

/** Parses artefact bytes; null when they are not a built-in LoRA (e.g. a fal safetensors file). */
export function parseBuiltinLora(bytes: Buffer): BuiltinLora | null {
  try {
    const parsed = builtinLoraSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

async function referenceCrop(image: Buffer, faceBox: BuildBuiltinLoraInput['faceBox']): Promise<Buffer> {
  const oriented = await sharp(image, DECODE_LIMITS).rotate().toBuffer();
  const box = faceBox ? await faceBox(oriented) : null;
  let pipeline = sharp(oriented, DECODE_LIMITS);
  if (box) {
    // Widen the detector's tight box so hair and chin stay in the reference.
    const meta = await sharp(oriented, DECODE_LIMITS).metadata();
    const side = Math.round(Math.max(box.width, box.height) * 1.5);
    const cx = box.left + box.width / 2;
    const cy = box.top + box.height / 2;
    const left = clamp(Math.round(cx - side / 2), 0, Math.max(0, (meta.width ?? side) - side));
    const top = clamp(Math.round(cy - side / 2), 0, Math.max(0, (meta.height ?? side) - side));
    pipeline = pipeline.extract({
      left,
      top,
      width: Math.min(side, meta.width ?? side),
      height: Math.min(side, meta.height ?? side),
    });
    return pipeline.resize(REFERENCE_SIZE, REFERENCE_SIZE, { fit: 'cover' }).jpeg({ quality: 88 }).toBuffer();
  }
  // Without a detector: the upper-middle of a portrait photo is where the face usually is; the
  // attention strategy then keeps the most detailed (skin, eyes) part of that square.
  const meta = await sharp(oriented, DECODE_LIMITS).metadata();
  const w = meta.width ?? REFERENCE_SIZE;
  const h = meta.height ?? REFERENCE_SIZE;
  const side = Math.min(w, h);
  const top = h > w ? Math.round(Math.min(h - side, h * 0.08)) : 0;
  return sharp(oriented, DECODE_LIMITS)
    .extract({ left: Math.round((w - side) / 2), top, width: side, height: side })
    .resize(REFERENCE_SIZE, REFERENCE_SIZE, { fit: 'cover', position: sharp.strategy.attention })
    .jpeg({ quality: 88 })
    .toBuffer();
}

async function dominantColour(image: Buffer): Promise<[number, number, number]> {
  const { dominant } = await sharp(image, DECODE_LIMITS).resize(64, 64, { fit: 'inside' }).stats();
  return [dominant.r, dominant.g, dominant.b];
}

/** Up to five distinct colours, most frequent first, so the palette describes the set, not one photo. */
function paletteOf(colours: [number, number, number][]): string[] {
  const buckets: { rgb: [number, number, number]; count: number }[] = [];
  for (const c of colours) {
    const near = buckets.find((b) => distance(b.rgb, c) < 48);
    if (near) near.count += 1;
    else buckets.push({ rgb: c, count: 1 });
  }
  return buckets
    .sort((a, b) => b.count - a.count)
    .slice(0, 5)
    .map((b) => toHex(b.rgb));
}

function distance(a: [number, number, number], b: [number, number, number]): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

export interface CharacterColours {
  skin: string;
  skinShade: string;
  hair: string;
}

/**
 * The character's skin and hair colours, read from its reference crop (centred on the face): the cheeks
 * and nose below the eyes, and the band above the forehead.
 */
export async function characterColours(lora: BuiltinLora): Promise<CharacterColours> {
  const reference = Buffer.from(lora.referenceImage, 'base64');
  const meanOf = async (left: number, top: number, width: number, height: number) => {
    const { channels } = await sharp(reference)
      .resize(REFERENCE_SIZE, REFERENCE_SIZE, { fit: 'fill' })
      .extract({
        left: Math.round(left * REFERENCE_SIZE),
        top: Math.round(top * REFERENCE_SIZE),
        width: Math.round(width * REFERENCE_SIZE),
        height: Math.round(height * REFERENCE_SIZE),
      })
      .stats();
    return toHex([channels[0]!.mean, channels[1]!.mean, channels[2]!.mean]);
  };
  const skin = await meanOf(0.4, 0.46, 0.2, 0.14);
  return { skin, skinShade: shade(skin, -0.12), hair: await meanOf(0.32, 0.04, 0.36, 0.1) };
}
