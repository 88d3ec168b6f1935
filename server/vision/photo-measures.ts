import { boxRect, luminance, type RgbImage } from './colours.ts';
import type { Box } from './types.ts';

/**
 * Pure measures of a decoded photo for the training photo check: light and blur of a face, a difference
 * hash of the whole image, and a copy with faces masked. Thresholds live in common/photo-check.ts.
 */

/** Luminance of the pixel whose red byte is at `k`. */
const luma = (d: Uint8Array, k: number) => luminance(d[k]!, d[k + 1]!, d[k + 2]!);

/**
 * Luminance (0..1) of a box, averaged down by a whole factor so that its long side is at most `maxSide`:
 * blur is judged on the face at a bounded size, as a trainer sees it, whatever the photo's resolution.
 */
export function lumaOf(img: RgbImage, box: Box, maxSide = 256): { values: Float32Array; w: number; h: number } {
  const r = boxRect(img, box);
  const f = Math.max(1, Math.ceil(Math.max(r.w, r.h) / maxSide));
  const w = Math.floor(r.w / f);
  const h = Math.floor(r.h / f);
  const values = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let sum = 0;
      for (let dy = 0; dy < f; dy++) {
        for (let dx = 0; dx < f; dx++) sum += luma(img.data, ((r.y0 + y * f + dy) * img.width + r.x0 + x * f + dx) * 3);
      }
      values[y * w + x] = sum / (f * f);
    }
  }
  return { values, w, h };
}

export function meanOf(values: Float32Array): number {
  let sum = 0;
  for (const v of values) sum += v;
  return values.length ? sum / values.length : 0;
}

/**
 * No-reference blur (Crété-Roffet et al., 2007): blur the image again along each axis and see how much of
 * its variation survives. A sharp image loses much (→ 0), an already blurred one little (→ 1).
 */
export function blurOf({ values: g, w, h }: { values: Float32Array; w: number; h: number }): number {
  if (w < 3 || h < 3) return 1;
  const REACH = 4;
  let sharpV = 0;
  let sharpH = 0;
  let lostV = 0;
  let lostH = 0;
  const at = (x: number, y: number) => g[Math.min(h - 1, Math.max(0, y)) * w + Math.min(w - 1, Math.max(0, x))]!;
  /** Box blur of `2 × REACH + 1` pixels through (x, y) along (dx, dy): (0, 1) vertically, (1, 0) horizontally. */
  const blurred = (x: number, y: number, dx: number, dy: number) => {
    let s = 0;
    for (let k = -REACH; k <= REACH; k++) s += at(x + k * dx, y + k * dy);
    return s / (2 * REACH + 1);
  };
  for (let y = 1; y < h; y++) {
    for (let x = 1; x < w; x++) {
      const dV = Math.abs(at(x, y) - at(x, y - 1));
      const dH = Math.abs(at(x, y) - at(x - 1, y));
      sharpV += dV;
      sharpH += dH;
      lostV += Math.max(0, dV - Math.abs(blurred(x, y, 0, 1) - blurred(x, y - 1, 0, 1)));
      lostH += Math.max(0, dH - Math.abs(blurred(x, y, 1, 0) - blurred(x - 1, y, 1, 0)));
    }
  }
  const v = sharpV > 0 ? (sharpV - lostV) / sharpV : 1;
  const hz = sharpH > 0 ? (sharpH - lostH) / sharpH : 1;
  return Math.max(v, hz);
}

/**
 * 64-bit difference hash of a region (the whole image by default): a 9 × 8 grey thumbnail, one bit per
 * neighbour pair (left darker than right).
 */
export function differenceHash(img: RgbImage, box: Box = [0, 0, 1, 1]): string {
  const W = 9;
  const H = 8;
  const r = boxRect(img, box);
  const sums = new Float64Array(W * H);
  const counts = new Float64Array(W * H);
  for (let y = 0; y < r.h; y++) {
    const cy = Math.min(H - 1, Math.floor((y * H) / r.h));
    for (let x = 0; x < r.w; x++) {
      const cell = cy * W + Math.min(W - 1, Math.floor((x * W) / r.w));
      sums[cell]! += luma(img.data, ((r.y0 + y) * img.width + r.x0 + x) * 3);
      counts[cell]!++;
    }
  }
  let hex = '';
  for (let y = 0; y < H; y++) {
    let byte = 0;
    for (let x = 0; x < 8; x++) {
      const left = sums[y * W + x]! / Math.max(1, counts[y * W + x]!);
      const right = sums[y * W + x + 1]! / Math.max(1, counts[y * W + x + 1]!);
      byte = (byte << 1) | (left < right ? 1 : 0);
    }
    hex += byte.toString(16).padStart(2, '0');
  }
  return hex;
}

/** A copy with each box (grown by `margin` of its size on every side) filled with mid grey. */
export function maskBoxes(img: RgbImage, boxes: Box[], margin = 0.1): RgbImage {
  const data = new Uint8Array(img.data);
  for (const [x, y, w, h] of boxes) {
    const r = boxRect(img, [x - w * margin, y - h * margin, w * (1 + 2 * margin), h * (1 + 2 * margin)]);
    for (let yy = r.y0; yy < r.y0 + r.h; yy++) data.fill(128, (yy * img.width + r.x0) * 3, (yy * img.width + r.x0 + r.w) * 3);
  }
  return { data, width: img.width, height: img.height };
}
