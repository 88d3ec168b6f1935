import sharp from 'sharp';
// A relative path: the analyser's worker thread runs without the @common alias.
import { LIMITS } from '../../common/product.ts';
import { paletteOf, type RgbImage } from './colours.ts';
import { detect } from './human-model.ts';
import { imageStats } from './image-stats.ts';
import type { Box, FaceFinding, ImageAnalysis, NamedColour } from './types.ts';

/** Models see at most this many pixels on the long side; more only costs time. */
const MAX_SIDE = 1024;

export async function decodeRgb(image: Buffer | Uint8Array): Promise<RgbImage> {
  const { data, info } = await sharp(image, { limitInputPixels: LIMITS.imageMaxPixels })
    .rotate()
    .resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

function clip(box: Box): Box | null {
  const x0 = Math.max(0, box[0]);
  const y0 = Math.max(0, box[1]);
  const x1 = Math.min(1, box[0] + box[2]);
  const y1 = Math.min(1, box[1] + box[3]);
  return x1 - x0 > 0.01 && y1 - y0 > 0.01 ? [x0, y0, x1 - x0, y1 - y0] : null;
}

/** Colours of the chest area below the face; null when too little of it is in frame to judge. */
function clothingColours(img: RgbImage, face: FaceFinding): NamedColour[] | null {
  const [x, y, w, h] = face.box;
  const chest = clip([x - 0.4 * w, y + 1.25 * h, 1.8 * w, 1.1 * h]);
  if (!chest || chest[3] < 0.35 * h) return null;
  return paletteOf(img, chest, 2000)
    .filter((c, i) => i === 0 || c.share >= 0.25)
    .slice(0, 2);
}

/** Colour of the band just above the face box, where the hair is when the head is upright. */
function hairColour(img: RgbImage, face: FaceFinding): NamedColour | null {
  const [x, y, w, h] = face.box;
  const band = clip([x + 0.2 * w, y - 0.12 * h, 0.6 * w, 0.12 * h]);
  if (!band || band[3] < 0.08 * h) return null;
  const [top] = paletteOf(img, band, 800);
  return top && top.share >= 0.4 ? top : null;
}

/** Everything the captions need from one image: detections, light and colour. */
export async function analyseImage(image: Buffer | Uint8Array): Promise<ImageAnalysis> {
  const started = performance.now();
  const img = await decodeRgb(image);
  const decoded = performance.now();
  const { faces, bodies, objects } = await detect(img);
  const detected = performance.now();
  const main = faces[0];
  return {
    stats: imageStats(img),
    faces,
    bodies,
    objects,
    clothing: main ? clothingColours(img, main) : null,
    hair: main ? hairColour(img, main) : null,
    timings: {
      decodeMs: Math.round(decoded - started),
      detectMs: Math.round(detected - decoded),
      totalMs: Math.round(performance.now() - started),
    },
  };
}
