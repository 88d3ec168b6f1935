/**
 * The built-in engine's "understanding" of a prompt: which scene to paint and with which colours.
 * Pure functions of the prompt's words, so the same prompt always reads the same way.
 */

export type SceneKind = 'portrait' | 'beach' | 'city' | 'forest' | 'mountain' | 'night' | 'studio' | 'desert' | 'landscape';

export interface Palette {
  skyTop: string;
  skyBottom: string;
  glow: string;
  far: string;
  mid: string;
  near: string;
  accent: string;
}

export interface SceneReading {
  kind: SceneKind;
  palette: Palette;
  /** Night-time light: stars, lit windows, moon instead of sun. */
  night: boolean;
  /** Warm low sun (sunset, golden hour). */
  golden: boolean;
  /** A person is the subject (headshot, portrait, "a man", "a woman"...). */
  person: boolean;
}

const SCENE_WORDS: [SceneKind, RegExp][] = [
  ['studio', /\b(studio|headshot|linkedin|professional photo|backdrop|corporate)\b/],
  ['beach', /\b(beach|ocean|sea|seaside|coast|shore|surf|tropical|island|waves?)\b/],
  ['city', /\b(city|street|urban|downtown|skyline|cafe|café|neon|tokyo|new york|paris|rooftop|building)s?\b/],
  ['forest', /\b(forest|woods?|jungle|trees?|garden|park|meadow|nature)\b/],
  ['mountain', /\b(mountains?|alps|peaks?|hik(e|ing)|snow|glacier|valley|cliff)\b/],
  ['desert', /\b(desert|dunes?|sahara|canyon)\b/],
  ['night', /\b(night|midnight|stars?|starry|moon|galaxy|space)\b/],
  ['portrait', /\b(portrait|selfie|close-?up|face|person|man|woman|girl|boy|model|actor|actress)\b/],
];

const PERSON_WORDS =
  /\b(portrait|headshot|selfie|close-?up|face|person|man|woman|girl|boy|lady|guy|child|kid|couple|model|actor|actress|people|surfer|hiker|astronaut|dancer|athlete|runner|chef|student|business(wo)?man|he|she|wearing|smiling|posing)\b/;

/** Colour words → the hue they push the palette towards. */
const COLOUR_WORDS: [RegExp, string][] = [
  [/\b(red|crimson|scarlet)\b/, '#c8323c'],
  [/\b(orange|amber|copper)\b/, '#e07b2e'],
  [/\b(gold|golden|yellow)\b/, '#e8b84a'],
  [/\b(green|emerald|olive|mint)\b/, '#3f9a63'],
  [/\b(teal|turquoise|cyan|aqua)\b/, '#2aa6a6'],
  [/\b(blue|azure|navy|cobalt|sapphire)\b/, '#3763c4'],
  [/\b(purple|violet|lavender|lilac)\b/, '#7d4fc2'],
  [/\b(pink|rose|magenta|fuchsia)\b/, '#e0649a'],
  [/\b(brown|chocolate|coffee|wooden|leather)\b/, '#7a5236'],
  [/\b(white|snow|ivory|cream)\b/, '#efeae2'],
  [/\b(black|noir|dark)\b/, '#1b1c22'],
  [/\b(grey|gray|silver|monochrome)\b/, '#8d929a'],
];

const BASE_PALETTES: Record<SceneKind, Palette> = {
  studio: { skyTop: '#3a3f4a', skyBottom: '#9aa3ad', glow: '#f3ede4', far: '#59606b', mid: '#2c3038', near: '#16181d', accent: '#d9b48f' },
  portrait: { skyTop: '#6d7f94', skyBottom: '#e6cfb4', glow: '#fff1dc', far: '#9fa8a4', mid: '#4d5a55', near: '#24292a', accent: '#e5a77d' },
  beach: { skyTop: '#3f86c6', skyBottom: '#f4d9b0', glow: '#fff4d6', far: '#2f8fa3', mid: '#1f6f86', near: '#e9d2a6', accent: '#ffb27a' },
  city: { skyTop: '#233a63', skyBottom: '#e59a6f', glow: '#ffd6a0', far: '#4b5470', mid: '#2b3047', near: '#15172a', accent: '#ffc46b' },
  forest: { skyTop: '#7fa7b8', skyBottom: '#e9e2c2', glow: '#fff6d8', far: '#6f8f7c', mid: '#36593f', near: '#142619', accent: '#d9c774' },
  mountain: { skyTop: '#4a78b0', skyBottom: '#f1d7c2', glow: '#fff3e0', far: '#8ea2c0', mid: '#56698c', near: '#27324a', accent: '#ffcf9e' },
  desert: { skyTop: '#5b8fc4', skyBottom: '#f6d3a3', glow: '#fff0cf', far: '#d8a06a', mid: '#c07a45', near: '#8a4f2b', accent: '#ffd08a' },
  night: { skyTop: '#070b1f', skyBottom: '#2b2d5e', glow: '#dfe7ff', far: '#262b52', mid: '#151937', near: '#0a0c1e', accent: '#ffd58a' },
  landscape: { skyTop: '#5d8fc2', skyBottom: '#f0dcc0', glow: '#fff4df', far: '#93a9b8', mid: '#5d7a6a', near: '#2b3d33', accent: '#f4c27f' },
};

export function readPrompt(prompt: string): SceneReading {
  const text = prompt.toLowerCase();
  const night = /\b(night|midnight|starry|stars|moonlit|moon|neon|evening|nighttime)\b/.test(text);
  const golden = /\b(sunset|sunrise|golden hour|dusk|dawn|warm light|golden)\b/.test(text);
  const person = PERSON_WORDS.test(text);
  let kind: SceneKind = SCENE_WORDS.find(([, re]) => re.test(text))?.[0] ?? (person ? 'portrait' : 'landscape');
  // "night" alone is a time of day when a place is named too ("city at night" is a city).
  if (kind === 'night' && !/\b(galaxy|space)\b/.test(text)) {
    const place = SCENE_WORDS.find(([k, re]) => k !== 'night' && k !== 'portrait' && re.test(text));
    if (place) kind = place[0];
  }
  let palette = { ...BASE_PALETTES[kind] };
  if (night && kind !== 'night') palette = toNight(palette);
  if (golden) palette = toGolden(palette);
  const colours = COLOUR_WORDS.filter(([re]) => re.test(text)).map(([, hex]) => hex);
  if (colours.length) palette = tintPalette(palette, colours);
  return { kind, palette, night: night || kind === 'night', golden, person };
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
  return '#' + [r, g, b].map((v) => Math.max(0, Math.min(255, Math.round(v))).toString(16).padStart(2, '0')).join('');
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
