import { lightOf, paletteOf, type RgbImage } from './colours.ts';
import type { Box, ImageStats, NamedColour } from './types.ts';

const BAND = 0.12;

/** Merges palettes measured on regions of different sizes, weighting each by its area. */
function mergePalettes(parts: { palette: NamedColour[]; area: number }[]): NamedColour[] {
  const total = parts.reduce((s, p) => s + p.area, 0);
  const shares = new Map<string, number>();
  for (const { palette, area } of parts) {
    for (const c of palette) shares.set(c.name, (shares.get(c.name) ?? 0) + (c.share * area) / total);
  }
  return [...shares].map(([name, share]) => ({ name, share })).sort((a, b) => b.share - a.share);
}

/** Light, colour and background measures of a whole image, from its decoded pixels. */
export function imageStats(img: RgbImage): ImageStats {
  const whole = lightOf(img);
  // The bottom band is left out of the "background": in portraits it is the subject's clothing.
  const bands: Box[] = [
    [0, 0, 1, BAND],
    [0, BAND, BAND, 1 - 2 * BAND],
    [1 - BAND, BAND, BAND, 1 - 2 * BAND],
  ];
  const borderPalette = mergePalettes(bands.map((b) => ({ palette: paletteOf(img, b, 1500), area: b[2] * b[3] })));
  const borderLight = bands.map((b) => ({ light: lightOf(img, b, 3000), area: b[2] * b[3] }));
  const area = borderLight.reduce((s, b) => s + b.area, 0);
  const top: Box = [0, 0, 1, 0.1];
  return {
    width: img.width,
    height: img.height,
    ...whole,
    palette: paletteOf(img),
    border: {
      palette: borderPalette,
      brightness: borderLight.reduce((s, b) => s + b.light.brightness * b.area, 0) / area,
      uniformity: borderPalette[0]?.share ?? 0,
    },
    top: { palette: paletteOf(img, top, 1500), brightness: lightOf(img, top, 3000).brightness },
  };
}
