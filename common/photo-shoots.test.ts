import { describe, expect, it } from 'vitest';
import catalogueJson from '../server/catalogue/photo-packs.json' with { type: 'json' };
import {
  archiveEntryName,
  catalogueSchema,
  describePrompt,
  fillPrompt,
  PACK_CATEGORIES,
  shootArchiveName,
  shootCost,
  shootProgress,
  SHOOT_TEXTS,
  type ShootPhotoView,
} from './photo-shoots.ts';

describe('prompt templating', () => {
  it('fills the trigger word, gender and hair colour from the training form', () => {
    const t = 'linkedin profile photo of {subject} with {hair}, navy blazer, {possessive} confident smile; {pronoun} looks at the camera';
    expect(fillPrompt(t, { triggerWord: 'danap', gender: 'female', hairColor: 'brown' })).toBe(
      'linkedin profile photo of danap, a woman with brown hair, navy blazer, her confident smile; she looks at the camera',
    );
    expect(fillPrompt(t, { triggerWord: 'theo', gender: 'male', hairColor: 'gray' })).toBe(
      'linkedin profile photo of theo, a man with gray hair, navy blazer, his confident smile; he looks at the camera',
    );
    expect(fillPrompt('{trigger} {person}, {hair}', { triggerWord: null, gender: 'other', hairColor: 'other' })).toBe(
      'TOK person, natural hair',
    );
  });

  it('describes a template in words with the character as "the person"', () => {
    expect(describePrompt('studio portrait of {subject} with {hair}, 85mm lens')).toBe('Studio portrait of the person, 85mm lens');
    expect(describePrompt('{subject} brushing {hair} back')).toBe('The person brushing their hair back');
  });
});

describe('cost', () => {
  it('is N × the generation cost', () => {
    expect(shootCost(10)).toBe(100);
    expect(shootCost(20)).toBe(200);
  });
});

describe('the catalogue file', () => {
  const catalogue = catalogueSchema.parse(catalogueJson);
  it('holds at least 12 packs of 8 to 20 photographer-brief prompts, every named category, each naming the character', () => {
    expect(catalogue.packs.length).toBeGreaterThanOrEqual(12);
    expect(new Set(catalogue.packs.map((p) => p.category))).toEqual(new Set(PACK_CATEGORIES));
    for (const pack of catalogue.packs) {
      for (const prompt of pack.prompts) {
        expect(prompt).toMatch(/\{subject\}/);
        // A photographer's brief: a lens and the light.
        expect(prompt, prompt).toMatch(/\d+mm|lens/);
        expect(prompt, prompt).toMatch(/light|sun|lamp|glow|neon|dusk|dawn|golden hour|shade|overcast/);
      }
    }
  });

  it('refuses a pack with too few prompts, an unknown placeholder or a prompt without the character', () => {
    const pack = catalogue.packs[0];
    expect(catalogueSchema.safeParse({ version: 1, packs: [{ ...pack, prompts: pack.prompts.slice(0, 7) }] }).success).toBe(false);
    expect(
      catalogueSchema.safeParse({ version: 1, packs: [{ ...pack, prompts: [...pack.prompts.slice(1), 'photo of {subject} in {city}'] }] })
        .success,
    ).toBe(false);
    expect(
      catalogueSchema.safeParse({ version: 1, packs: [{ ...pack, prompts: [...pack.prompts.slice(1), 'a photo of a beach'] }] }).success,
    ).toBe(false);
  });
});

describe('progress words', () => {
  const photo = (status: ShootPhotoView['status'], startedAt?: number, finishedAt?: number) => ({
    status,
    started_at: startedAt === undefined ? null : new Date(startedAt).toISOString(),
    finished_at: finishedAt === undefined ? null : new Date(finishedAt).toISOString(),
  });

  it('counts ready and failed photos and estimates minutes from measured photo times', () => {
    const photos = [
      photo('SUCCEEDED', 0, 60_000),
      photo('SUCCEEDED', 0, 120_000),
      photo('FAILED'),
      photo('RUNNING', 0),
      photo('RUNNING', 0),
      ...Array.from({ length: 5 }, () => photo('QUEUED')),
    ];
    // 7 left at 90 s each over 2 running: 5.25 min → about 6.
    expect(shootProgress(photos)).toEqual({ total: 10, ready: 2, deleted: 0, failed: 1, cancelled: 0, left: 7, msLeft: 315_000 });
    expect(SHOOT_TEXTS.timeLeft(315_000)).toBe('about 6 min left');
    // A landed photo deleted from My Generations since is not ready; its time still counts for the estimate.
    const [landed, ...rest] = photos;
    expect(shootProgress([{ ...landed, deleted: true }, ...rest])).toEqual({
      total: 10,
      ready: 1,
      deleted: 1,
      failed: 1,
      cancelled: 0,
      left: 7,
      msLeft: 315_000,
    });
  });

  it('uses the recent average before the first photo lands, and says nothing without a measure', () => {
    expect(shootProgress([photo('QUEUED'), photo('QUEUED')], 20_000).msLeft).toBe(40_000);
    expect(shootProgress([photo('QUEUED')]).msLeft).toBeNull();
    expect(shootProgress([photo('SUCCEEDED', 0, 1000)]).msLeft).toBeNull();
  });

  it('says seconds under a minute, so the estimate moves as fast photos land (not "about 1 min left" throughout)', () => {
    // Twelve 2.5 s photos, four at a time: each landing shortens the estimate in seconds.
    const shoot = (landed: number) => [
      ...Array.from({ length: landed }, () => photo('SUCCEEDED', 0, 2500)),
      ...Array.from({ length: Math.min(4, 12 - landed) }, () => photo('RUNNING', 0)),
      ...Array.from({ length: Math.max(0, 12 - landed - 4) }, () => photo('QUEUED')),
    ];
    const words = [1, 4, 8, 11].map((landed) => SHOOT_TEXTS.timeLeft(shootProgress(shoot(landed)).msLeft!));
    expect(words).toEqual(['about 7 s left', 'about 5 s left', 'about 3 s left', 'about 3 s left']);
    expect(SHOOT_TEXTS.timeLeft(59_001)).toBe('about 60 s left');
    expect(SHOOT_TEXTS.timeLeft(60_000)).toBe('about 1 min left');
    expect(SHOOT_TEXTS.timeLeft(200)).toBe('about 1 s left');
  });
});

describe('archive names', () => {
  it('is <character>-<pack>.zip with photos 01.jpg …', () => {
    expect(shootArchiveName('Dana', 'LinkedIn Profile')).toBe('dana-linkedin-profile.zip');
    expect(shootArchiveName('José Ñ', 'Studio Black & White')).toBe('jose-n-studio-black-white.zip');
    expect(shootArchiveName('Renée', 'Travel')).toBe('renee-travel.zip');
    expect(shootArchiveName('Мария', 'Travel')).toBe('мария-travel.zip');
    expect(archiveEntryName(0, 10, 'jpg')).toBe('01.jpg');
    expect(archiveEntryName(99, 120, 'png')).toBe('100.png');
    expect(archiveEntryName(4, 120, 'jpg')).toBe('005.jpg');
  });
});

describe('SHOOT_TEXTS.cancelQuestion', () => {
  it('names the photos not yet taken and their refund, and what still lands', () => {
    expect(SHOOT_TEXTS.cancelQuestion(7, 1)).toBe(
      'Cancel this shoot? The 7 photos not yet taken are refunded (70 credits). The photo being taken now still lands.',
    );
    expect(SHOOT_TEXTS.cancelQuestion(1, 2)).toBe(
      'Cancel this shoot? The 1 photo not yet taken is refunded (10 credits). The 2 photos being taken now still land.',
    );
    expect(SHOOT_TEXTS.cancelQuestion(0, 3)).toBe(
      'Cancel this shoot? Every photo has started already, so nothing is refunded. The 3 photos being taken now still land.',
    );
    expect(SHOOT_TEXTS.cancelQuestion(4, 0)).toBe('Cancel this shoot? The 4 photos not yet taken are refunded (40 credits).');
  });
});
