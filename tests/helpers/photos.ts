import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { photosOfPerson } from '../../bench/photo-eval/set.ts';

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
  /** Close-up of a young woman with long blonde hair. */
  blondeWoman: { file: 'screenshot-facedetect.jpg', region: { left: 321, top: 345, width: 152, height: 152 } },
  /** Close-up of a smiling young woman with long auburn hair. */
  auburnWoman: { file: 'screenshot-facedetect.jpg', region: { left: 479, top: 345, width: 152, height: 152 } },
  /** Black-and-white close-up of a smiling young woman. */
  monochromeWoman: { file: 'screenshot-facedetect.jpg', region: { left: 637, top: 345, width: 152, height: 152 } },
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

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes: Buffer) => {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

/**
 * A PNG signature and a valid IHDR chunk stating `width`×`height` (8-bit RGB), with no image data after it:
 * what a decompression bomb or a truncated file looks like to anything that reads only the header.
 */
export function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(17);
  ihdr.write('IHDR', 0, 'latin1');
  ihdr.writeUInt32BE(width, 4);
  ihdr.writeUInt32BE(height, 8);
  ihdr.set([8, 2, 0, 0, 0], 12);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(ihdr));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), ihdr, crc]);
}

/** The portraits the training photo tests use; each shows one face. */
export const PORTRAITS = ['smilingWoman', 'man', 'blondeWoman', 'auburnWoman', 'monochromeWoman'] as const satisfies readonly SamplePhoto[];

/**
 * A training-size portrait: a sample close-up at its own resolution, placed on a plain backdrop of its edge
 * colour so that the photo is 640 × 800 (a phone portrait's shape) without upscaling, which would blur it.
 */
export async function portraitPhoto(name: (typeof PORTRAITS)[number]): Promise<Buffer> {
  const face = sharp(await samplePhoto(name));
  const { dominant } = await face.clone().extract({ left: 0, top: 0, width: 8, height: 152 }).stats();
  return sharp({ create: { width: 640, height: 800, channels: 3, background: dominant } })
    .composite([{ input: await face.toBuffer(), left: 244, top: 220 }])
    .jpeg({ quality: 92 })
    .toBuffer();
}

/** An interior scene with no one in it (the ceiling of the party photo in samples.jpg), 1280 × 512. */
export async function sceneWithoutFace(): Promise<Buffer> {
  return sharp(join(assets, 'samples.jpg'))
    .extract({ left: 700, top: 195, width: 560, height: 224 })
    .resize({ width: 1280 })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/**
 * Photos derived from the portraits with sharp, one for each problem the training photo check reports,
 * keyed by the badge each must get (see tests/server/photo-check.test.ts and e2e/training-photos.spec.ts).
 */
export async function derivedPhotos() {
  const man = await portraitPhoto('man');
  // Another real photo of the same man (the face-match grid's, bench/photo-eval): the good photos show one person,
  // as a training set should, so none of them is 'Not the same person'.
  const [sameMan] = await photosOfPerson('tuning', 'grid man');
  const pair = sharp({ create: { width: 800, height: 640, channels: 3, background: { r: 20, g: 20, b: 24 } } }).composite([
    { input: await samplePhoto('smilingWoman'), left: 200, top: 200 },
    { input: await samplePhoto('man'), left: 448, top: 200 },
  ]);
  // Each problem photo is made from a different portrait: a darkened copy of a photo is still the same photo.
  // Those too dark, bright, blurry or small to measure are not compared with the others (acrossPhotos).
  return {
    good: sameMan!,
    goodMan: man,
    // A Gaussian blur of about 2 % of the face's width. Much more (3 %) and no evidence of a face is left on this
    // portrait (the mesh's confidence falls to 0.01, as on false faces): such a photo gets 'No face found'.
    blurred: await sharp(await portraitPhoto('blondeWoman'))
      .blur(3)
      .jpeg({ quality: 92 })
      .toBuffer(),
    darkened: await sharp(await portraitPhoto('auburnWoman'))
      .linear(0.2, 0)
      .jpeg({ quality: 92 })
      .toBuffer(),
    // Washed out by 45 % of white; at 67 % nothing of a face is left to find (mesh 0.00, detector 0.50).
    brightened: await sharp(await portraitPhoto('monochromeWoman'))
      .linear(1, 115)
      .jpeg({ quality: 92 })
      .toBuffer(),
    shrunk: await sharp(man).resize({ width: 384 }).jpeg({ quality: 92 }).toBuffer(),
    twoFaces: await pair.jpeg({ quality: 92 }).toBuffer(),
    // A face of 36 px, far away on a plain wall.
    faceTooSmall: await sharp({ create: { width: 1024, height: 576, channels: 3, background: { r: 90, g: 110, b: 130 } } })
      .composite([{ input: await samplePhoto('smilingWoman', 36), left: 480, top: 250 }])
      .jpeg({ quality: 92 })
      .toBuffer(),
    duplicate: Buffer.from(man),
    noFace: await sceneWithoutFace(),
  };
}

/**
 * Awkward files a phone or a camera produces, each from a different photo (a copy would be 'Same as…') of one
 * man (a set of strangers would be 'Not the same person').
 */
export async function awkwardPhotos() {
  const portrait = await portraitPhoto('man');
  const [first, second] = await photosOfPerson('tuning', 'grid man');
  // An iPhone HEIC's container (brand 'heic', HEVC-coded image) saved under a .jpg name.
  const heic = Buffer.from(await sharp(portrait).avif().toBuffer());
  for (let at = 8; at < 32; at += 4) if (heic.toString('latin1', at, at + 4) === 'avif') heic.write('heic', at, 'latin1');
  return {
    /** Stored sideways with EXIF orientation 8, as phones save photos; shown upright. */
    exifRotated: await sharp(await sharp(portrait).rotate(90).toBuffer())
      .withMetadata({ orientation: 8 })
      .jpeg({ quality: 92 })
      .toBuffer(),
    cmyk: await sharp(first).toColourspace('cmyk').jpeg().toBuffer(),
    png16: await sharp(second).toColourspace('rgb16').png().toBuffer(),
    heicNamedJpg: heic,
    truncated: portrait.subarray(0, Math.floor(portrait.length / 2)),
  };
}
