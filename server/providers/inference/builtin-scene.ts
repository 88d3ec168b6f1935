/**
 * The built-in engine's "understanding" of a prompt: which scene to paint, in which light and weather, and
 * who stands in it. Pure functions of the prompt's words (the tables are in builtin-words.ts), so the same
 * prompt always reads the same way.
 */
import {
  ACCESSORY_WORDS,
  AGE_WORDS,
  BEARD_WORDS,
  COLOUR_WORDS,
  FORMAL_WORDS,
  FRAMING_WORDS,
  GARMENT_MODIFIERS,
  GARMENT_WORDS,
  GENDER_WORDS,
  HAIR_COLOUR_WORDS,
  HAIR_LENGTH_WORDS,
  HAIR_ONLY_COLOUR_WORDS,
  HAIR_STYLE_WORDS,
  IMPLIED_FRAMING_WORDS,
  INTERIOR_WORDS,
  PAIR_WORDS,
  PERSON_WORDS,
  PRONOUNS,
  SCENE_WORDS,
  SKIN_WORDS,
  TIME_WORDS,
  WALKING_WORDS,
  WEATHER_WORDS,
  type AccessoryKind,
  type Age,
  type Framing,
  type GarmentKind,
  type GarmentLayer,
  type Gender,
  type HairStyle,
  type Interior,
  type SceneKind,
  type Weather,
  type WordEntry,
} from './builtin-words.ts';

export type { SceneKind } from './builtin-words.ts';

export interface Palette {
  skyTop: string;
  skyBottom: string;
  glow: string;
  far: string;
  mid: string;
  near: string;
  accent: string;
}

export interface Worn<K> {
  kind: K;
  /** The colour the prompt gives it, if any. */
  colour: string | null;
}

/** What the prompt says about its person; null where it says nothing (the painter then chooses by seed). */
export interface PersonReading {
  gender: Gender | null;
  age: Age | null;
  /** [first, last] index into SKIN_TONES. */
  skin: readonly [number, number] | null;
  hairColour: string | null;
  hairStyle: HairStyle | null;
  beard: boolean;
  garments: Partial<Record<GarmentLayer, Worn<GarmentKind>>>;
  accessories: Worn<AccessoryKind>[];
  framing: Framing | null;
  /** The framing was asked for in so many words ("full-body"), not implied ("walking"). */
  framingSaid: boolean;
  walking: boolean;
  /** Dressed for work (a blazer) when no clothes are named. */
  formal: boolean;
}

export interface SceneReading {
  kind: SceneKind;
  palette: Palette;
  /** Night-time light: stars, lit windows, moon instead of sun. */
  night: boolean;
  /** Warm low sun (sunset, golden hour). */
  golden: boolean;
  weather: Weather | null;
  /** For an interior: what its walls show. */
  interior: Interior;
  /** Who the picture is of; null for a scene without a person. */
  person: PersonReading | null;
  /** A second person beside the first ("a couple", "a man and a woman"); null for one. */
  companion: PersonReading | null;
  /** 'Black and white', 'monochrome', 'greyscale': the picture is rendered without colour. */
  monochrome: boolean;
}

const BASE_PALETTES: Record<SceneKind, Palette> = {
  studio: { skyTop: '#3a3f4a', skyBottom: '#9aa3ad', glow: '#f3ede4', far: '#59606b', mid: '#2c3038', near: '#16181d', accent: '#d9b48f' },
  interior: {
    skyTop: '#8a6a52',
    skyBottom: '#e8d2b4',
    glow: '#fff0d6',
    far: '#b08a66',
    mid: '#6e4c36',
    near: '#3a271c',
    accent: '#ffcf8a',
  },
  portrait: {
    skyTop: '#6d7f94',
    skyBottom: '#e6cfb4',
    glow: '#fff1dc',
    far: '#9fa8a4',
    mid: '#4d5a55',
    near: '#24292a',
    accent: '#e5a77d',
  },
  beach: { skyTop: '#3f86c6', skyBottom: '#f4d9b0', glow: '#fff4d6', far: '#2f8fa3', mid: '#1f6f86', near: '#e9d2a6', accent: '#ffb27a' },
  city: { skyTop: '#233a63', skyBottom: '#e59a6f', glow: '#ffd6a0', far: '#4b5470', mid: '#2b3047', near: '#15172a', accent: '#ffc46b' },
  forest: { skyTop: '#7fa7b8', skyBottom: '#e9e2c2', glow: '#fff6d8', far: '#6f8f7c', mid: '#36593f', near: '#142619', accent: '#d9c774' },
  mountain: {
    skyTop: '#4a78b0',
    skyBottom: '#f1d7c2',
    glow: '#fff3e0',
    far: '#8ea2c0',
    mid: '#56698c',
    near: '#27324a',
    accent: '#ffcf9e',
  },
  desert: { skyTop: '#5b8fc4', skyBottom: '#f6d3a3', glow: '#fff0cf', far: '#d8a06a', mid: '#c07a45', near: '#8a4f2b', accent: '#ffd08a' },
  night: { skyTop: '#070b1f', skyBottom: '#2b2d5e', glow: '#dfe7ff', far: '#262b52', mid: '#151937', near: '#0a0c1e', accent: '#ffd58a' },
  landscape: {
    skyTop: '#5d8fc2',
    skyBottom: '#f0dcc0',
    glow: '#fff4df',
    far: '#93a9b8',
    mid: '#5d7a6a',
    near: '#2b3d33',
    accent: '#f4c27f',
  },
};

// ───────────────────────── Matching words ─────────────────────────

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A phrase's words, separated in the prompt by spaces or hyphens; a trailing "s" or "es" is allowed. */
const phrase = (words: string) =>
  words
    .trim()
    .split(/[\s-]+/)
    .map(escape)
    .join('[\\s-]+');
const alternatives = (words: readonly string[]) =>
  [...words]
    .sort((a, b) => b.length - a.length)
    .map(phrase)
    .join('|');
/** Matches whole words only: letters and digits may not continue the phrase on either side. */
const wordsPattern = (words: readonly string[]) => `(?<![a-z0-9])(?:${alternatives(words)})(?:e?s)?(?![a-z0-9])`;

interface Found<T> {
  value: T;
  index: number;
  end: number;
}

/** Every match of every entry, in the order they appear in the text. */
function findAll<T>(text: string, table: readonly WordEntry<T>[]): Found<T>[] {
  const found: Found<T>[] = [];
  for (const entry of table) {
    for (const m of text.matchAll(new RegExp(wordsPattern(entry.words), 'g')))
      found.push({ value: entry.value, index: m.index, end: m.index + m[0].length });
  }
  return found.sort((a, b) => a.index - b.index);
}

/** The first entry of the table (in table order) that the text names. */
const firstEntry = <T>(text: string, table: readonly WordEntry<T>[]): T | null =>
  table.find((entry) => new RegExp(wordsPattern(entry.words)).test(text))?.value ?? null;

/** The entry the text names first (in reading order). */
const earliest = <T>(text: string, table: readonly WordEntry<T>[]): T | null => findAll(text, table)[0]?.value ?? null;

const mentions = (text: string, words: readonly string[]) => new RegExp(wordsPattern(words)).test(text);

/** The value of the table entry containing `word` (already matched by a pattern built from the same table). */
function valueOf<T>(table: readonly WordEntry<T>[], word: string): T {
  const norm = (s: string) => s.replace(/[\s-]+/g, ' ').trim();
  const w = norm(word);
  const hit = table.find((e) => e.words.some((x) => norm(x) === w || `${norm(x)}s` === w || `${norm(x)}es` === w));
  return hit!.value;
}

const COLOUR = alternatives(COLOUR_WORDS.flatMap((e) => e.words));
// Lazy, so that a garment named with a fabric ("leather jacket") is read before the fabric as a modifier.
const MODIFIERS = `(?:[\\s-]+(?:${alternatives(GARMENT_MODIFIERS)}))*?`;

/**
 * Things worn, each with the colour written just before it ("a red wool coat"): a colour word followed by
 * fabric or cut words and then the garment. Returns what was found and the text with those words blanked,
 * so that the colours left over are the scene's.
 */
function findWorn<K>(text: string, table: readonly WordEntry<K>[]): { found: Found<Worn<K>>[]; rest: string } {
  const pattern = new RegExp(
    `(?<![a-z0-9])(?:(${COLOUR})${MODIFIERS}[\\s-]+)?(${alternatives(table.flatMap((e) => e.words))})(?:e?s)?(?![a-z0-9])`,
    'g',
  );
  const found: Found<Worn<K>>[] = [];
  let rest = text;
  for (const m of text.matchAll(pattern)) {
    const colour = m[1] ? valueOf(COLOUR_WORDS, m[1]) : null;
    found.push({ value: { kind: valueOf(table, m[2]!), colour }, index: m.index, end: m.index + m[0].length });
    rest = rest.slice(0, m.index) + ' '.repeat(m[0].length) + rest.slice(m.index + m[0].length);
  }
  return { found, rest };
}

const HAIR_NOUN = '(?:hair|haired|locks|curls|braids?|bun|ponytail|bob|beard|bearded)';
const HAIR_COLOUR = alternatives(HAIR_COLOUR_WORDS.flatMap((e) => e.words));
const HAIR_LENGTH = alternatives(HAIR_LENGTH_WORDS.flatMap((e) => e.words));

/** Hair colour and length, read only next to "hair" ("long black hair", "red-haired") or from hair-only words. */
function readHair(text: string): { colour: string | null; length: HairStyle | null; rest: string } {
  let rest = text;
  const blank = (m: RegExpMatchArray) => (rest = rest.slice(0, m.index!) + ' '.repeat(m[0].length) + rest.slice(m.index! + m[0].length));
  const coloured = new RegExp(`(?<![a-z0-9])(${HAIR_COLOUR})((?:[\\s-]+[a-z]+)?)[\\s-]+${HAIR_NOUN}(?![a-z0-9])`).exec(text);
  let colour: string | null = null;
  if (coloured) {
    colour = valueOf(HAIR_COLOUR_WORDS, coloured[1]!);
    blank(coloured);
  } else {
    colour = firstEntry(text, HAIR_ONLY_COLOUR_WORDS);
  }
  const sized = new RegExp(`(?<![a-z0-9])(${HAIR_LENGTH})((?:[\\s-]+[a-z]+){0,2})[\\s-]+${HAIR_NOUN}(?![a-z0-9])`).exec(text);
  return { colour, length: sized ? valueOf(HAIR_LENGTH_WORDS, sized[1]!) : null, rest };
}

const PERSON_NOUNS: WordEntry<Gender>[] = GENDER_WORDS.map((e) => ({ ...e, words: e.words.filter((w) => !PRONOUNS.includes(w)) }));

/** Person words that are never only a kind of photo ('a man portrait' still shows a man). */
const PLAIN_PERSON_WORDS = ['man', 'men', 'woman', 'women', 'boy', 'boys', 'girl', 'girls', 'guy', 'lady', 'person', 'people'];
const PHOTO_KIND_ROLE = new RegExp(
  `${wordsPattern(PERSON_NOUNS.flatMap((e) => e.words).filter((w) => !PLAIN_PERSON_WORDS.includes(w)))}` +
    '(?=\\s+(?:headshots?|portraits?|photos?|photographs?|shots?)(?![a-z0-9]))',
  'g',
);

/**
 * A role that names a kind of photo ('actor headshot', 'model portrait') is not someone in it: blanked (same
 * length, so positions hold) before people are read. 'Actor headshot of a woman' is one woman, not a man too.
 */
const withoutPhotoKindRoles = (text: string) => text.replace(PHOTO_KIND_ROLE, (role) => ' '.repeat(role.length));

/**
 * Who is in the picture: one person, or two when the prompt says so ("a couple", "two women") or names a
 * second ("a man and a woman", "a woman in red and her husband in a suit"). With two named, each is read
 * from the words from their name up to the next; framing and movement are read from the whole prompt.
 */
function readPeople(text: string, kind: SceneKind): { person: PersonReading | null; companion: PersonReading | null; rest: string } {
  const nouns = findAll(text, PERSON_NOUNS).filter((n, i, all) => i === 0 || n.index >= all[i - 1]!.end);
  const pair = firstEntry(text, PAIR_WORDS);
  if (nouns.length < 2 && !pair) {
    const one = readPerson(text, text, kind);
    return { ...one, companion: null };
  }
  const split = nouns.length >= 2 ? nouns[1]!.index : text.length;
  const first = readPerson(text.slice(0, split), text, kind, pair?.[0]);
  const second = split < text.length ? readPerson(text.slice(split), text, kind, pair?.[1]) : null;
  // Two people not named apart ("two women in yellow raincoats", "a couple in matching coats") dress alike,
  // but a dress goes to a second person only when she is said to be a woman.
  const { dress: _dress, ...undressed } = first.person!.garments;
  const companion = second?.person ?? {
    ...first.person!,
    gender: pair?.[1] ?? null,
    age: null,
    skin: null,
    hairColour: null,
    hairStyle: null,
    beard: false,
    garments: pair?.[1] === 'feminine' ? first.person!.garments : undressed,
  };
  return { person: first.person, companion, rest: first.rest + (second?.rest ?? '') };
}

/** One person from `text` (their part of the prompt); framing, movement and dress code from `whole`. */
function readPerson(
  text: string,
  whole: string,
  kind: SceneKind,
  gender: Gender | null = null,
): { person: PersonReading | null; rest: string } {
  const hair = readHair(text);
  const worn = findWorn(hair.rest, GARMENT_WORDS);
  const accessories = findWorn(worn.rest, ACCESSORY_WORDS);
  const garments: PersonReading['garments'] = {};
  for (const { value } of worn.found) {
    const { kind: wornKind, layer } = value.kind;
    garments[layer] ??= { kind: wornKind, colour: value.colour };
  }
  gender = earliest(text, GENDER_WORDS) ?? gender;
  const age = firstEntry(text, AGE_WORDS);
  const beard = mentions(text, BEARD_WORDS);
  const present =
    gender !== null ||
    age !== null ||
    beard ||
    hair.colour !== null ||
    worn.found.length > 0 ||
    mentions(whole, PERSON_WORDS) ||
    kind === 'studio';
  if (!present) return { person: null, rest: text };
  const said = firstEntry(whole, FRAMING_WORDS);
  const person: PersonReading = {
    gender,
    age,
    skin: firstEntry(text, SKIN_WORDS),
    hairColour: hair.colour,
    hairStyle: firstEntry(text, HAIR_STYLE_WORDS) ?? hair.length,
    beard,
    garments,
    accessories: accessories.found.map((f) => f.value),
    framing: said ?? earliest(whole, IMPLIED_FRAMING_WORDS),
    framingSaid: said !== null,
    walking: mentions(whole, WALKING_WORDS),
    formal: mentions(whole, FORMAL_WORDS),
  };
  return { person, rest: accessories.rest };
}

/** Words that ask for a picture without colour. */
const MONOCHROME = /\b(black[- ]and[- ]white|black & white|b&w|monochrome|greyscale|grayscale)\b/;

export function readPrompt(prompt: string): SceneReading {
  const text = withoutPhotoKindRoles(prompt.toLowerCase());
  const time = findAll(text, TIME_WORDS);
  const night = time.some((t) => t.value === 'night');
  const golden = time.some((t) => t.value === 'golden');
  const weather = firstEntry(text, WEATHER_WORDS);
  let kind: SceneKind | null = firstEntry(text, SCENE_WORDS);
  // "Stars" or "moon" is the time of day when a place is named too ("a city under the stars" is a city).
  if (kind === 'night' && !mentions(text, ['galaxy', 'space', 'milky way'])) {
    kind =
      firstEntry(
        text,
        SCENE_WORDS.filter((e) => e.value !== 'night'),
      ) ?? 'night';
  }
  const { person, companion, rest } = readPeople(text, kind ?? 'landscape');
  kind ??= person ? 'portrait' : 'landscape';

  let palette = { ...BASE_PALETTES[kind] };
  if (night && kind !== 'night') palette = toNight(palette);
  if (golden) palette = toGolden(palette);
  if (weather) palette = inWeather(palette, weather, night ? 0.45 : 1);
  // Colours that name nothing worn colour the scene ("teal and orange", "a pink sky"); time words are not colours.
  let sceneText = rest;
  for (const t of time) sceneText = sceneText.slice(0, t.index) + ' '.repeat(t.end - t.index) + sceneText.slice(t.end);
  const colours = findAll(sceneText, COLOUR_WORDS).map((f) => f.value);
  if (colours.length) palette = tintPalette(palette, colours);
  return {
    kind,
    palette,
    night: night || kind === 'night',
    golden,
    weather,
    interior: firstEntry(text, INTERIOR_WORDS) ?? 'room',
    person,
    companion,
    monochrome: MONOCHROME.test(text),
  };
}

/** Weather changes the light: each colour of the palette moves towards another by an amount. */
const WEATHER_LIGHT: Record<Weather, Partial<Record<keyof Palette, readonly [string, number]>>> = {
  // Bright and cool.
  snow: { skyTop: ['#9fb0c8', 0.35], skyBottom: ['#dfe6ef', 0.45], far: ['#e8eef5', 0.5], mid: ['#cfd9e6', 0.45], near: ['#eef3f8', 0.6] },
  // Dark and grey.
  rain: {
    skyTop: ['#3a4350', 0.5],
    skyBottom: ['#7d8794', 0.5],
    glow: ['#c9d3de', 0.4],
    far: ['#4e5865', 0.35],
    mid: ['#2c333d', 0.3],
    near: ['#1c2129', 0.3],
  },
  // Pale and flat.
  fog: { skyTop: ['#c9ced4', 0.55], skyBottom: ['#e4e6e8', 0.55], far: ['#d4d8dc', 0.6], mid: ['#aab0b6', 0.45], near: ['#6f767d', 0.3] },
};

/** The palette in the weather's light; `k` says how much (less at night, when the sky is dark anyway). */
function inWeather(p: Palette, weather: Weather, k: number): Palette {
  const out = { ...p };
  for (const [name, [towards, amount]] of Object.entries(WEATHER_LIGHT[weather]) as [keyof Palette, readonly [string, number]][]) {
    out[name] = mix(p[name], towards, amount * k);
  }
  return out;
}

function toNight(p: Palette): Palette {
  return {
    skyTop: '#060a1c',
    skyBottom: mix(p.skyTop, '#1a1d45', 0.7),
    glow: '#dfe6ff',
    far: mix(p.far, '#1c2145', 0.7),
    mid: mix(p.mid, '#10132c', 0.75),
    near: mix(p.near, '#070914', 0.8),
    accent: '#ffcc7a',
  };
}

function toGolden(p: Palette): Palette {
  return {
    ...p,
    skyTop: mix(p.skyTop, '#5a4a8a', 0.45),
    skyBottom: mix(p.skyBottom, '#ff9a5a', 0.6),
    glow: mix(p.glow, '#ffc27a', 0.6),
    far: mix(p.far, '#b0707a', 0.35),
    accent: mix(p.accent, '#ff8a4a', 0.4),
  };
}

/** Pulls the palette towards the named colours: the first leads the sky, the rest the land and light. */
export function tintPalette(p: Palette, colours: string[], strength = 0.5): Palette {
  const c = (i: number) => colours[i % colours.length]!;
  return {
    skyTop: mix(p.skyTop, c(0), strength * 0.8),
    skyBottom: mix(p.skyBottom, c(1), strength * 0.6),
    glow: mix(p.glow, c(0), strength * 0.3),
    far: mix(p.far, c(1), strength * 0.5),
    mid: mix(p.mid, c(2), strength * 0.5),
    near: mix(p.near, c(0), strength * 0.35),
    accent: mix(p.accent, c(0), strength),
  };
}

export function mix(a: string, b: string, t: number): string {
  const pa = parseHex(a);
  const pb = parseHex(b);
  return toHex(pa.map((v, i) => v + (pb[i]! - v) * t) as [number, number, number]);
}

export function shade(hex: string, amount: number): string {
  return amount >= 0 ? mix(hex, '#ffffff', amount) : mix(hex, '#000000', -amount);
}

export function parseHex(hex: string): [number, number, number] {
  const h = hex.replace('#', '');
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
}

export function toHex([r, g, b]: [number, number, number]): string {
  return (
    '#' +
    [r, g, b]
      .map((v) =>
        Math.max(0, Math.min(255, Math.round(v)))
          .toString(16)
          .padStart(2, '0'),
      )
      .join('')
  );
}

/** Scales every colour's distance from its grey: above 1 richer, below 1 more muted. */
export function saturate(p: Palette, factor: number): Palette {
  const one = (hex: string) => {
    const rgb = parseHex(hex);
    const grey = rgb[0] * 0.299 + rgb[1] * 0.587 + rgb[2] * 0.114;
    return toHex(rgb.map((v) => grey + (v - grey) * factor) as [number, number, number]);
  };
  return Object.fromEntries(Object.entries(p).map(([k, v]) => [k, one(v)])) as unknown as Palette;
}
