import { describe, expect, it } from 'vitest';
import { fillPrompt } from '@common/photo-shoots.ts';
import catalogue from '../../catalogue/photo-packs.json' with { type: 'json' };
import { SAMPLES_PER_PACK } from '../../services/packs.service.ts';
import { readPrompt } from './builtin-scene.ts';
import {
  ACCESSORY_WORDS,
  AGE_WORDS,
  COLOUR_WORDS,
  FRAMING_WORDS,
  GARMENT_WORDS,
  GENDER_WORDS,
  HAIR_COLOUR_WORDS,
  HAIR_STYLE_WORDS,
  SCENE_WORDS,
  WEATHER_WORDS,
} from './builtin-words.ts';

const person = (prompt: string) => {
  const reading = readPrompt(prompt).person;
  expect(reading, prompt).not.toBeNull();
  return reading!;
};

describe('reading a prompt', () => {
  it("reads the issue's example: a woman, a red coat, walking, a snowy city street at night", () => {
    const reading = readPrompt('a woman in a red coat walking through a snowy city street at night');
    expect(reading).toMatchObject({ kind: 'city', night: true, weather: 'snow' });
    expect(reading.person).toMatchObject({
      gender: 'feminine',
      garments: { outer: { kind: 'coat', colour: '#c8202a' } },
      framing: 'full',
      walking: true,
    });
  });

  it('gives each colour to the thing it is written before, and the rest to the scene', () => {
    const p = person('headshot of a man with short black hair in a navy blazer and a white shirt, red scarf, teal backdrop');
    expect(p.hairColour).toBe('#1c1512');
    expect(p.hairStyle).toBe('short');
    expect(p.garments).toEqual({ outer: { kind: 'blazer', colour: '#1f2b4d' }, top: { kind: 'shirt', colour: '#f3f1ec' } });
    expect(p.accessories).toEqual([{ kind: 'scarf', colour: '#c8202a' }]);
    // Only "teal" is left for the scene: its palette leans teal, not red or navy.
    expect(readPrompt('headshot, teal backdrop').palette).toEqual(
      readPrompt('headshot of a man with short black hair in a navy blazer and a white shirt, red scarf, teal backdrop').palette,
    );
  });

  it('reads fabrics and cuts between a colour and a garment ("a red wool coat", "a black leather jacket")', () => {
    expect(person('a red wool coat').garments.outer).toEqual({ kind: 'coat', colour: '#c8202a' });
    expect(person('a man in a black leather jacket').garments.outer).toEqual({ kind: 'leather-jacket', colour: '#1a1b20' });
    expect(person('an emerald silk dress').garments.dress).toEqual({ kind: 'dress', colour: '#1f7a5a' });
    expect(person('a woman in a coat').garments.outer).toEqual({ kind: 'coat', colour: null });
  });

  it('reads hair colour only next to hair, and hair-only words alone', () => {
    expect(person('a woman with curly red hair in a green dress')).toMatchObject({
      hairColour: '#a7441d',
      hairStyle: 'curly',
      garments: { dress: { colour: '#2f8a4a' } },
    });
    expect(person('a red-haired man').hairColour).toBe('#a7441d');
    expect(person('a blonde woman').hairColour).toBe('#d8b36a');
    expect(person('a woman in a red dress').hairColour).toBeNull();
    expect(person('long silver gray hair').hairColour).toBe('#a9a7a3');
    expect(person('a man with a white beard')).toMatchObject({ beard: true, hairColour: '#ebe7df' });
  });

  it('reads gender, age, skin, accessories, framing and walking', () => {
    expect(person('an elderly man').age).toBe('elderly');
    expect(person('a young woman').age).toBe('young');
    expect(person('a little girl').age).toBe('child');
    expect(person('a man and his dog').gender).toBe('masculine');
    expect(person('a portrait of a person').gender).toBeNull();
    expect(person('an African woman').skin).toEqual([5, 7]);
    expect(person('a Scandinavian man').skin).toEqual([0, 1]);
    expect(person('a woman in a white shirt').skin).toBeNull();
    expect(person('a man with glasses and a hat').accessories.map((a) => a.kind)).toEqual(['glasses', 'hat']);
    expect(person('a woman in sunglasses').accessories.map((a) => a.kind)).toEqual(['sunglasses']);
    expect(person('full-body photo of a man standing').framing).toBe('full');
    expect(person('half-body portrait of a woman').framing).toBe('half');
    expect(person('close-up of a man walking').framing).toBe('head');
    expect(person('a man walking').framing).toBe('full');
    expect(person('a man walking').framingSaid).toBe(false);
    expect(person('a full-body shot of a man').framingSaid).toBe(true);
  });

  it('reads weather and time, and a place named with them', () => {
    expect(readPrompt('a rainy street at night')).toMatchObject({ kind: 'city', weather: 'rain', night: true });
    expect(readPrompt('misty forest at dawn')).toMatchObject({ kind: 'forest', weather: 'fog', golden: true });
    expect(readPrompt('snowy mountains under a blue sky')).toMatchObject({ kind: 'mountain', weather: 'snow', person: null });
    expect(readPrompt('a snowy field')).toMatchObject({ kind: 'forest', weather: 'snow' });
    expect(readPrompt('a starry sky over the desert')).toMatchObject({ kind: 'desert', night: true });
    expect(readPrompt('a galaxy in space').kind).toBe('night');
    expect(readPrompt('reading in a cozy library').interior).toBe('shelves');
    expect(readPrompt('a woman in a cafe')).toMatchObject({ kind: 'interior', interior: 'cafe' });
  });

  it('reads two people, each with their own words, when the prompt names or counts two', () => {
    const wedding = readPrompt('a woman in a red dress and her husband in a navy suit at a wedding');
    expect(wedding.person).toMatchObject({ gender: 'feminine', garments: { dress: { kind: 'dress', colour: '#c8202a' } } });
    expect(wedding.companion).toMatchObject({ gender: 'masculine', garments: { outer: { kind: 'suit', colour: '#1f2b4d' } } });
    const twins = readPrompt('two women in yellow raincoats on a rainy street');
    expect([twins.person?.gender, twins.companion?.gender]).toEqual(['feminine', 'feminine']);
    expect(twins.companion?.garments).toEqual(twins.person?.garments);
    expect(readPrompt('a couple walking in a park').companion).toMatchObject({ gender: null, walking: true, framing: 'full' });
    expect(readPrompt('a man and a woman on a beach').companion?.gender).toBe('feminine');
    expect(readPrompt('portrait of a woman and her dog').companion).toBeNull();
    expect(readPrompt('a man in a navy suit').companion).toBeNull();
  });

  it('puts nobody in a landscape, somebody in a portrait or studio', () => {
    expect(readPrompt('a lighthouse on a cliff').person).toBeNull();
    expect(readPrompt('professional headshot, grey backdrop').person).not.toBeNull();
    expect(readPrompt('an astronaut').person).not.toBeNull();
  });
});

/**
 * Every word in the tables reads as its entry, so a new word that another entry shadows (or that the
 * matching cannot see) fails here, named.
 */
describe('a role naming a kind of photo', () => {
  it("is not a second person: 'actor headshot of a woman' shows one woman, and every pack cover one person", () => {
    for (const prompt of ['actor headshot of a woman with brown hair, gray t-shirt', 'commercial actor headshot of a woman, blue shirt']) {
      const reading = readPrompt(prompt);
      expect(reading.person?.gender).toBe('feminine');
      expect(reading.companion).toBeNull();
    }
    expect(readPrompt('model portrait of a man').person?.gender).toBe('masculine');
    // Still two when two are named, and still a person when the role is the subject.
    expect(readPrompt('an actor and a woman on a stage').companion).not.toBeNull();
    expect(readPrompt('portrait of an actor on stage').person?.gender).toBe('masculine');
    for (const [index, pack] of catalogue.packs.entries())
      for (const [i, template] of pack.prompts.slice(0, SAMPLES_PER_PACK).entries()) {
        const reading = readPrompt(
          fillPrompt(template, { triggerWord: 'ada', gender: (index + i) % 2 ? 'female' : 'male', hairColor: 'brown' }),
        );
        expect(reading.person, `${pack.id} #${i}`).not.toBeNull();
        expect(reading.companion, `${pack.id} #${i}`).toBeNull();
      }
  });
});

describe('the word tables', () => {
  function misread<T, V>(table: { words: readonly string[]; value: T }[], read: (word: string) => V, expected: (value: T) => V): string[] {
    return table.flatMap((e) =>
      e.words.filter((w) => JSON.stringify(read(w)) !== JSON.stringify(expected(e.value))).map((w) => `${w} → ${JSON.stringify(read(w))}`),
    );
  }

  it('reads every garment, colour, hair colour and hair style', () => {
    expect(
      misread(
        GARMENT_WORDS,
        (w) => person(`a person wearing a ${w}`).garments,
        (v) => ({ [v.layer]: { kind: v.kind, colour: null } }),
      ),
    ).toEqual([]);
    expect(
      misread(
        COLOUR_WORDS,
        (w) => person(`a person in a ${w} coat`).garments.outer?.colour,
        (v) => v,
      ),
    ).toEqual([]);
    expect(
      misread(
        HAIR_COLOUR_WORDS,
        (w) => person(`a person with ${w} hair`).hairColour,
        (v) => v,
      ),
    ).toEqual([]);
    expect(
      misread(
        HAIR_STYLE_WORDS,
        (w) => person(`a person, ${w}`).hairStyle,
        (v) => v,
      ),
    ).toEqual([]);
  });

  it('reads every accessory, gender, age and framing', () => {
    expect(
      misread(
        ACCESSORY_WORDS,
        (w) => person(`a person with a ${w}`).accessories.map((a) => a.kind),
        (v) => [v],
      ),
    ).toEqual([]);
    expect(
      misread(
        GENDER_WORDS,
        (w) => person(`portrait, ${w}`).gender,
        (v) => v,
      ),
    ).toEqual([]);
    expect(
      misread(
        AGE_WORDS,
        (w) => person(`portrait, ${w}`).age,
        (v) => v,
      ),
    ).toEqual([]);
    expect(
      misread(
        FRAMING_WORDS,
        (w) => person(`a person, ${w}`).framing,
        (v) => v,
      ),
    ).toEqual([]);
  });

  it('reads every weather and place', () => {
    expect(
      misread(
        WEATHER_WORDS,
        (w) => readPrompt(`a field, ${w}`).weather,
        (v) => v,
      ),
    ).toEqual([]);
    const places = SCENE_WORDS.filter((e) => e.value !== 'night');
    expect(
      misread(
        places,
        (w) => readPrompt(`a view of the ${w}`).kind,
        (v) => v,
      ),
    ).toEqual([]);
  });
});
