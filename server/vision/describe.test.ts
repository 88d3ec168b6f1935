import { describe, expect, it } from 'vitest';
import { detailedCaption, fastCaption, framingOf, personPhrase } from './describe.ts';
import { colourName } from './colours.ts';
import type { FaceFinding, ImageAnalysis } from './types.ts';

function face(over: Partial<FaceFinding> = {}): FaceFinding {
  return {
    box: [0.3, 0.2, 0.4, 0.5],
    score: 0.95,
    age: 34,
    gender: 'female',
    genderScore: 0.9,
    emotion: { name: 'happy', score: 0.8 },
    ...over,
  };
}

function analysis(over: Partial<ImageAnalysis> = {}): ImageAnalysis {
  return {
    stats: {
      width: 800,
      height: 1000,
      brightness: 0.5,
      contrast: 0.2,
      saturation: 0.3,
      warmth: 0.12,
      palette: [
        { name: 'beige', share: 0.4 },
        { name: 'brown', share: 0.3 },
        { name: 'white', share: 0.1 },
      ],
      border: { palette: [{ name: 'white', share: 0.8 }], brightness: 0.9, uniformity: 0.8 },
      top: { palette: [{ name: 'white', share: 0.9 }], brightness: 0.9 },
    },
    faces: [face()],
    bodies: [],
    objects: [],
    clothing: null,
    hair: null,
    timings: { decodeMs: 1, detectMs: 1, totalMs: 2 },
    ...over,
  };
}

describe('captions from an analysis', () => {
  it('names age decade, gender and a smile', () => {
    expect(personPhrase(face())).toBe('a smiling woman in her thirties');
    expect(personPhrase(face({ gender: 'male', age: 47, emotion: { name: 'neutral', score: 0.9 } }))).toBe('a man in his forties');
    expect(personPhrase(face({ genderScore: 0.1, age: 23, emotion: null }))).toBe('a person in their twenties');
    expect(personPhrase(face({ age: 16, emotion: null }))).toBe('a teenage girl');
    expect(personPhrase(face({ age: 74, gender: 'male', emotion: null }))).toBe('an elderly man');
  });

  it('leaves out an unsure expression instead of guessing', () => {
    expect(personPhrase(face({ emotion: { name: 'sad', score: 0.5 } }))).toBe('a woman in her thirties');
    expect(personPhrase(face({ emotion: { name: 'sad', score: 0.8 } }))).toBe('a sad-looking woman in her thirties');
  });

  it('frames by face size and visible body parts', () => {
    expect(framingOf(analysis())).toBe('close-up');
    const small = face({ box: [0.45, 0.1, 0.1, 0.1] });
    const body = (parts: string[]) => [{ box: [0.3, 0.05, 0.4, 0.9] as [number, number, number, number], score: 0.8, visibleParts: parts }];
    expect(framingOf(analysis({ faces: [small], bodies: body(['nose', 'leftShoulder']) }))).toBe('head-and-shoulders');
    expect(framingOf(analysis({ faces: [small], bodies: body(['leftShoulder', 'leftHip']) }))).toBe('half-body');
    expect(framingOf(analysis({ faces: [small], bodies: body(['leftHip', 'rightKnee']) }))).toBe('three-quarter');
    expect(framingOf(analysis({ faces: [small], bodies: body(['leftKnee', 'leftAnkle']) }))).toBe('full-body');
    expect(framingOf(analysis({ faces: [small, small, small] }))).toBe('group');
    expect(framingOf(analysis({ faces: [] }))).toBe('scene');
  });

  it('writes the Fast sentence: framing, subject, hair, clothing, setting, light', () => {
    const a = analysis({
      faces: [face({ box: [0.4, 0.1, 0.2, 0.2] })],
      bodies: [{ box: [0.2, 0.05, 0.6, 0.9], score: 0.8, visibleParts: ['leftShoulder', 'leftHip'] }],
      clothing: [{ name: 'navy', share: 0.7 }],
      hair: { name: 'beige', share: 0.8 },
    });
    expect(fastCaption(a)).toBe(
      'a half-body portrait photo of a smiling woman in her thirties with blonde hair, wearing a navy top, plain white background, warm light, natural colours, photorealistic',
    );
  });

  it('writes the Detailed text in several sentences covering subject, clothing, setting, framing, light and style', () => {
    const a = analysis({
      faces: [face({ box: [0.4, 0.1, 0.2, 0.2] })],
      bodies: [{ box: [0.2, 0.05, 0.6, 0.9], score: 0.8, visibleParts: ['leftShoulder', 'leftHip'] }],
      clothing: [
        { name: 'red', share: 0.6 },
        { name: 'white', share: 0.3 },
      ],
      objects: [{ label: 'couch', score: 0.7, box: [0, 0.5, 0.3, 0.3] }],
      stats: { ...analysis().stats, border: { palette: [{ name: 'brown', share: 0.4 }], brightness: 0.5, uniformity: 0.4 } },
    });
    expect(detailedCaption(a)).toBe(
      'A half-body portrait photo of a smiling woman in her thirties. She is wearing a red and white top. ' +
        'The setting is indoors, with a couch in view. The framing is a medium shot from the waist up, the subject centred high in the frame, in a portrait-oriented frame. ' +
        'The light is warm and even, with moderate contrast; the palette is dominated by beige, brown and white. Photorealistic style, natural colours, sharp detail.',
    );
  });

  it('reads a bright blue top band as sky, but not under a blue colour cast', () => {
    const top = { palette: [{ name: 'light blue', share: 0.8 }], brightness: 0.75 };
    const border = { palette: [{ name: 'light blue', share: 0.4 }], brightness: 0.6, uniformity: 0.4 };
    const sky = analysis({ stats: { ...analysis().stats, top, border, warmth: 0 } });
    expect(fastCaption(sky)).toContain(', outdoors,');
    const cast = analysis({ stats: { ...analysis().stats, top, border, warmth: -0.15 } });
    expect(fastCaption(cast)).not.toContain('outdoors');
  });

  it('does not call the backdrop colour above a head its hair', () => {
    const a = analysis({ hair: { name: 'white', share: 0.9 } });
    expect(fastCaption(a)).not.toContain('hair');
  });
});

describe('colour names', () => {
  it.each([
    [[10, 10, 12], 'black'],
    [[250, 250, 250], 'white'],
    [[128, 128, 130], 'grey'],
    [[200, 30, 30], 'red'],
    [[20, 30, 90], 'navy'],
    [[60, 120, 220], 'blue'],
    [[120, 70, 30], 'brown'],
    [[230, 215, 170], 'beige'],
    [[40, 160, 60], 'green'],
    [[245, 160, 190], 'pink'],
  ])('%j is %s', (rgb, name) => {
    expect(colourName(rgb[0], rgb[1], rgb[2])).toBe(name);
  });
});
