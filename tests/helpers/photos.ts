import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import sharp from 'sharp';

/**
 * Real photos for vision tests, cut from the sample images that ship inside @vladmandic/human
 * (assets/screenshot-facedetect.jpg and assets/samples.jpg), so no test depends on the network.
 */

const require = createRequire(import.meta.url);
const assets = join(dirname(require.resolve('@vladmandic/human')), '..', 'assets');

const CUTS = {
  /** Close-up of a smiling young woman with long dark hair, dark background. */
  smilingWoman: { file: 'screenshot-facedetect.jpg', region: { left: 163, top: 345, width: 152, height: 152 } },
  /** Close-up of a man's face in his thirties or forties. */
  man: { file: 'screenshot-facedetect.jpg', region: { left: 5, top: 345, width: 152, height: 152 } },
  /** A woman standing, seen from head to toe, on a white background. */
  fullBody: { file: 'samples.jpg', region: { left: 0, top: 0, width: 165, height: 160 } },
  /** A man in a grey T-shirt at a webcam, seen from the waist up (inset of screenshot-vrm.jpg). */
  webcamMan: { file: 'screenshot-vrm.jpg', region: { left: 476, top: 5, width: 322, height: 238 } },
} as const;

export type SamplePhoto = keyof typeof CUTS;

/** A sample photo as JPEG bytes, optionally scaled so that its longest side is `size` pixels. */
export async function samplePhoto(name: SamplePhoto, size?: number): Promise<Buffer> {
  const { file, region } = CUTS[name];
  let image = sharp(join(assets, file)).extract(region);
  if (size) image = image.resize({ width: size, height: size, fit: 'inside' });
  return image.jpeg({ quality: 92 }).toBuffer();
}

/** A larger real photo (a party group, about 1.5 MP) scaled to about one megapixel, for benchmarks. */
export async function megapixelPhoto(): Promise<Buffer> {
  return sharp(join(assets, 'samples.jpg')).resize({ width: 1152, height: 868, fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
}
