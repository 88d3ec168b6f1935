import type { Box, NamedColour } from './types.ts';

/** An RGB image as sharp's raw output gives it: 3 bytes a pixel, row by row. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** HSL of an 8-bit RGB colour: hue 0..360, saturation and lightness 0..1. */
export function toHsl(r: number, g: number, b: number): [number, number, number] {
  const rn = r / 255;
  const gn = g / 255;
  const bn = b / 255;
  const max = Math.max(rn, gn, bn);
  const min = Math.min(rn, gn, bn);
  const l = (max + min) / 2;
  const d = max - min;
  if (d === 0) return [0, 0, l];
  const s = d / (1 - Math.abs(2 * l - 1));
  let h: number;
  if (max === rn) h = ((gn - bn) / d) % 6;
  else if (max === gn) h = (bn - rn) / d + 2;
  else h = (rn - gn) / d + 4;
  return [(h * 60 + 360) % 360, Math.min(1, s), l];
}

/**
 * The everyday name a prompt would use for a colour. Rules on HSL rather than nearest-swatch matching,
 * because words like brown, beige and navy are about lightness and saturation more than hue.
 */
export function colourName(r: number, g: number, b: number): string {
  const [h, s, l] = toHsl(r, g, b);
  if (l < 0.12) return 'black';
  if (l > 0.92) return 'white';
  if (s < 0.14 || (s < 0.22 && l < 0.3)) {
    if (l < 0.3) return 'charcoal';
    if (l < 0.7) return 'grey';
    return 'light grey';
  }
  if (h < 15 || h >= 345) {
    if (l < 0.3) return 'burgundy';
    return l > 0.72 ? 'pink' : 'red';
  }
  if (h < 45) {
    if (l < 0.45 || s < 0.35) return l > 0.62 ? 'beige' : 'brown';
    return l > 0.75 ? 'beige' : 'orange';
  }
  if (h < 68) {
    if (l < 0.35) return 'olive';
    // Pale sand and cream tones read as beige, not yellow.
    return s < 0.4 || (l > 0.72 && s < 0.65) ? 'beige' : 'yellow';
  }
  if (h < 165) return l < 0.3 ? 'dark green' : 'green';
  if (h < 195) return 'teal';
  if (h < 255) {
    if (l < 0.3) return 'navy';
    return l > 0.7 ? 'light blue' : 'blue';
  }
  if (h < 290) return 'purple';
  return l > 0.6 ? 'pink' : 'magenta';
}

/** Rec. 709 luminance (0..1) of an 8-bit RGB colour. */
export function luminance(r: number, g: number, b: number): number {
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

/** The pixel rectangle of a box (fractions of the image), clipped to the image; empty (0 wide or high) outside it. */
export function boxRect(img: Pick<RgbImage, 'width' | 'height'>, box: Box): { x0: number; y0: number; w: number; h: number } {
  const x0 = Math.max(0, Math.floor(box[0] * img.width));
  const y0 = Math.max(0, Math.floor(box[1] * img.height));
  const x1 = Math.min(img.width, Math.ceil((box[0] + box[2]) * img.width));
  const y1 = Math.min(img.height, Math.ceil((box[1] + box[3]) * img.height));
  return { x0, y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) };
}

/** The pixel rectangle of a box (fractions of the image) and the grid step that samples about `maxSamples` of it. */
function sampling(img: RgbImage, box: Box, maxSamples: number) {
  const { x0, y0, w, h } = boxRect(img, box);
  const step = Math.max(1, Math.floor(Math.sqrt((w * h) / maxSamples)));
  return { x0, y0, x1: x0 + w, y1: y0 + h, step };
}

/** Pixel shares of named colours inside a box (fractions of the image), most common first. */
export function paletteOf(img: RgbImage, box: Box = [0, 0, 1, 1], maxSamples = 4096): NamedColour[] {
  const { x0, y0, x1, y1, step } = sampling(img, box, maxSamples);
  if (x1 <= x0 || y1 <= y0) return [];
  const counts = new Map<string, number>();
  let total = 0;
  for (let y = y0; y < y1; y += step) {
    for (let x = x0; x < x1; x += step) {
      const i = (y * img.width + x) * 3;
      const name = colourName(img.data[i], img.data[i + 1], img.data[i + 2]);
      counts.set(name, (counts.get(name) ?? 0) + 1);
      total++;
    }
  }
  return [...counts].map(([name, n]) => ({ name, share: n / total })).sort((a, b) => b.share - a.share);
}

export interface RegionLight {
  brightness: number;
  contrast: number;
  saturation: number;
  warmth: number;
}

/** Mean luminance, its spread, mean saturation and red-minus-blue balance inside a box. */
export function lightOf(img: RgbImage, box: Box = [0, 0, 1, 1], maxSamples = 16384): RegionLight {
  const { x0, y0, x1, y1, step } = sampling(img, box, maxSamples);
  let n = 0;
  let sumL = 0;
  let sumL2 = 0;
  let sumS = 0;
  let sumWarm = 0;
  for (let y = y0; y < y1; y += step) {
    for (let x = x0; x < x1; x += step) {
      const i = (y * img.width + x) * 3;
      const r = img.data[i];
      const g = img.data[i + 1];
      const b = img.data[i + 2];
      const lum = luminance(r, g, b);
      const max = Math.max(r, g, b);
      const min = Math.min(r, g, b);
      sumL += lum;
      sumL2 += lum * lum;
      sumS += max === 0 ? 0 : (max - min) / max;
      sumWarm += (r - b) / 255;
      n++;
    }
  }
  if (n === 0) return { brightness: 0, contrast: 0, saturation: 0, warmth: 0 };
  const mean = sumL / n;
  return {
    brightness: mean,
    contrast: Math.sqrt(Math.max(0, sumL2 / n - mean * mean)),
    saturation: sumS / n,
    warmth: sumWarm / n,
  };
}
