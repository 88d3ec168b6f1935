import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import sharp from 'sharp';
import type { EvalPhoto, Half } from './set.ts';

/**
 * The evaluation set's animals: photos whose only face is an animal's, which the photo check must call 'No face
 * found'. Read when asked from two packages (nothing committed, nothing downloaded at run time; README.md beside
 * this file): the photographs of animals among Tux Paint's stamps (Debian's `tuxpaint-stamps-default`, installed by
 * `node scripts/ensure-animal-photos.mjs`) and the mandrill of image processing's test images (npm
 * `baboon-image-uri`, a devDependency).
 *
 * A stamp is an animal cut out of its photo (about 200 px, transparent around it). Each is set on a plain backdrop
 * and cut into squares of 45 % of its long side on a 3 × 3 grid (each kept when the animal fills at least 30 % of
 * it), so that one of them holds the head close up as a pet's portrait would, and enlarged to 512 px (the check's
 * minimum); the whole stamp is one photo more.
 */

const require = createRequire(import.meta.url);

/** Where Debian puts Tux Paint's stamps. */
export const STAMPS_DIR = '/usr/share/tuxpaint/stamps/animals';

/**
 * The photographed animals among the stamps, by path under STAMPS_DIR (without `.png`). Left out: the drawn ones
 * (the `cartoon` and `toys` folders, the hedgehog, the echidna's silhouette), and fish, insects and shellfish
 * (no face to take for a person's).
 */
export const STAMPS = [
  'amphibians/frog-1',
  'amphibians/frog',
  'birds/adelaide-rosella',
  'birds/albino_peahen',
  'birds/blackbird',
  'birds/chicken_profile',
  'birds/crow',
  'birds/crowned_crane',
  'birds/cuckoo',
  'birds/drake',
  'birds/duck',
  'birds/gander',
  'birds/guineafowl',
  'birds/helmeted_guineafowl',
  'birds/hen',
  'birds/heron_greatblue',
  'birds/heron_greatblue_flying',
  'birds/lark',
  'birds/little-penguin',
  'birds/magellanic_penguin',
  'birds/magpie',
  'birds/nandou',
  'birds/ostrich',
  'birds/owl',
  'birds/peacock',
  'birds/pelican',
  'birds/penguin',
  'birds/pigeon',
  'birds/pink_flamingo',
  'birds/quetzal',
  'birds/rainbow-lorikeet',
  'birds/rooster',
  'birds/seagull',
  'birds/silver-gull',
  'birds/tucan',
  'birds/turkey',
  'birds/vulture',
  'lizards/iguana',
  'mammals/apes/chimp',
  'mammals/apes/gorilla',
  'mammals/apes/tamarin_emperor',
  'mammals/aquatic/dolphin',
  'mammals/aquatic/orca',
  'mammals/aquatic/otter',
  'mammals/aquatic/sea_lion',
  'mammals/aquatic/whale',
  'mammals/badger',
  'mammals/bears/bear',
  'mammals/bears/european-bear',
  'mammals/bovines/bison',
  'mammals/bovines/bull',
  'mammals/bovines/cow',
  'mammals/bovines/cow_white',
  'mammals/bovines/gnu-baby-stand',
  'mammals/bovines/gnu-baby',
  'mammals/bovines/gnu-sitting',
  'mammals/bovines/gnu-stand',
  'mammals/bovines/goat',
  'mammals/bovines/indian_blackbuck',
  'mammals/bovines/mountaingoat',
  'mammals/bovines/ram',
  'mammals/bovines/sheep',
  'mammals/bovines/sheep_lamb',
  'mammals/bovines/yak',
  'mammals/bovines/zebu',
  'mammals/camel/camel',
  'mammals/camel/dromedary',
  'mammals/cats/lion-2',
  'mammals/cats/lion',
  'mammals/cats/tiger',
  'mammals/cats/tiger_sumatran',
  'mammals/deer/caribou',
  'mammals/deer/deer',
  'mammals/deer/doe',
  'mammals/deer/wapiti',
  'mammals/dogs/dingo',
  'mammals/dogs/dog',
  'mammals/dogs/fox',
  'mammals/elephant',
  'mammals/equines/donkey',
  'mammals/equines/donkey_eating',
  'mammals/equines/horse',
  'mammals/equines/zebra',
  'mammals/ferret',
  'mammals/giraffe',
  'mammals/hippopotamus',
  'mammals/pig',
  'mammals/pig_golden',
  'mammals/pig_golden2',
  'mammals/rabbit_little',
  'mammals/rhino_black',
  'mammals/rodents/beaver',
  'mammals/rodents/capybara',
  'mammals/rodents/marmot',
  'mammals/rodents/mouse',
  'mammals/rodents/rabbit-2',
  'mammals/rodents/rabbit',
  'mammals/rodents/rat',
  'mammals/rodents/squirrel',
  'mammals/wildboar',
  'marsupials/kangaroo',
  'marsupials/koala',
  'marsupials/wombat',
] as const;
export type Stamp = (typeof STAMPS)[number];

/** The split: animals alternate in STAMPS' order (every crop of one animal in one half); the mandrill is held out. */
export const stampHalf = (stamp: Stamp): Half => (STAMPS.indexOf(stamp) % 2 === 0 ? 'tuning' : 'held-out');

/** The backdrop the cut-out animals are set on: a dull lawn green. */
const BACKDROP = '#7a8a6a';
const PHOTO_SIDE = 512;
const CROP_SHARE = 0.45;
const MIN_ANIMAL_SHARE = 0.3;

interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface AnimalCrop {
  /** e.g. 'squirrel, square 1 of row 2' or 'squirrel, whole'. */
  name: string;
  stamp: Stamp | 'mandrill';
  /** The whole stamp when absent. */
  region?: Region;
}

export class MissingAnimalPhotos extends Error {
  constructor() {
    super(
      `The animal photos are not installed (${STAMPS_DIR}): run \`node scripts/ensure-animal-photos.mjs\` (as root, it installs Debian's tuxpaint-stamps-default).`,
    );
    this.name = 'MissingAnimalPhotos';
  }
}

const stampFile = (stamp: Stamp) => join(STAMPS_DIR, `${stamp}.png`);
const animalName = (stamp: Stamp) => stamp.split('/').at(-1)!.replaceAll('_', ' ');

/** The crops of one stamp: the whole, and the grid's squares the animal fills enough of. */
async function cropsOf(stamp: Stamp): Promise<AnimalCrop[]> {
  const { data, info } = await sharp(stampFile(stamp)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const side = Math.min(width, height, Math.round(CROP_SHARE * Math.max(width, height)));
  const crops: AnimalCrop[] = [{ name: `${animalName(stamp)}, whole`, stamp }];
  const seen = new Set<string>();
  for (let row = 0; row < 3; row++) {
    for (let col = 0; col < 3; col++) {
      const region = {
        left: Math.round((col * (width - side)) / 2),
        top: Math.round((row * (height - side)) / 2),
        width: side,
        height: side,
      };
      const key = `${region.left},${region.top}`;
      if (seen.has(key)) continue;
      seen.add(key);
      let opaque = 0;
      for (let y = region.top; y < region.top + side; y++) {
        for (let x = region.left; x < region.left + side; x++) if (data[(y * width + x) * 4 + 3]! > 127) opaque++;
      }
      if (opaque / (side * side) >= MIN_ANIMAL_SHARE)
        crops.push({ name: `${animalName(stamp)}, square ${col + 1} of row ${row + 1}`, stamp, region });
    }
  }
  return crops;
}

/** The mandrill (baboon) of image processing's test images: 128 px, its face filling the frame. */
function mandrillPng(): Buffer {
  const uri = require('baboon-image-uri') as string;
  return Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64');
}

/** A crop as the JPEG a person would upload: on the backdrop, enlarged to 512 px on its short side. */
export async function animalPhotoOf(c: AnimalCrop): Promise<Buffer> {
  const source = c.stamp === 'mandrill' ? sharp(mandrillPng()) : sharp(stampFile(c.stamp));
  const png = await (c.region ? source.extract(c.region) : source).png().toBuffer();
  const { width = 1, height = 1 } = await sharp(png).metadata();
  const scale = PHOTO_SIDE / Math.min(width, height);
  return sharp(png)
    .resize({ width: Math.round(width * scale), kernel: 'lanczos3' })
    .flatten({ background: BACKDROP })
    .jpeg({ quality: 92 })
    .toBuffer();
}

/** The crops of one half (the stamps' crops in STAMPS' order, then the mandrill in the held-out half). */
export async function animalCropsIn(half: Half): Promise<AnimalCrop[]> {
  if (!existsSync(STAMPS_DIR)) throw new MissingAnimalPhotos();
  const crops = (await Promise.all(STAMPS.filter((s) => stampHalf(s) === half).map(cropsOf))).flat();
  return half === 'held-out' ? [...crops, { name: 'mandrill', stamp: 'mandrill' }] : crops;
}

/** One half's animal photos, as JPEGs. */
export async function animalSet(half: Half): Promise<EvalPhoto[]> {
  const crops = await animalCropsIn(half);
  return Promise.all(crops.map(async (c) => ({ name: c.name, photo: await animalPhotoOf(c) })));
}
