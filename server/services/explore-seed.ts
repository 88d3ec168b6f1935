import { createHash } from 'node:crypto';
import { EXPLORE_VOCABULARY } from '@common/library.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import type { GenerateInput, ImageGenerator } from '../providers/inference/index.ts';
import { mediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import { exploreRepository as repo, type NewExploreRow } from '../repositories/explore.repository.ts';

/**
 * The starter explore gallery a fresh install shows (spec §2 Explore): made by the product itself with its
 * image generator on first start, so nothing needs downloading and every install looks alike.
 *
 * Idempotent: items have fixed ids (a re-run after a crash inserts only what is missing) and a marker
 * object is written when the set is complete, so items an operator later removes do not come back.
 */
export const SEED_VERSION = 'v1';
export const SEED_SIZE = 56;
const MARKER_KEY = `explore/seed-${SEED_VERSION}.complete`;
/** Every 8th item (offset 2) is featured: 7 items, each of a different style. */
const FEATURED_EVERY = 8;
const SIZE = { width: 768, height: 960 };

const SUBJECT: Record<string, string> = { female: 'woman', male: 'man', other: 'person' };
const HERITAGE: Record<string, string> = {
  african: 'African',
  'east-asian': 'East Asian',
  hispanic: 'Hispanic',
  'middle-eastern': 'Middle Eastern',
  'south-asian': 'South Asian',
  white: 'Scandinavian',
  mixed: 'mixed-heritage',
};
const HAIR: Record<string, string> = {
  black: 'long black hair',
  blonde: 'wavy blonde hair',
  brown: 'short brown hair',
  gray: 'silver gray hair',
  red: 'curly red hair',
  white: 'cropped white hair',
  other: 'a shaved head',
};
/** Two scenes per style; {s} is the subject. */
const SCENES: Record<string, [string, string]> = {
  headshot: [
    'professional headshot of {s}, neutral studio backdrop, soft key light, navy blazer, sharp focus',
    'corporate headshot of {s}, light gray backdrop, confident smile, linkedin profile photo',
  ],
  portrait: [
    'close-up portrait of {s} in a sunlit garden at golden hour, shallow depth of field, 85mm lens',
    'window-light portrait of {s}, soft shadows, cream sweater, calm expression, film grain',
  ],
  cinematic: [
    'cinematic still of {s} walking through a neon city street at night, rain reflections, anamorphic flare',
    'cinematic wide shot of {s} standing on a cliff above the ocean at dusk, wind in the hair, teal and orange',
  ],
  fashion: [
    'high-fashion editorial of {s} wearing a red wool coat on a rooftop at sunset, dramatic pose',
    'fashion lookbook photo of {s} in an emerald silk suit, minimal studio, hard light',
  ],
  editorial: [
    'magazine editorial photo of {s} reading in a cozy cafe, warm window light, coffee cup, film grain',
    'editorial portrait of {s} in a wooden library, leather armchair, moody tungsten light',
  ],
  lifestyle: [
    'candid lifestyle photo of {s} laughing on a beach at sunrise, ocean waves, natural light',
    'lifestyle photo of {s} hiking in the mountains, snow peaks behind, bright blue sky',
  ],
  street: [
    'street photography of {s} at a crowded crosswalk in downtown Tokyo, overcast, 35mm',
    'street style photo of {s} in a Paris alley, morning light, black leather jacket',
  ],
};

export interface SeedItem {
  id: string;
  prompt: string;
  gender: string;
  hairColor: string;
  ethnicity: string;
  style: string;
  seed: number;
  featured: boolean;
}

/** A stable uuid per item index, so a re-run recognises what is already there. */
function seedId(index: number): string {
  const hex = createHash('sha256').update(`likeness-explore-seed-${SEED_VERSION}:${index}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The catalogue: each attribute cycles at a different rate, so every value appears and combinations vary. */
export function seedCatalogue(): SeedItem[] {
  const { gender, hair_color, ethnicity, style } = EXPLORE_VOCABULARY;
  return Array.from({ length: SEED_SIZE }, (_, i) => {
    const g = gender[i % gender.length];
    const hair = hair_color[(i * 3 + 1) % hair_color.length];
    const heritage = ethnicity[(i * 2 + Math.floor(i / 7)) % ethnicity.length];
    const s = style[i % style.length];
    const people = `${HERITAGE[heritage]} ${SUBJECT[g]}`;
    const subject = `${/^[AEIOU]/.test(people) ? 'an' : 'a'} ${people} with ${HAIR[hair]}`;
    const prompt = SCENES[s][Math.floor(i / style.length) % 2].replace('{s}', subject);
    return { id: seedId(i), prompt, gender: g, hairColor: hair, ethnicity: heritage, style: s, seed: 1000 + i * 7919, featured: i % FEATURED_EVERY === 2 };
  });
}

export interface SeedDeps {
  db: Db;
  storage: StorageProvider;
  generator: ImageGenerator;
  logger: Logger;
}

/** Renders and inserts the missing starter items; returns how many were added (0 when already seeded). */
export async function seedExploreGallery(deps: SeedDeps, signal?: AbortSignal): Promise<number> {
  const { db, storage, generator, logger } = deps;
  if (await storage.exists(MARKER_KEY)) return 0;
  const started = Date.now();
  let added = 0;
  const catalogue = seedCatalogue();
  for (const [index, item] of catalogue.entries()) {
    if (signal?.aborted) return added;
    if (await repo.findById(db, item.id)) continue;
    const input: GenerateInput = {
      prompt: item.prompt,
      imageSize: SIZE,
      loras: [],
      seed: item.seed,
      numInferenceSteps: 28,
      guidanceScale: 3.5,
      outputFormat: 'jpeg',
    };
    const output = await generator.generate(input, { signal }).catch((err: unknown) => {
      if (signal?.aborted) return null;
      throw err;
    });
    if (!output) return added;
    const image = output.images[0];
    const data = image?.data ?? (image?.url ? Buffer.from(await (await fetch(image.url, { signal })).arrayBuffer()) : null);
    if (!data) throw new Error(`the generator returned no image for explore item ${index}`);
    const key = `explore/seed-${SEED_VERSION}/${item.id}.jpeg`;
    await storage.put(key, data, 'image/jpeg');
    const row: NewExploreRow = {
      id: item.id,
      imageUrl: mediaUrl(key),
      prompt: item.prompt,
      width: SIZE.width,
      height: SIZE.height,
      style: item.style,
      seed: String(output.seed),
      numInferenceSteps: input.numInferenceSteps,
      guidanceScale: input.guidanceScale,
      gender: item.gender,
      ethnicity: item.ethnicity,
      hairColor: item.hairColor,
      isFeatured: item.featured,
      // Spaced a minute apart, the first item newest, so "newest first" keeps the catalogue's order.
      createdAt: new Date(started - index * 60_000),
    };
    added += await repo.insertMany(db, [row]);
  }
  await storage.put(MARKER_KEY, Buffer.from(JSON.stringify({ version: SEED_VERSION, items: catalogue.length })), 'application/json');
  logger.info({ added, ms: Date.now() - started }, 'explore gallery seeded');
  return added;
}
