import type { FaceFinding, ImageAnalysis } from './types.ts';

/**
 * Turns an analysis into prompt text. Pure functions, so the wording can be tested without models.
 * Every claim comes from a measurement; what the models are unsure about is left out rather than guessed.
 */

export type Framing = 'close-up' | 'head-and-shoulders' | 'half-body' | 'three-quarter' | 'full-body' | 'group' | 'pair' | 'scene';

const MIN_FACE_SCORE = 0.5;
const MIN_PERSON_SCORE = 0.4;
const MIN_GENDER_SCORE = 0.35;
/** A smile is read reliably; the other expressions are often noise on small faces, so they need more. */
const MIN_SMILE_SCORE = 0.45;
const MIN_EMOTION_SCORE = 0.6;
const MIN_OBJECT_SCORE = 0.35;

const INDOOR = new Set([
  'chair',
  'couch',
  'bed',
  'dining table',
  'tv',
  'laptop',
  'refrigerator',
  'oven',
  'sink',
  'book',
  'clock',
  'vase',
  'toilet',
  'microwave',
  'keyboard',
  'mouse',
  'potted plant',
]);
const OUTDOOR = new Set([
  'car',
  'bus',
  'truck',
  'bicycle',
  'motorcycle',
  'traffic light',
  'bench',
  'boat',
  'stop sign',
  'fire hydrant',
  'kite',
  'airplane',
  'train',
  'horse',
  'cow',
  'sheep',
  'surfboard',
  'skis',
  'snowboard',
  'parking meter',
]);

const EXPRESSION: Record<string, string> = {
  happy: 'smiling',
  surprise: 'surprised',
  sad: 'sad-looking',
  angry: 'serious',
  fear: 'anxious',
  disgust: 'frowning',
};

const HAIR: Record<string, string> = {
  black: 'dark',
  charcoal: 'dark',
  brown: 'brown',
  burgundy: 'auburn',
  red: 'red',
  orange: 'ginger',
  beige: 'blonde',
  yellow: 'blonde',
  olive: 'dark blonde',
  grey: 'grey',
  'light grey': 'grey',
  white: 'white',
};

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`;
}

function list(words: string[]): string {
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function people(a: ImageAnalysis): { faces: FaceFinding[]; count: number } {
  const faces = a.faces.filter((f) => f.score >= MIN_FACE_SCORE);
  const persons = a.objects.filter((o) => o.label === 'person' && o.score >= MIN_PERSON_SCORE).length;
  return { faces, count: Math.max(faces.length, persons) };
}

/** How the main subject is framed, from the face's share of the frame and the body parts in view. */
export function framingOf(a: ImageAnalysis): Framing {
  const { faces, count } = people(a);
  if (count === 0) return 'scene';
  if (count >= 3) return 'group';
  if (count === 2) return 'pair';
  const face = faces[0];
  if (face && face.box[3] >= 0.45) return 'close-up';
  const body = a.bodies.find((b) => b.score >= 0.3);
  const seen = new Set(body?.visibleParts ?? []);
  const any = (...parts: string[]) => parts.some((p) => seen.has(p));
  if (any('leftAnkle', 'rightAnkle')) return 'full-body';
  if (any('leftKnee', 'rightKnee')) return 'three-quarter';
  if (any('leftHip', 'rightHip')) return 'half-body';
  if (face && face.box[3] >= 0.3) return 'close-up';
  return 'head-and-shoulders';
}

const FRAMING_NOUN: Record<Framing, string> = {
  'close-up': 'close-up portrait photo',
  'head-and-shoulders': 'head-and-shoulders portrait photo',
  'half-body': 'half-body portrait photo',
  'three-quarter': 'three-quarter length photo',
  'full-body': 'full-body photo',
  group: 'group photo',
  pair: 'photo',
  scene: 'photo',
};

function ageWords(age: number | null, gender: FaceFinding['gender']): { noun: string; age: string } {
  const noun = gender === 'female' ? 'woman' : gender === 'male' ? 'man' : 'person';
  if (age === null) return { noun, age: '' };
  const pronoun = gender === 'female' ? 'her' : gender === 'male' ? 'his' : 'their';
  if (age < 13) return { noun: gender === 'female' ? 'girl' : gender === 'male' ? 'boy' : 'child', age: '' };
  if (age < 20) return { noun: `teenage ${gender === 'female' ? 'girl' : gender === 'male' ? 'boy' : 'person'}`, age: '' };
  if (age >= 70) return { noun: `elderly ${noun}`, age: '' };
  const decade = ['twenties', 'thirties', 'forties', 'fifties', 'sixties'][Math.floor(age / 10) - 2];
  return { noun, age: `in ${pronoun} ${decade}` };
}

function confidentGender(face: FaceFinding): FaceFinding['gender'] {
  return face.genderScore >= MIN_GENDER_SCORE ? face.gender : null;
}

function expressionOf(face: FaceFinding): string | null {
  if (!face.emotion) return null;
  if (face.emotion.score < (face.emotion.name === 'happy' ? MIN_SMILE_SCORE : MIN_EMOTION_SCORE)) return null;
  return EXPRESSION[face.emotion.name] ?? null;
}

/** 'a smiling woman in her twenties' */
export function personPhrase(face: FaceFinding): string {
  const { noun, age } = ageWords(face.age, confidentGender(face));
  const expression = expressionOf(face);
  const core = article(expression ? `${expression} ${noun}` : noun);
  return age ? `${core} ${age}` : core;
}

function hairOf(a: ImageAnalysis, framing: Framing): string | null {
  if (!a.hair || a.hair.share < 0.5 || !['close-up', 'head-and-shoulders', 'half-body'].includes(framing)) return null;
  // The band above a head against a same-coloured backdrop says nothing about the hair.
  if (a.stats.border.palette[0]?.name === a.hair.name && a.stats.border.uniformity > 0.35) return null;
  const word = HAIR[a.hair.name];
  return word ? `${word} hair` : null;
}

function clothingOf(a: ImageAnalysis, framing: Framing): string | null {
  if (!a.clothing?.length || !['head-and-shoulders', 'half-body', 'three-quarter', 'full-body'].includes(framing)) return null;
  const garment = framing === 'three-quarter' || framing === 'full-body' ? 'outfit' : 'top';
  return `${list(a.clothing.map((c) => c.name))} ${garment}`;
}

function groupPhrase(faces: FaceFinding[], count: number): string {
  const women = faces.filter((f) => confidentGender(f) === 'female').length;
  const men = faces.filter((f) => confidentGender(f) === 'male').length;
  const smiling = faces.filter((f) => expressionOf(f) === 'smiling').length;
  const who = count === 2 ? 'two people' : `${count} people`;
  let mix = '';
  if (faces.length >= 2 && women >= faces.length * 0.7) mix = count === 2 ? 'two women' : 'mostly women';
  else if (faces.length >= 2 && men >= faces.length * 0.7) mix = count === 2 ? 'two men' : 'mostly men';
  else if (count === 2 && women === 1 && men === 1) mix = 'a woman and a man';
  const base = count === 2 && mix ? mix : mix ? `${who}, ${mix}` : who;
  return smiling >= Math.max(1, faces.length / 2) ? `${base}, smiling` : base;
}

function objectsOf(a: ImageAnalysis): string[] {
  const seen = new Set<string>();
  for (const o of a.objects) {
    if (o.label !== 'person' && o.score >= MIN_OBJECT_SCORE) seen.add(o.label);
  }
  return [...seen];
}

type Setting = { kind: 'indoor' | 'outdoor' | 'plain' | 'unknown'; colour: string; tone: 'dark' | 'light' | 'mid'; objects: string[] };

function settingOf(a: ImageAnalysis): Setting {
  const objects = objectsOf(a);
  const { border, top } = a.stats;
  const colour = border.palette[0]?.name ?? 'grey';
  const tone = border.brightness < 0.25 ? 'dark' : border.brightness > 0.75 ? 'light' : 'mid';
  const blueTop = top.palette.filter((c) => c.name === 'blue' || c.name === 'light blue').reduce((sum, c) => sum + c.share, 0);
  // A blue top band is sky only when the whole picture is not blue: a cool colour cast also turns walls blue.
  const sky = blueTop >= 0.6 && top.brightness > 0.55 && a.stats.warmth > -0.08;
  let kind: Setting['kind'] = 'unknown';
  if (border.uniformity >= 0.6) kind = 'plain';
  else if (objects.some((o) => OUTDOOR.has(o)) || (sky && !objects.some((o) => INDOOR.has(o)))) kind = 'outdoor';
  else if (objects.some((o) => INDOOR.has(o))) kind = 'indoor';
  return { kind, colour, tone, objects };
}

function settingShort(s: Setting): string | null {
  if (s.kind === 'plain') return `plain ${s.colour} background`;
  if (s.kind === 'outdoor') return 'outdoors';
  if (s.kind === 'indoor') return 'indoors';
  if (s.tone === 'dark') return 'dark background';
  if (s.tone === 'light') return 'light background';
  return null;
}

interface Light {
  temperature: 'warm' | 'cool' | 'neutral';
  key: 'low-key' | 'bright high-key' | 'soft' | 'even';
  contrast: 'high' | 'low' | 'moderate';
  monochrome: boolean;
  colours: 'vibrant' | 'muted' | 'natural';
}

function lightingOf(a: ImageAnalysis): Light {
  const s = a.stats;
  return {
    temperature: s.warmth > 0.08 ? 'warm' : s.warmth < -0.03 ? 'cool' : 'neutral',
    key: s.brightness < 0.3 ? 'low-key' : s.brightness > 0.65 ? 'bright high-key' : s.contrast < 0.17 ? 'soft' : 'even',
    contrast: s.contrast > 0.27 ? 'high' : s.contrast < 0.15 ? 'low' : 'moderate',
    monochrome: s.saturation < 0.06,
    colours: s.saturation > 0.45 ? 'vibrant' : s.saturation < 0.2 ? 'muted' : 'natural',
  };
}

function lightShort(l: Light): string {
  if (l.monochrome) return 'black-and-white';
  const parts = [l.temperature === 'neutral' ? 'natural' : l.temperature, l.key === 'even' ? '' : l.key].filter(Boolean);
  return `${parts.join(' ')} light`;
}

function subjectPhrase(a: ImageAnalysis, framing: Framing): string {
  const { faces, count } = people(a);
  if (framing === 'group' || framing === 'pair') return `${FRAMING_NOUN[framing]} of ${groupPhrase(faces, count)}`;
  if (framing === 'scene') {
    const objects = objectsOf(a);
    return objects.length ? `photo of ${article(list(objects.slice(0, 3)))}` : 'photo';
  }
  const face = faces[0];
  const who = face ? personPhrase(face) : 'a person';
  const hair = hairOf(a, framing);
  return `${FRAMING_NOUN[framing]} of ${who}${hair ? ` with ${hair}` : ''}`;
}

/** One sentence for the Fast caption: framing, subject, clothing, setting, light. */
export function fastCaption(a: ImageAnalysis): string {
  const framing = framingOf(a);
  const parts = [article(subjectPhrase(a, framing))];
  const clothing = clothingOf(a, framing);
  if (clothing) parts.push(`wearing ${article(clothing)}`);
  const setting = settingShort(settingOf(a));
  if (setting) parts.push(setting);
  const light = lightingOf(a);
  parts.push(lightShort(light));
  parts.push(light.monochrome ? 'photorealistic' : `${light.colours} colours, photorealistic`);
  return parts.join(', ');
}

function pronounOf(a: ImageAnalysis): string {
  const face = people(a).faces[0];
  const gender = face ? confidentGender(face) : null;
  return gender === 'female' ? 'She' : gender === 'male' ? 'He' : 'They';
}

function frameShape(a: ImageAnalysis): string {
  const ratio = a.stats.width / a.stats.height;
  return ratio > 1.15 ? 'landscape' : ratio < 0.87 ? 'portrait-oriented' : 'square';
}

function position(face: FaceFinding): string {
  const cx = face.box[0] + face.box[2] / 2;
  const where = cx < 0.38 ? 'placed left of centre' : cx > 0.62 ? 'placed right of centre' : 'centred';
  const high = face.box[1] + face.box[3] / 2 < 0.3 ? ' high in the frame' : '';
  return `${where}${high}`;
}

const FRAMING_SENTENCE: Record<Framing, string> = {
  'close-up': 'The framing is a tight close-up on the face',
  'head-and-shoulders': 'The framing is a head-and-shoulders shot',
  'half-body': 'The framing is a medium shot from the waist up',
  'three-quarter': 'The framing is a three-quarter shot from the knees up',
  'full-body': 'The framing is a full-length shot from head to toe',
  group: 'The framing is a wide shot that takes in the whole group',
  pair: 'The framing is a shot of both people together',
  scene: 'The framing takes in the whole scene',
};

/** Several sentences for the Detailed caption: subject, clothing colours, setting, framing, light and style. */
export function detailedCaption(a: ImageAnalysis): string {
  const framing = framingOf(a);
  const sentences: string[] = [];
  const subject = capitalise(article(subjectPhrase(a, framing)));
  const face = people(a).faces[0];
  const expression =
    face && framing !== 'group' && framing !== 'pair' && face.emotion?.name === 'neutral' && face.emotion.score >= MIN_EMOTION_SCORE
      ? ' with a calm, neutral expression'
      : '';
  sentences.push(`${subject}${expression}.`);

  const clothing = clothingOf(a, framing);
  if (clothing) {
    const pronoun = pronounOf(a);
    sentences.push(`${pronoun} ${pronoun === 'They' ? 'are' : 'is'} wearing ${article(clothing)}.`);
  }

  const setting = settingOf(a);
  const nearby = setting.objects.length ? `, with ${article(list(setting.objects.slice(0, 4)))} in view` : '';
  if (setting.kind === 'plain')
    sentences.push(`The background is a plain, ${setting.tone === 'mid' ? '' : `${setting.tone} `}${setting.colour} backdrop${nearby}.`);
  else if (setting.kind === 'outdoor') sentences.push(`The setting is outdoors${nearby}.`);
  else if (setting.kind === 'indoor') sentences.push(`The setting is indoors${nearby}.`);
  else {
    const colours = list(a.stats.border.palette.slice(0, 2).map((c) => c.name));
    sentences.push(`The background is ${setting.tone === 'mid' ? 'in ' : `${setting.tone}, in `}${colours} tones${nearby}.`);
  }

  const where = framing === 'scene' || framing === 'group' || !face ? '' : `, the subject ${position(face)}`;
  sentences.push(`${FRAMING_SENTENCE[framing]}${where}, in a ${frameShape(a)} frame.`);

  const light = lightingOf(a);
  const palette = list(a.stats.palette.slice(0, 3).map((c) => c.name));
  const contrast = `${light.contrast} contrast`;
  sentences.push(
    light.monochrome
      ? `The image is black-and-white, ${light.key} with ${contrast}.`
      : `The light is ${light.temperature} and ${light.key}, with ${contrast}; the palette is dominated by ${palette}.`,
  );
  sentences.push(`Photorealistic style, ${light.monochrome ? 'monochrome tones' : `${light.colours} colours`}, sharp detail.`);
  return sentences.join(' ');
}
