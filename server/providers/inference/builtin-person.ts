import { between, pick, weighted, type Rng } from './builtin-random.ts';
import { mix, shade, type PersonReading, type SceneReading, type Worn } from './builtin-scene.ts';
import { SKIN_TONES, type AccessoryKind, type Age, type Framing, type GarmentKind, type Gender, type HairStyle } from './builtin-words.ts';

/**
 * The built-in engine's person: the landing page's illustrated people (src/features/site/components/
 * portrait.tsx: flat shapes, face, hair in front of and behind the head, clothes with lapels and shade)
 * drawn whole, head to toe, and dressed as the prompt says. What the prompt leaves open is chosen by the seed.
 *
 * Drawn in a local frame: the head's centre is (0, 0), the head 114 × 140 units (the landing page's size),
 * the soles at y ≈ 960. `placePerson` scales and moves that frame into the picture for the framing.
 */

export interface Garment {
  kind: GarmentKind;
  colour: string;
}

/** A person with every choice made: what the prompt said, and the seed's picks for the rest. */
export interface Cast {
  gender: Gender;
  age: Age | 'adult';
  skin: string;
  skinShade: string;
  hair: string;
  hairStyle: HairStyle;
  beard: boolean;
  /** Coat, blazer, jacket… worn over the top; null for none. */
  outer: Garment | null;
  /** Shirt, sweater… (shows in the opening of an outer layer); a dress replaces top and bottom. */
  top: Garment;
  dress: Garment | null;
  bottom: Garment;
  shoes: string;
  accessories: Worn<AccessoryKind>[];
  framing: Framing;
  walking: boolean;
}

/** Natural hair colours and how common each is, by skin tone (index into SKIN_TONES): lighter skin, more variety. */
function naturalHair(skinIndex: number): readonly (readonly [string, number])[] {
  const dark: (readonly [string, number])[] = [
    ['#1c1512', 4],
    ['#2e1e16', 4],
  ];
  if (skinIndex >= 5) return dark;
  if (skinIndex >= 3) return [...dark, ['#4a2e1c', 2]];
  return [...dark, ['#4a2e1c', 3], ['#6b4426', 2], ['#d8b36a', 3], ['#a7441d', 1]];
}
const HAIR_GREY = ['#a9a7a3', '#c9c6c0', '#ebe7df'];

/** Colours a stylist might choose when the prompt names none: muted, and distinct from one another. */
const CASUAL = [
  '#2d3142',
  '#c9b79c',
  '#1f2a44',
  '#7b4f3a',
  '#8aa4c8',
  '#9bb58a',
  '#d8a05a',
  '#c98a9a',
  '#5b6b7f',
  '#a33b3b',
  '#e9e4da',
  '#3f5f4a',
];
const TAILORED = ['#1f2b4d', '#35383f', '#2d3142', '#5b6b7f', '#6b4428', '#1a1b20', '#c4a47a'];
const SHIRTS = ['#f3f1ec', '#f3f1ec', '#dfe6f2', '#ede3cf', '#1a1b20'];
const TROUSERS = ['#2b3a55', '#1a1b20', '#35383f', '#c4a47a', '#4a6a94'];

const DEFAULT_OUTER_COLOUR: Partial<Record<GarmentKind, string[]>> = {
  trench: ['#c4a47a', '#b08d62', '#35383f'],
  coat: ['#35383f', '#c4a47a', '#1f2b4d', '#6e1a2c', '#7f848c'],
  puffer: ['#1a1b20', '#c8202a', '#1f2b4d', '#e3b23c', '#f3f1ec'],
  'leather-jacket': ['#1a1b20', '#4a2e1c'],
  jacket: ['#4a6a94', '#6b7a3a', '#1a1b20', '#c4a47a'],
};

/** A person the prompt says nothing about (a character in a landscape prompt). */
const UNSAID: PersonReading = {
  gender: null,
  age: null,
  skin: null,
  hairColour: null,
  hairStyle: null,
  beard: false,
  garments: {},
  accessories: [],
  framing: null,
  framingSaid: false,
  walking: false,
  formal: false,
};

/** Resolves what the prompt left open, from the scene and the seed; the prompt's words always win. */
export function castPerson(reading: PersonReading | null, scene: Pick<SceneReading, 'kind' | 'weather'>, rng: Rng): Cast {
  const r = reading ?? UNSAID;
  const gender: Gender = r.gender ?? (r.beard ? 'masculine' : rng() < 0.5 ? 'feminine' : 'masculine');
  const age = r.age ?? 'adult';
  const [lo, hi] = r.skin ?? [0, SKIN_TONES.length - 1];
  const skinIndex = lo + Math.floor(rng() * (hi - lo + 1));
  const [skin, skinShade] = SKIN_TONES[skinIndex]!;
  const elderly = age === 'elderly';
  const hair = r.hairColour ?? (elderly ? pick(rng, HAIR_GREY) : weighted(rng, naturalHair(skinIndex)));
  const hairStyle: HairStyle =
    r.hairStyle ??
    (gender === 'masculine'
      ? weighted(rng, [
          ['short', 7],
          ['curly', 2],
          ['bald', elderly ? 3 : 1],
        ])
      : weighted(rng, [
          ['long', elderly ? 0 : 4],
          ['wavy', elderly ? 0 : 3],
          ['bun', 2],
          ['bob', 2],
          ['ponytail', elderly ? 0 : 1],
          ['curly', 1],
        ]));

  const formal = scene.kind === 'studio' || r.formal;
  const cold = scene.weather === 'snow';
  const given = r.garments;
  const dress = given.dress ? { kind: given.dress.kind, colour: given.dress.colour ?? pick(rng, CASUAL) } : null;
  let outer: Garment | null = null;
  if (given.outer) {
    const kind = given.outer.kind;
    outer = { kind, colour: given.outer.colour ?? pick(rng, DEFAULT_OUTER_COLOUR[kind] ?? TAILORED) };
  } else if (!dress && !given.top) {
    // Dressed for the place and the weather when the prompt does not say.
    const kind = formal
      ? 'blazer'
      : cold
        ? pick(rng, ['coat', 'puffer'] as const)
        : scene.weather === 'rain'
          ? 'trench'
          : rng() < 0.35
            ? pick(rng, ['jacket', 'coat', 'cardigan'] as const)
            : null;
    if (kind) outer = { kind, colour: pick(rng, DEFAULT_OUTER_COLOUR[kind] ?? (formal ? TAILORED : CASUAL)) };
  }
  const topKind: GarmentKind =
    given.top?.kind ??
    (outer && ['blazer', 'suit'].includes(outer.kind)
      ? gender === 'masculine' || rng() < 0.5
        ? 'shirt'
        : 'blouse'
      : cold
        ? 'turtleneck'
        : pick(rng, ['t-shirt', 'sweater', 'shirt'] as const));
  const topColour =
    given.top?.colour ??
    (topKind === 'shirt' || topKind === 'blouse'
      ? pick(rng, SHIRTS)
      : pick(
          rng,
          CASUAL.filter((c) => c !== outer?.colour),
        ));
  const bottom: Garment =
    outer?.kind === 'suit'
      ? { kind: 'trousers', colour: outer.colour }
      : given.bottom
        ? { kind: given.bottom.kind, colour: given.bottom.colour ?? (given.bottom.kind === 'jeans' ? '#3d5a80' : pick(rng, TROUSERS)) }
        : gender === 'feminine' && !cold && rng() < 0.25
          ? { kind: 'skirt', colour: pick(rng, TROUSERS) }
          : rng() < 0.5
            ? { kind: 'jeans', colour: '#3d5a80' }
            : { kind: 'trousers', colour: pick(rng, TROUSERS) };

  const accessories = [...r.accessories];
  // Small earrings, now and then, where a woman's ears show: a cue that reads even at thumbnail size.
  if (gender === 'feminine' && age !== 'child' && ['short', 'bun', 'ponytail', 'bob', 'bald'].includes(hairStyle) && rng() < 0.6)
    accessories.push({ kind: 'earrings', colour: null });
  if (cold && !accessories.some((a) => a.kind === 'scarf') && rng() < 0.5) accessories.push({ kind: 'scarf', colour: null });
  if (scene.weather === 'rain' && r.framing === 'full' && !accessories.some((a) => a.kind === 'umbrella') && rng() < 0.4)
    accessories.push({ kind: 'umbrella', colour: null });

  const framing: Framing =
    r.framing ??
    (scene.kind === 'studio' ? 'head' : scene.kind === 'portrait' ? pick(rng, ['head', 'half'] as const) : rng() < 0.55 ? 'half' : 'full');
  return {
    gender,
    age,
    skin,
    skinShade,
    hair,
    hairStyle,
    beard: r.beard,
    outer,
    top: { kind: topKind, colour: topColour },
    dress,
    bottom,
    shoes: pick(rng, ['#1a1b20', '#3b2a20', '#5a3a22', '#1a1b20']),
    accessories,
    framing,
    walking: r.walking,
  };
}

// ───────────────────────── Placing the person in the picture ─────────────────────────

export interface Placement {
  /** Image coordinates of the local frame's origin (the head's centre). */
  x: number;
  y: number;
  /** Image pixels per local unit. */
  scale: number;
  /** Which way the person is lit from: -1 left, 1 right. */
  light: -1 | 1;
}

/** Head (crown) and sole in local units, for framing. */
const CROWN = -92;
const SOLE = 966;

export function placePerson(width: number, height: number, cast: Cast, rng: Rng): Placement {
  const light = rng() < 0.5 ? -1 : 1;
  const wide = width > height * 1.15;
  const side = rng() < 0.5 ? -1 : 1;
  // Off-centre on a wide frame (the rule of thirds), near the middle on a tall one; a headshot barely moves.
  const offset =
    cast.framing === 'head'
      ? wide
        ? 0.2
        : (rng() - 0.5) * 0.08
      : cast.framing === 'half'
        ? wide
          ? 0.2
          : (rng() - 0.5) * 0.16
        : between(rng, wide ? 0.14 : 0.06, wide ? 0.24 : 0.16);
  return framed(height, cast, width * (0.5 + side * offset), 1, light);
}

/** Two people side by side, the same framing and light, a man a little taller; the first stands in front. */
export function placePair(width: number, height: number, first: Cast, second: Cast, rng: Rng): [Placement, Placement] {
  const light = rng() < 0.5 ? -1 : 1;
  const side = rng() < 0.5 ? -1 : 1;
  const gap = width > height * 1.15 ? 0.15 : 0.17;
  const place = (cast: Cast, at: number) =>
    framed(
      height,
      cast,
      width * (0.5 + at * gap),
      (cast.framing === 'full' ? 0.92 : 0.8) * (cast.gender === 'masculine' ? 1.04 : 1),
      light,
    );
  return [place(first, side), place(second, -side)];
}

/** The local frame placed for the cast's framing, centred on `x`, `factor` times the usual size. */
function framed(height: number, cast: Cast, x: number, factor: number, light: -1 | 1): Placement {
  const child = cast.age === 'child' ? 0.78 : 1;
  switch (cast.framing) {
    case 'head':
      // The landing page's portrait: the head a little under half the height, shoulders to the bottom edge.
      return { x, y: height * 0.45, scale: ((height * 0.19) / 70) * factor, light };
    case 'half': {
      const scale = ((height * 0.9) / (480 - CROWN)) * child * factor;
      return { x, y: height * 0.1 - CROWN * scale + (1 - child * factor) * height * 0.3, scale, light };
    }
    case 'full': {
      const scale = ((height * 0.84) / (SOLE - CROWN)) * child * factor;
      return { x, y: height * 0.94 - SOLE * scale, scale, light };
    }
  }
}

/** The body's proportions in local units. */
interface Body {
  neck: number;
  shoulder: number;
  waist: number;
  hip: number;
  /** y of the shoulder joint, the elbow, the wrist, the waist, the hip joint, the knee, the ankle. */
  shoulderY: number;
  elbowY: number;
  wristY: number;
  waistY: number;
  hipY: number;
  kneeY: number;
  ankleY: number;
  arm: number;
  leg: number;
}

function bodyOf(cast: Cast): Body {
  const masc = cast.gender === 'masculine';
  // A child's body is shorter under a head of almost the same size.
  const k = cast.age === 'child' ? 0.62 : 1;
  const w = cast.age === 'child' ? 0.78 : 1;
  const y = (v: number) => 70 + (v - 70) * k;
  return {
    neck: masc ? 24 : 20,
    shoulder: (masc ? 128 : 108) * w,
    waist: (masc ? 98 : 78) * w,
    hip: (masc ? 100 : 108) * w,
    shoulderY: y(150),
    elbowY: y(340),
    wristY: y(500),
    waistY: y(350),
    hipY: y(480),
    kneeY: y(705),
    ankleY: y(925),
    arm: (masc ? 46 : 40) * w,
    leg: (masc ? 76 : 68) * w,
  };
}

/** Where the torso is in the picture, chest to waist between the arms: where the clothes show (for tests). */
export function torsoBox(cast: Cast, at: Placement): { left: number; top: number; width: number; height: number } {
  const b = bodyOf(cast);
  const half = b.waist * 0.8 * at.scale;
  const top = at.y + (b.shoulderY + 40) * at.scale;
  const bottom = at.y + (b.waistY - 10) * at.scale;
  return { left: at.x - half, top, width: half * 2, height: bottom - top };
}

/**
 * The part of the picture the person can cover (clothes, hair, hat, umbrella, shadow), in whole pixels
 * and inside the picture: only this much needs drawing at full size.
 */
export function personBounds(
  cast: Cast,
  at: Placement,
  width: number,
  height: number,
): { left: number; top: number; width: number; height: number } {
  const umbrella = cast.accessories.some((a) => a.kind === 'umbrella') && cast.framing !== 'head';
  const [x0, x1, y0, y1] = [-240, umbrella ? 320 : 240, umbrella ? -330 : -130, 1000];
  const left = Math.max(0, Math.floor(at.x + x0 * at.scale));
  const top = Math.max(0, Math.floor(at.y + y0 * at.scale));
  const right = Math.min(width, Math.ceil(at.x + x1 * at.scale));
  const bottom = Math.min(height, Math.ceil(at.y + y1 * at.scale));
  return { left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

/** The head's box in the picture. */
export function headBox(at: Placement): { cx: number; cy: number; rx: number; ry: number } {
  return { cx: at.x, cy: at.y, rx: 57 * at.scale, ry: 70 * at.scale };
}

// ───────────────────────── Drawing ─────────────────────────

/** How the scene lights the person: a colour that washes every surface, and how strongly. */
export interface Light {
  tint: string;
  amount: number;
  /** Darkens everything (night). */
  dim: number;
}

const f = (n: number) => n.toFixed(1);

/**
 * The person as SVG elements in image coordinates, in two layers: `body` (everything up to the face and
 * hair) and `over` (what is worn over the face: glasses, hats, headphones, an umbrella). A character's
 * reference photo is blended between the two, so for a character (`faceless`) the face and the hair in
 * front are left to the photo.
 */
export function personSvg(cast: Cast, at: Placement, light: Light, faceless = false): { body: string; over: string } {
  const lit = (hex: string) => shade(mix(hex, light.tint, light.amount), -light.dim);
  const b = bodyOf(cast);
  const skin = lit(cast.skin);
  const skinShade = lit(cast.skinShade);
  const hair = lit(cast.hair);
  const outer = cast.outer ? { ...cast.outer, colour: lit(cast.outer.colour) } : null;
  const top = { ...cast.top, colour: lit(cast.top.colour) };
  const dress = cast.dress ? { ...cast.dress, colour: lit(cast.dress.colour) } : null;
  const bottom = { ...cast.bottom, colour: lit(cast.bottom.colour) };
  const shoes = lit(cast.shoes);
  const accessory = (kind: AccessoryKind) => cast.accessories.find((a) => a.kind === kind);
  const accessoryColour = (kind: AccessoryKind, fallback: string) => lit(accessory(kind)?.colour ?? fallback);

  const stride = cast.walking && cast.framing === 'full' ? 1 : 0;
  const out: string[] = [];
  // One shade gradient per person: two people in one picture each have their own (ids are document-wide).
  const shadeId = `shade-${Math.round(at.x)}-${Math.round(at.y)}`;
  // Shade on the side away from the light: one gradient laid over body parts gives them volume.
  out.push(
    `<defs><linearGradient id="${shadeId}" gradientUnits="userSpaceOnUse" x1="${at.light * 150}" y1="0" x2="${-at.light * 150}" y2="0"><stop offset="0" stop-color="#000" stop-opacity="0"/><stop offset="0.55" stop-color="#000" stop-opacity="0.04"/><stop offset="1" stop-color="#000" stop-opacity="0.26"/></linearGradient></defs>`,
  );
  const shaded = (d: string) => `<path d="${d}" fill="url(#${shadeId})"/>`;

  if (cast.framing === 'full') {
    // Contact shadow: the person stands on the ground.
    out.push(`<ellipse cx="0" cy="${f(b.ankleY + 42)}" rx="${f(b.hip * 1.5)}" ry="22" fill="#000" opacity="0.22"/>`);
  }

  out.push(hairBack(cast, hair));

  // Legs and shoes (under any skirt, dress or long coat).
  const legsCovered = dress?.kind === 'gown';
  if (!legsCovered) out.push(legs(cast, b, bottom, skin, shoes, stride));

  // The torso and what is worn on it.
  const hem = dress ? (dress.kind === 'gown' ? b.ankleY + 20 : b.kneeY + 10) : b.hipY + 10;
  if (dress) out.push(dressShape(b, dress.colour, skin, dress.kind === 'gown'));
  else out.push(`<path d="${torsoPath(b, hem, b.hip + 6)}" fill="${top.colour}"/>`);
  if (!dress && bottom.kind === 'skirt') {
    out.push(
      `<path d="M${f(-b.hip - 4)} ${f(b.hipY - 20)} L${f(-b.hip - 34)} ${f(b.kneeY - 10)} L${f(b.hip + 34)} ${f(b.kneeY - 10)} L${f(b.hip + 4)} ${f(b.hipY - 20)}Z" fill="${bottom.colour}"/>`,
    );
  }
  if (outer) out.push(outerShape(b, outer, top.colour));
  else if (!dress) out.push(topDetails(b, top, skin, skinShade));
  out.push(shaded(torsoPath(b, outer ? outerHem(b, outer.kind) : hem, b.hip + 6)));

  // Arms with sleeves of the outermost layer, and hands.
  const sleeve = outer
    ? { colour: outer.colour, length: 'long' as const, width: outer.kind === 'puffer' ? 1.35 : 1.12 }
    : dress
      ? { colour: dress.colour, length: 'none' as const, width: 1 }
      : { colour: top.colour, length: sleeveLength(top.kind), width: 1 };
  const holdsUmbrella = !!accessory('umbrella') && cast.framing !== 'head';
  out.push(arms(b, sleeve, skin, stride, holdsUmbrella));

  // Neck, head, face.
  out.push(neck(b, skinShade, top.kind === 'turtleneck' && !dress ? top.colour : null));
  const scarf = accessory('scarf');
  if (scarf) out.push(scarfShape(b, accessoryColour('scarf', '#a33b3b')));
  if (outer || (!dress && (top.kind === 'shirt' || top.kind === 'blouse'))) out.push(collar(b, outer, top));
  if (accessory('tie')) {
    out.push(
      `<path d="M-9 ${f(b.shoulderY - 30)} L9 ${f(b.shoulderY - 30)} L13 ${f(b.shoulderY + 110)} L0 ${f(b.shoulderY + 128)} L-13 ${f(b.shoulderY + 110)}Z" fill="${accessoryColour('tie', '#6e1a2c')}"/>`,
    );
  }
  if (accessory('necklace'))
    out.push(
      `<path d="M-34 ${f(b.shoulderY - 36)} Q0 ${f(b.shoulderY + 10)} 34 ${f(b.shoulderY - 36)}" stroke="${lit('#e8c77a')}" stroke-width="4" fill="none"/><circle cx="0" cy="${f(b.shoulderY - 14)}" r="6" fill="${lit('#f0d58a')}"/>`,
    );
  out.push(head(cast, skin, skinShade));
  if (!faceless) out.push(face(cast, skinShade, hair, lit), hairFront(cast, hair));
  if (accessory('earrings'))
    out.push(`<circle cx="-57" cy="30" r="6" fill="${lit('#e8c77a')}"/><circle cx="57" cy="30" r="6" fill="${lit('#e8c77a')}"/>`);
  out.push(shaded(`M0 -70 C32 -70 57 -42 57 0 C57 42 32 70 0 70 C-32 70 -57 42 -57 0 C-57 -42 -32 -70 0 -70Z`));
  const over: string[] = [];
  const glasses = accessory('sunglasses') ? 'sun' : accessory('glasses') ? 'clear' : null;
  if (glasses) over.push(eyewear(glasses, accessoryColour(glasses === 'sun' ? 'sunglasses' : 'glasses', '#1a1b20')));
  const hat = cast.accessories.find((a) => a.kind === 'hat' || a.kind === 'beanie' || a.kind === 'cap');
  if (hat)
    over.push(headwear(hat.kind, lit(hat.colour ?? (hat.kind === 'beanie' ? '#a33b3b' : hat.kind === 'cap' ? '#1f2b4d' : '#3b2a20'))));
  if (accessory('headphones'))
    over.push(
      `<path d="M-62 8 C-70 -90 70 -90 62 8" stroke="${lit('#1a1b20')}" stroke-width="10" fill="none"/><rect x="-74" y="-6" width="20" height="34" rx="8" fill="${lit('#1a1b20')}"/><rect x="54" y="-6" width="20" height="34" rx="8" fill="${lit('#1a1b20')}"/>`,
    );
  if (holdsUmbrella) over.push(umbrella(b, accessoryColour('umbrella', '#1a1b20'), at.light));

  const placed = (parts: string[]) =>
    parts.length ? `<g transform="translate(${f(at.x)} ${f(at.y)}) scale(${at.scale.toFixed(5)})">${parts.join('')}</g>` : '';
  return { body: placed(out), over: placed(over) };
}

function sleeveLength(kind: GarmentKind): 'long' | 'short' | 'none' {
  if (kind === 't-shirt' || kind === 'blouse') return 'short';
  if (kind === 'tank') return 'none';
  return 'long';
}

/** Shoulders, chest and waist down to the hem, as the landing page draws shoulders: rounded, wide. */
function torsoPath(b: Body, hemY: number, hemHalf: number): string {
  const s = b.shoulder;
  const top = b.shoulderY - 42;
  return (
    `M${f(-b.neck - 6)} ${f(top)} C${f(-s * 0.6)} ${f(top + 2)} ${f(-s + 4)} ${f(b.shoulderY - 26)} ${f(-s)} ${f(b.shoulderY + 16)} ` +
    `L${f(-s + 10)} ${f(b.shoulderY + 90)} C${f(-b.waist - 6)} ${f((b.shoulderY + b.waistY) / 2 + 40)} ${f(-b.waist)} ${f(b.waistY - 30)} ${f(-b.waist)} ${f(b.waistY)} ` +
    `L${f(-hemHalf)} ${f(hemY)} L${f(hemHalf)} ${f(hemY)} L${f(b.waist)} ${f(b.waistY)} ` +
    `C${f(b.waist)} ${f(b.waistY - 30)} ${f(b.waist + 6)} ${f((b.shoulderY + b.waistY) / 2 + 40)} ${f(s - 10)} ${f(b.shoulderY + 90)} ` +
    `L${f(s)} ${f(b.shoulderY + 16)} C${f(s - 4)} ${f(b.shoulderY - 26)} ${f(s * 0.6)} ${f(top + 2)} ${f(b.neck + 6)} ${f(top)}Z`
  );
}

function outerHem(b: Body, kind: GarmentKind): number {
  if (kind === 'coat' || kind === 'trench') return b.kneeY + 30;
  if (kind === 'jacket' || kind === 'leather-jacket' || kind === 'puffer') return b.hipY - 10;
  return b.hipY + 14;
}

function legs(cast: Cast, b: Body, bottom: Garment, skin: string, shoes: string, stride: number): string {
  const bare = cast.dress !== null || bottom.kind === 'skirt' || bottom.kind === 'shorts';
  const hipX = b.hip * 0.46;
  // Walking, seen from the front: one leg straight, the other's knee bent and heel lifted mid-step.
  const one = (sideX: number, step: number) => {
    const width = bare ? b.leg * 0.62 : b.leg;
    const calf = bare ? b.leg * 0.5 : b.leg * 0.82;
    const colour = bare ? skin : bottom.colour;
    const kneeX = sideX * 0.92 - step * sideX * 0.25;
    const kneeY = b.kneeY - step * 20;
    const ankleX = sideX * 0.86;
    const ankleY = b.ankleY - step * 46;
    let g = `<path d="M${f(sideX)} ${f(b.hipY - 30)} L${f(kneeX)} ${f(kneeY)}" stroke="${colour}" stroke-width="${f(width)}" stroke-linecap="round"/>`;
    g += `<path d="M${f(kneeX)} ${f(kneeY)} L${f(ankleX)} ${f(ankleY)}" stroke="${colour}" stroke-width="${f(calf)}" stroke-linecap="round"/>`;
    if (bottom.kind === 'shorts' && !cast.dress)
      g += `<path d="M${f(sideX)} ${f(b.hipY - 30)} L${f(sideX * 0.95)} ${f(b.hipY + 110)}" stroke="${bottom.colour}" stroke-width="${f(b.leg * 1.02)}" stroke-linecap="butt"/>`;
    g += `<ellipse cx="${f(ankleX + Math.sign(sideX || 1) * 6)}" cy="${f(ankleY + 26)}" rx="${f(b.leg * 0.52)}" ry="${f(22 - step * 6)}" fill="${shoes}"/>`;
    return g;
  };
  return one(-hipX, 0) + one(hipX, stride);
}

function dressShape(b: Body, colour: string, skin: string, gown: boolean): string {
  const hemY = gown ? b.ankleY + 30 : b.kneeY + 10;
  const flare = gown ? b.hip + 90 : b.hip + 46;
  const bodice = torsoPath(b, b.waistY + 10, b.waist + 2);
  const skirt = `M${f(-b.waist - 2)} ${f(b.waistY)} C${f(-b.hip - 10)} ${f(b.hipY - 40)} ${f(-flare + 10)} ${f(hemY - 120)} ${f(-flare)} ${f(hemY)} Q0 ${f(hemY + 24)} ${f(flare)} ${f(hemY)} C${f(flare - 10)} ${f(hemY - 120)} ${f(b.hip + 10)} ${f(b.hipY - 40)} ${f(b.waist + 2)} ${f(b.waistY)}Z`;
  // Bare shoulders and a scoop neckline; a fold or two in the skirt.
  return (
    `<path d="${bodice}" fill="${colour}"/><path d="${skirt}" fill="${colour}"/>` +
    `<path d="M${f(-b.neck - 8)} ${f(b.shoulderY - 43)} Q0 ${f(b.shoulderY + 40)} ${f(b.neck + 8)} ${f(b.shoulderY - 43)}Z" fill="${skin}"/>` +
    `<path d="M-30 ${f(b.waistY + 30)} L${f(-flare * 0.45)} ${f(hemY)} M30 ${f(b.waistY + 30)} L${f(flare * 0.45)} ${f(hemY)}" stroke="#000" stroke-opacity="0.12" stroke-width="6" fill="none"/>` +
    `<rect x="${f(-b.waist)}" y="${f(b.waistY - 4)}" width="${f(b.waist * 2)}" height="10" fill="#000" opacity="0.12"/>`
  );
}

function outerShape(b: Body, outer: Garment, inner: string): string {
  const hemY = outerHem(b, outer.kind);
  const long = outer.kind === 'coat' || outer.kind === 'trench';
  const hemHalf = long ? b.hip + 40 : outer.kind === 'puffer' ? b.hip + 16 : b.hip + 6;
  let g = `<path d="${torsoPath({ ...b, shoulder: b.shoulder + (outer.kind === 'puffer' ? 10 : 4) }, hemY, hemHalf)}" fill="${outer.colour}"/>`;
  const vTop = b.shoulderY - 42;
  // The opening at the front: deep for a blazer or suit, to the waist for a coat, a zip line for a jacket.
  const vDepth =
    outer.kind === 'blazer' || outer.kind === 'suit'
      ? b.shoulderY + 150
      : long
        ? b.shoulderY + 110
        : outer.kind === 'cardigan'
          ? hemY
          : b.shoulderY + 60;
  const open = b.neck + 10;
  if (outer.kind === 'puffer' || outer.kind === 'hoodie') {
    g += `<path d="M${f(-open)} ${f(vTop)} L0 ${f(b.shoulderY + 4)} L${f(open)} ${f(vTop)}Z" fill="${inner}"/>`;
  } else {
    g += `<path d="M${f(-open)} ${f(vTop)} L0 ${f(vDepth)} L${f(open)} ${f(vTop)}Z" fill="${inner}"/>`;
  }
  if (outer.kind === 'cardigan') {
    g += `<path d="M${f(-open)} ${f(vTop)} L-6 ${f(hemY)} L6 ${f(hemY)} L${f(open)} ${f(vTop)}Z" fill="${inner}"/>`;
  }
  if (outer.kind === 'blazer' || outer.kind === 'suit' || long) {
    // Lapels: the landing page's darker folds either side of the opening.
    const w = long ? 62 : 50;
    g += `<path d="M${f(-open - 4)} ${f(vTop)} L0 ${f(vDepth)} L${f(-w * 0.4)} ${f(vDepth + 22)} L${f(-open - w)} ${f(vTop + 26)}Z M${f(open + 4)} ${f(vTop)} L0 ${f(vDepth)} L${f(w * 0.4)} ${f(vDepth + 22)} L${f(open + w)} ${f(vTop + 26)}Z" fill="#000" opacity="0.2"/>`;
    // Buttons down the front.
    const buttons = long ? [vDepth + 40, vDepth + 120, vDepth + 200] : [vDepth + 26, vDepth + 76];
    g += buttons.map((y) => `<circle cx="${long ? -14 : 0}" cy="${f(y)}" r="6" fill="#000" opacity="0.3"/>`).join('');
    if (long) g += `<path d="M-6 ${f(vDepth)} L-6 ${f(hemY)}" stroke="#000" stroke-opacity="0.18" stroke-width="5"/>`;
  } else if (outer.kind === 'jacket' || outer.kind === 'leather-jacket') {
    g += `<path d="M${f(-open)} ${f(vTop)} L-4 ${f(vDepth)} L-4 ${f(hemY)} M${f(open)} ${f(vTop)} L4 ${f(vDepth)} L4 ${f(hemY)}" stroke="#000" stroke-opacity="0.22" stroke-width="5" fill="none"/>`;
    g += `<path d="M${f(-open - 4)} ${f(vTop)} L${f(-open - 40)} ${f(vTop + 40)} L${f(-open - 10)} ${f(vTop + 70)}Z M${f(open + 4)} ${f(vTop)} L${f(open + 40)} ${f(vTop + 40)} L${f(open + 10)} ${f(vTop + 70)}Z" fill="#000" opacity="0.18"/>`;
    if (outer.kind === 'leather-jacket')
      g += `<path d="M${f(-b.shoulder * 0.7)} ${f(b.shoulderY + 20)} Q${f(-b.shoulder * 0.5)} ${f(b.shoulderY + 120)} ${f(-b.shoulder * 0.55)} ${f(hemY - 30)}" stroke="#fff" stroke-opacity="0.14" stroke-width="10" fill="none"/>`;
  } else if (outer.kind === 'puffer') {
    for (let y = b.shoulderY + 30; y < hemY - 10; y += 56)
      g += `<path d="M${f(-b.waist - 20)} ${f(y)} Q0 ${f(y + 12)} ${f(b.waist + 20)} ${f(y)}" stroke="#000" stroke-opacity="0.16" stroke-width="5" fill="none"/>`;
    g += `<path d="M0 ${f(b.shoulderY + 4)} L0 ${f(hemY)}" stroke="#000" stroke-opacity="0.22" stroke-width="5"/>`;
  } else if (outer.kind === 'hoodie') {
    g += `<path d="M${f(-b.neck - 30)} ${f(vTop - 6)} C${f(-b.neck - 40)} ${f(vTop - 50)} ${f(b.neck + 40)} ${f(vTop - 50)} ${f(b.neck + 30)} ${f(vTop - 6)}" stroke="#000" stroke-opacity="0.18" stroke-width="14" fill="none"/>`;
    g += `<path d="M-16 ${f(b.shoulderY)} L-18 ${f(b.shoulderY + 80)} M16 ${f(b.shoulderY)} L18 ${f(b.shoulderY + 80)}" stroke="#fff" stroke-opacity="0.5" stroke-width="4"/>`;
    g += `<path d="M${f(-b.waist * 0.7)} ${f(b.waistY + 20)} L${f(b.waist * 0.7)} ${f(b.waistY + 20)} L${f(b.waist * 0.8)} ${f(hemY - 20)} L${f(-b.waist * 0.8)} ${f(hemY - 20)}Z" fill="#000" opacity="0.1"/>`;
  }
  if (outer.kind === 'trench') {
    g += `<rect x="${f(-b.waist - 6)}" y="${f(b.waistY - 10)}" width="${f(b.waist * 2 + 12)}" height="22" fill="#000" opacity="0.22"/>`;
  }
  return g;
}

/** Necklines and seams of a top worn alone. */
function topDetails(b: Body, top: Garment, skin: string, skinShade: string): string {
  const y = b.shoulderY - 42;
  switch (top.kind) {
    case 't-shirt':
    case 'sweater':
      return `<path d="M${f(-b.neck - 10)} ${f(y)} Q0 ${f(y + 34)} ${f(b.neck + 10)} ${f(y)}Z" fill="${skinShade}"/><path d="M${f(-b.neck - 12)} ${f(y)} Q0 ${f(y + 38)} ${f(b.neck + 12)} ${f(y)}" stroke="#000" stroke-opacity="${top.kind === 'sweater' ? 0.22 : 0.12}" stroke-width="${top.kind === 'sweater' ? 9 : 5}" fill="none"/>`;
    case 'tank':
      return `<path d="M${f(-b.neck - 16)} ${f(y)} Q0 ${f(y + 50)} ${f(b.neck + 16)} ${f(y)}Z" fill="${skin}"/>`;
    case 'blouse':
      return `<path d="M${f(-b.neck - 8)} ${f(y)} L0 ${f(y + 70)} L${f(b.neck + 8)} ${f(y)}Z" fill="${skinShade}"/>`;
    case 'shirt':
      return (
        `<path d="M0 ${f(y + 30)} L0 ${f(b.hipY)}" stroke="#000" stroke-opacity="0.14" stroke-width="4"/>` +
        [60, 120, 180].map((d) => `<circle cx="0" cy="${f(y + d)}" r="4" fill="#000" opacity="0.2"/>`).join('')
      );
    default:
      return '';
  }
}

function collar(b: Body, outer: Garment | null, top: Garment): string {
  const y = b.shoulderY - 44;
  if (
    top.kind === 'shirt' &&
    (!outer || outer.kind === 'blazer' || outer.kind === 'suit' || outer.kind === 'coat' || outer.kind === 'trench')
  ) {
    // Shirt collar points either side of the neck.
    return `<path d="M${f(-b.neck - 2)} ${f(y - 8)} L${f(-b.neck - 26)} ${f(y + 26)} L-4 ${f(y + 30)}Z M${f(b.neck + 2)} ${f(y - 8)} L${f(b.neck + 26)} ${f(y + 26)} L4 ${f(y + 30)}Z" fill="${top.colour}"/><path d="M${f(-b.neck - 26)} ${f(y + 26)} L-4 ${f(y + 30)} M${f(b.neck + 26)} ${f(y + 26)} L4 ${f(y + 30)}" stroke="#000" stroke-opacity="0.15" stroke-width="3"/>`;
  }
  if (outer && (outer.kind === 'coat' || outer.kind === 'trench' || outer.kind === 'puffer')) {
    return `<path d="M${f(-b.neck - 8)} ${f(y - 6)} L${f(-b.neck - 34)} ${f(y + 34)} L${f(-b.neck + 4)} ${f(y + 26)}Z M${f(b.neck + 8)} ${f(y - 6)} L${f(b.neck + 34)} ${f(y + 34)} L${f(b.neck - 4)} ${f(y + 26)}Z" fill="${outer.colour}"/>`;
  }
  return '';
}

function arms(
  b: Body,
  sleeve: { colour: string; length: 'long' | 'short' | 'none'; width: number },
  skin: string,
  stride: number,
  umbrella: boolean,
): string {
  const one = (side: -1 | 1, swing: number, raised: boolean) => {
    const sx = side * (b.shoulder - b.arm * 0.45);
    // Low enough that the arm's round top sits inside the shoulder's curve.
    const sy = b.shoulderY + 26;
    const ex = side * (b.shoulder + 2);
    const wx = side * (b.shoulder - 8);
    // An arm holding an umbrella bends at the elbow and brings the hand up to the chest.
    const elbow = raised ? [side * (b.shoulder + 10), b.elbowY - 40] : [ex, b.elbowY];
    const wrist = raised ? [side * (b.shoulder * 0.55), b.shoulderY + 150] : [wx, b.wristY];
    const path = `M${f(sx)} ${f(sy)} L${f(elbow[0]!)} ${f(elbow[1]!)} L${f(wrist[0]!)} ${f(wrist[1]!)}`;
    const width = b.arm * sleeve.width;
    const stroke = (d: string, colour: string, w: number) =>
      // A darker edge under each stroke keeps an arm apart from a body of the same colour.
      `<path d="${d}" stroke="${shade(colour, -0.35)}" stroke-width="${f(w + 7)}" stroke-linecap="round" stroke-linejoin="round" fill="none"/>` +
      `<path d="${d}" stroke="${colour}" stroke-width="${f(w)}" stroke-linecap="round" stroke-linejoin="round" fill="none"/>`;
    const upper = `M${f(sx)} ${f(sy)} L${f(sx + (elbow[0]! - sx) * 0.45)} ${f(sy + (elbow[1]! - sy) * 0.45)}`;
    let g = sleeve.length === 'long' ? stroke(path, shade(sleeve.colour, -0.06), width) : stroke(path, skin, b.arm * 0.74);
    if (sleeve.length === 'short') g += stroke(upper, shade(sleeve.colour, -0.04), width * 1.08);
    g += `<path d="${path}" stroke="#000" stroke-opacity="0.1" stroke-width="${f(width * 0.3)}" stroke-linecap="round" stroke-linejoin="round" fill="none" transform="translate(${f(side * width * 0.28)} 0)"/>`;
    g += `<ellipse cx="${f(wrist[0]!)}" cy="${f(wrist[1]! + 26)}" rx="${f(b.arm * 0.42)}" ry="${f(b.arm * 0.6)}" fill="${skin}"/>`;
    return swing ? `<g transform="rotate(${f(swing)} ${f(sx)} ${f(sy)})">${g}</g>` : g;
  };
  const swing = 5 * stride;
  return one(-1, -swing, false) + one(1, swing, umbrella);
}

function neck(b: Body, skinShade: string, turtleneck: string | null): string {
  let g = `<rect x="${f(-b.neck)}" y="40" width="${f(b.neck * 2)}" height="${f(b.shoulderY - 64)}" rx="${f(b.neck * 0.8)}" fill="${skinShade}"/>`;
  g += `<path d="M${f(-b.neck)} 62 Q0 92 ${f(b.neck)} 62 L${f(b.neck)} 52 L${f(-b.neck)} 52Z" fill="#000" opacity="0.12"/>`;
  if (turtleneck)
    g += `<path d="M${f(-b.neck - 8)} ${f(b.shoulderY - 24)} V78 Q${f(-b.neck - 8)} 70 ${f(-b.neck)} 70 H${f(b.neck)} Q${f(b.neck + 8)} 70 ${f(b.neck + 8)} 78 V${f(b.shoulderY - 24)}Z" fill="${turtleneck}"/><path d="M${f(-b.neck - 8)} 92 L${f(b.neck + 8)} 92 M${f(-b.neck - 8)} 110 L${f(b.neck + 8)} 110" stroke="#000" stroke-opacity="0.14" stroke-width="4"/>`;
  return g;
}

function scarfShape(b: Body, colour: string): string {
  const y = b.shoulderY - 52;
  return (
    `<path d="M${f(-b.neck - 26)} ${f(y - 16)} Q0 ${f(y + 26)} ${f(b.neck + 26)} ${f(y - 16)} L${f(b.neck + 30)} ${f(y + 14)} Q0 ${f(y + 60)} ${f(-b.neck - 30)} ${f(y + 14)}Z" fill="${colour}"/>` +
    `<path d="M${f(b.neck - 6)} ${f(y + 20)} L${f(b.neck + 20)} ${f(y + 150)} L${f(b.neck - 14)} ${f(y + 156)} L${f(b.neck - 22)} ${f(y + 30)}Z" fill="${colour}"/>` +
    `<path d="M${f(b.neck - 6)} ${f(y + 20)} L${f(b.neck + 20)} ${f(y + 150)}" stroke="#000" stroke-opacity="0.15" stroke-width="4"/>`
  );
}

/** The head: ears, then the face's shape (a little squarer at the jaw for a man). */
function head(cast: Cast, skin: string, skinShade: string): string {
  const masc = cast.gender === 'masculine';
  const shapeD = masc
    ? 'M-58 -4 C-58 -52 -32 -72 0 -72 C32 -72 58 -52 58 -4 C58 30 46 56 26 66 C16 71 8 72 0 72 C-8 72 -16 71 -26 66 C-46 56 -58 30 -58 -4Z'
    : 'M0 -70 C32 -70 57 -42 57 0 C57 42 32 70 0 70 C-32 70 -57 42 -57 0 C-57 -42 -32 -70 0 -70Z';
  return `<ellipse cx="-57" cy="10" rx="11" ry="16" fill="${skinShade}"/><ellipse cx="57" cy="10" rx="11" ry="16" fill="${skinShade}"/><path d="${shapeD}" fill="${skin}"/>`;
}

function face(cast: Cast, skinShade: string, hair: string, lit: (hex: string) => string): string {
  const masc = cast.gender === 'masculine';
  const old = cast.age === 'elderly';
  const brow = shade(hair, old ? 0.1 : -0.1);
  let g =
    `<path d="M-32 -12 Q-22 -19 -12 -13 M12 -13 Q22 -19 32 -12" stroke="${brow}" stroke-width="${masc ? 5.5 : 4}" stroke-linecap="round" fill="none"/>` +
    `<ellipse cx="-22" cy="4" rx="5" ry="6" fill="#2a1d1a"/><ellipse cx="22" cy="4" rx="5" ry="6" fill="#2a1d1a"/>` +
    `<circle cx="-20" cy="2" r="1.6" fill="#fff" opacity="0.8"/><circle cx="24" cy="2" r="1.6" fill="#fff" opacity="0.8"/>` +
    `<path d="M0 8 Q-4 26 2 30" stroke="${skinShade}" stroke-width="3" stroke-linecap="round" fill="none"/>`;
  if (!masc && cast.age !== 'child')
    g += `<path d="M-28 -2 L-31 -6 M28 -2 L31 -6" stroke="#2a1d1a" stroke-width="2.2" stroke-linecap="round"/>`;
  g += `<path d="M-18 40 Q0 56 18 40" stroke="${lit(masc ? '#9a5048' : '#b5525a')}" stroke-width="${masc ? 4 : 5}" stroke-linecap="round" fill="none"/>`;
  g += `<circle cx="-32" cy="28" r="9" fill="#e77f7f" opacity="${masc ? 0.08 : 0.2}"/><circle cx="32" cy="28" r="9" fill="#e77f7f" opacity="${masc ? 0.08 : 0.2}"/>`;
  if (old || cast.age === 'middle') {
    const o = old ? 0.35 : 0.18;
    g += `<path d="M-20 -34 Q0 -38 20 -34 M-16 -26 Q0 -29 16 -26 M-30 18 Q-34 34 -26 46 M30 18 Q34 34 26 46" stroke="${skinShade}" stroke-opacity="${o + 0.4}" stroke-width="2.5" fill="none"/>`;
  }
  if (masc && !cast.beard && cast.age !== 'child') {
    // The shadow of a shaved beard: a man's face at a glance.
    g += `<path d="M-54 14 C-50 50 -28 72 0 72 C28 72 50 50 54 14 C44 40 30 52 0 54 C-30 52 -44 40 -54 14Z" fill="${hair}" opacity="0.13"/>`;
  }
  if (cast.beard) {
    const beard = shade(hair, 0.04);
    g += `<path d="M-56 6 C-54 52 -30 80 0 82 C30 80 54 52 56 6 C48 30 38 44 24 48 C14 40 -14 40 -24 48 C-38 44 -48 30 -56 6Z" fill="${beard}"/><path d="M-24 38 Q0 28 24 38 Q0 44 -24 38Z" fill="${beard}"/>`;
  }
  return g;
}

function hairBack(cast: Cast, hair: string): string {
  switch (cast.hairStyle) {
    case 'long':
      return `<path d="M-64 -2 C-70 -72 -35 -82 0 -82 C40 -82 72 -67 66 3 L80 150 C50 170 -50 170 -78 150Z" fill="${hair}"/>`;
    case 'wavy':
      return `<path d="M-64 -2 C-72 -72 -35 -84 0 -84 C42 -84 74 -66 66 3 C84 40 62 70 84 104 C96 134 72 160 50 158 C20 164 -20 164 -50 158 C-74 160 -96 132 -84 102 C-66 70 -84 40 -64 -2Z" fill="${hair}"/>`;
    case 'bob':
      return `<path d="M-66 0 C-72 -72 -34 -84 0 -84 C36 -84 72 -72 66 0 C68 30 72 52 76 68 C50 80 -50 80 -76 68 C-72 52 -68 30 -66 0Z" fill="${hair}"/>`;
    case 'curly':
      return `<g fill="${hair}">${[
        [-50, -42],
        [-25, -67],
        [5, -74],
        [35, -66],
        [55, -40],
        [-58, -7],
        [62, -7],
        [0, -54],
        [-60, 22],
        [64, 22],
      ]
        .map(([x, y]) => `<circle cx="${x}" cy="${y}" r="30"/>`)
        .join('')}</g>`;
    case 'bun':
      // Under a hat, a top knot does not show.
      return cast.accessories.some((a) => a.kind === 'hat' || a.kind === 'beanie' || a.kind === 'cap')
        ? ''
        : `<circle cx="0" cy="-84" r="27" fill="${hair}"/>`;
    case 'ponytail':
      return `<path d="M28 -60 C92 -50 100 40 74 120 C66 140 46 134 50 112 C66 50 62 -6 18 -36Z" fill="${hair}"/>`;
    default:
      return '';
  }
}

function hairFront(cast: Cast, hair: string): string {
  switch (cast.hairStyle) {
    case 'long':
    case 'wavy':
    case 'bob':
      return `<path d="M-58 -7 C-58 -60 -30 -78 2 -76 C36 -74 60 -56 58 -7 C46 -32 22 -46 0 -48 C-22 -46 -46 -32 -58 -7Z" fill="${hair}"/>`;
    case 'short':
      return `<path d="M-59 -4 C-65 -54 -34 -76 2 -76 C40 -76 67 -54 59 -4 C55 -26 42 -40 26 -44 C0 -36 -32 -40 -50 -32 C-54 -24 -56 -14 -59 -4Z" fill="${hair}"/>`;
    case 'bun':
    case 'ponytail':
      return `<path d="M-58 -12 C-56 -54 -28 -68 0 -68 C30 -68 58 -52 58 -12 C40 -36 16 -44 0 -44 C-18 -44 -42 -34 -58 -12Z" fill="${hair}"/>`;
    case 'curly':
      return `<g fill="${hair}">${[
        [-42, -50],
        [-14, -66],
        [18, -64],
        [44, -48],
      ]
        .map(([x, y]) => `<circle cx="${x}" cy="${y}" r="22"/>`)
        .join('')}</g>`;
    case 'bald':
      return `<ellipse cx="-14" cy="-50" rx="18" ry="9" fill="#fff" opacity="0.14"/>`;
  }
}

function eyewear(kind: 'sun' | 'clear', colour: string): string {
  const lens = kind === 'sun' ? `fill="#111" fill-opacity="0.85"` : `fill="#fff" fill-opacity="0.12"`;
  return `<g stroke="${colour}" stroke-width="4.5"><rect x="-40" y="-10" width="34" height="26" rx="9" ${lens}/><rect x="6" y="-10" width="34" height="26" rx="9" ${lens}/><path d="M-6 0 Q0 -5 6 0 M-40 -2 L-56 -6 M40 -2 L56 -6" fill="none"/></g>`;
}

function headwear(kind: AccessoryKind, colour: string): string {
  switch (kind) {
    case 'beanie':
      return `<path d="M-62 -26 C-64 -96 64 -96 62 -26Z" fill="${colour}"/><rect x="-66" y="-40" width="132" height="24" rx="10" fill="${shade(colour, -0.15)}"/>`;
    case 'cap':
      return `<path d="M-60 -30 C-62 -98 62 -98 60 -30Z" fill="${colour}"/><path d="M-60 -32 L80 -32 Q96 -28 84 -20 L-60 -22Z" fill="${shade(colour, -0.2)}"/>`;
    default:
      return `<ellipse cx="0" cy="-44" rx="104" ry="18" fill="${colour}"/><path d="M-54 -44 C-56 -110 56 -110 54 -44Z" fill="${colour}"/><rect x="-54" y="-62" width="108" height="14" fill="#000" opacity="0.25"/>`;
  }
}

function umbrella(b: Body, colour: string, light: -1 | 1): string {
  const handX = b.shoulder * 0.55;
  const top = -190;
  const canopy = `M${f(handX - 230)} ${f(top + 70)} Q${f(handX)} ${f(top - 110)} ${f(handX + 230)} ${f(top + 70)} Q${f(handX + 172)} ${f(top + 50)} ${f(handX + 115)} ${f(top + 70)} Q${f(handX + 57)} ${f(top + 50)} ${f(handX)} ${f(top + 70)} Q${f(handX - 57)} ${f(top + 50)} ${f(handX - 115)} ${f(top + 70)} Q${f(handX - 172)} ${f(top + 50)} ${f(handX - 230)} ${f(top + 70)}Z`;
  return (
    `<path d="M${f(handX)} ${f(b.shoulderY + 176)} L${f(handX)} ${f(top - 40)}" stroke="#2a2a2a" stroke-width="7"/>` +
    `<path d="${canopy}" fill="${colour}"/>` +
    `<path d="M${f(handX)} ${f(top - 40)} Q${f(handX - light * 60)} ${f(top + 10)} ${f(handX - light * 115)} ${f(top + 70)}" stroke="#fff" stroke-opacity="0.18" stroke-width="6" fill="none"/>`
  );
}
