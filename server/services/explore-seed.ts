import { createHash } from 'node:crypto';
import { EXPLORE_VOCABULARY } from '@common/library.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import type { GenerateInput, ImageGenerator } from '../providers/inference/index.ts';
import { keyFromMediaUrl, mediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import { exploreRepository as repo, type NewExploreRow } from '../repositories/explore.repository.ts';
import { withThumbnails } from './media.service.ts';

/**
 * The starter explore gallery a fresh install shows (product §2 Explore): made by the product itself with its
 * image generator on first start, so nothing needs downloading and every install looks alike.
 *
 * Idempotent: items have fixed ids (a re-run after a crash inserts only what is missing) and a marker
 * object is written when the set is complete, so items an operator later removes do not come back.
 *
 * Versioned: when the engine learns to paint better, SEED_VERSION moves on and an install that completed
 * an earlier version gets its starter items re-rendered in place (same ids, so an operator's featured
 * flags and removals hold). Items an operator added or published, and users' generations, are not touched.
 */
export const SEED_VERSION = 'v2';
/** Versions whose items this one replaces (v1: the grey silhouettes). */
const EARLIER_VERSIONS = ['v1'];
export const SEED_SIZE = 56;
const markerKey = (version: string) => `explore/seed-${version}.complete`;
const imageKey = (id: string) => `explore/seed-${SEED_VERSION}/${id}.jpeg`;
/** Ids were derived from the first version's name and stay so: a new version updates the same rows. */
const ID_NAMESPACE = 'likeness-explore-seed-v1';
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
/** Two scenes per style; {s} is the subject. Each names what the person wears, which the engine paints. */
const SCENES: Record<string, [string, string]> = {
  headshot: [
    'professional headshot of {s}, neutral studio backdrop, soft key light, navy blazer and white shirt, sharp focus',
    'corporate headshot of {s} in a charcoal suit, light gray backdrop, confident smile, linkedin profile photo',
  ],
  portrait: [
    'close-up portrait of {s} in a white linen shirt in a sunlit garden at golden hour, shallow depth of field, 85mm lens',
    'window-light portrait of {s} at home, cream sweater, soft shadows, calm expression, film grain',
  ],
  cinematic: [
    'cinematic still of {s} in a long black coat walking through a neon city street at night in the rain, reflections',
    'cinematic wide shot of {s} in a teal jacket standing on a cliff above the ocean at dusk, wind in the hair',
  ],
  fashion: [
    'high-fashion editorial of {s} wearing a red wool coat on a rooftop at sunset, dramatic pose',
    'fashion lookbook photo of {s} in an emerald silk suit, minimal studio, hard light',
  ],
  editorial: [
    'magazine editorial photo of {s} in a camel turtleneck reading in a cozy cafe, warm window light, film grain',
    'editorial portrait of {s} in a brown tweed blazer and glasses in a wooden library, moody tungsten light',
  ],
  lifestyle: [
    'candid lifestyle photo of {s} in a white t-shirt laughing on a beach at sunrise, ocean waves, natural light',
    'lifestyle photo of {s} in an orange puffer jacket and a beanie hiking in the snowy mountains, bright blue sky',
  ],
  street: [
    'street photography of {s} in a denim jacket at a crowded crosswalk in downtown Tokyo, overcast, 35mm',
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
  const hex = createHash('sha256').update(`${ID_NAMESPACE}:${index}`).digest('hex');
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
    return {
      id: seedId(i),
      prompt,
      gender: g,
      hairColor: hair,
      ethnicity: heritage,
      style: s,
      seed: 1000 + i * 7919,
      featured: i % FEATURED_EVERY === 2,
    };
  });
}

export interface SeedDeps {
  db: Db;
  storage: StorageProvider;
  generator: ImageGenerator;
  logger: Logger;
}

/**
 * Renders and inserts the missing starter items, and re-renders those an earlier version left; returns how
 * many were rendered (0 when this version is complete).
 */
export async function seedExploreGallery(deps: SeedDeps, signal?: AbortSignal): Promise<number> {
  const { db, storage, generator, logger } = deps;
  if (await storage.exists(markerKey(SEED_VERSION))) return 0;
  // After an earlier version completed, a missing item is one an operator removed: it stays removed.
  let earlierCompleted = false;
  for (const version of EARLIER_VERSIONS) earlierCompleted ||= await storage.exists(markerKey(version));
  const started = Date.now();
  let added = 0;
  let replaced = 0;
  const catalogue = seedCatalogue();
  for (const [index, item] of catalogue.entries()) {
    if (signal?.aborted) return added + replaced;
    const existing = await repo.findById(db, item.id);
    if (existing ? existing.imageUrl === mediaUrl(imageKey(item.id)) : earlierCompleted) continue;
    const rendered = await render(generator, item, signal);
    if (!rendered) return added + replaced;
    await storage.put(imageKey(item.id), rendered.image, 'image/jpeg');
    const row = rowOf(item, rendered.seed, new Date(started - index * 60_000));
    if (existing) {
      // The catalogue's fields change with the version; the operator's featured flag and the date stay.
      const { isFeatured: _featured, createdAt: _created, ...fields } = row;
      await repo.update(db, item.id, fields);
      await deleteWithThumbnails(storage, existing.imageUrl);
      replaced += 1;
    } else {
      added += await repo.insertMany(db, [row]);
    }
  }
  await storage.put(
    markerKey(SEED_VERSION),
    Buffer.from(JSON.stringify({ version: SEED_VERSION, items: catalogue.length })),
    'application/json',
  );
  logger.info({ version: SEED_VERSION, added, replaced, ms: Date.now() - started }, 'explore gallery seeded');
  return added + replaced;
}

const RENDER = { numInferenceSteps: 28, guidanceScale: 3.5 };

async function render(generator: ImageGenerator, item: SeedItem, signal?: AbortSignal): Promise<{ image: Buffer; seed: number } | null> {
  const input: GenerateInput = { prompt: item.prompt, imageSize: SIZE, loras: [], seed: item.seed, ...RENDER, outputFormat: 'jpeg' };
  const output = await generator.generate(input, { signal }).catch((err: unknown) => {
    if (signal?.aborted) return null;
    throw err;
  });
  if (!output) return null;
  const image = output.images[0];
  const data = image?.data ?? (image?.url ? Buffer.from(await (await fetch(image.url, { signal })).arrayBuffer()) : null);
  if (!data) throw new Error(`the generator returned no image for explore item ${item.id}`);
  return { image: data, seed: output.seed };
}

function rowOf(item: SeedItem, seed: number, createdAt: Date): NewExploreRow {
  return {
    id: item.id,
    imageUrl: mediaUrl(imageKey(item.id)),
    prompt: item.prompt,
    width: SIZE.width,
    height: SIZE.height,
    style: item.style,
    seed: String(seed),
    ...RENDER,
    gender: item.gender,
    ethnicity: item.ethnicity,
    hairColor: item.hairColor,
    isFeatured: item.featured,
    // Spaced a minute apart, the first item newest, so "newest first" keeps the catalogue's order.
    createdAt,
  };
}

/** An earlier version's image and the thumbnails rendered from it; only starter images are ever deleted here. */
async function deleteWithThumbnails(storage: StorageProvider, imageUrl: string): Promise<void> {
  const key = keyFromMediaUrl(imageUrl);
  if (!key?.startsWith('explore/seed-')) return;
  await Promise.all(withThumbnails(key).map((k) => storage.delete(k)));
}
