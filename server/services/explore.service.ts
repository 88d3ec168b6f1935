import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import {
  EXPLORE_FILTER_NAMES,
  EXPLORE_VOCABULARY,
  pageCountOf,
  type ExploreFilterName,
  type ExploreFilterOptions,
  type ExploreItem,
  type ExplorePage,
  type ExploreFilters,
} from '@common/library.ts';
import { LIMITS } from '@common/product.ts';
import type { Db } from '../db/index.ts';
import { badRequest, conflict, notFound } from '../domain/errors.ts';
import { isUuid } from '@common/ids.ts';
import { keyFromMediaUrl, mediaUrl, type StorageProvider } from '../providers/storage/index.ts';
import { exploreRepository as repo, type ExploreRow } from '../repositories/explore.repository.ts';
import { DECODE_LIMITS } from '../domain/image-budget.ts';
import { withThumbnails } from './media.service.ts';

const IMAGE_TYPES: Record<string, { contentType: string; extension: string }> = {
  jpeg: { contentType: 'image/jpeg', extension: 'jpeg' },
  png: { contentType: 'image/png', extension: 'png' },
  webp: { contentType: 'image/webp', extension: 'webp' },
};
/** At most this many matches are sorted directly rather than found by walking the gallery's order index. */
const FEW_MATCHES = 5_000;
/** Operators add finished images, not raw camera files; anything larger is refused. */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

export function toExploreItem(row: ExploreRow): ExploreItem {
  return {
    id: row.id,
    image_url: row.imageUrl,
    prompt: row.prompt,
    width: row.width,
    height: row.height,
    style: row.style,
    seed: row.seed,
    num_inference_steps: row.numInferenceSteps,
    guidance_scale: row.guidanceScale,
    gender: row.gender,
    ethnicity: row.ethnicity,
    hair_color: row.hairColor,
    is_featured: row.isFeatured,
    created_at: row.createdAt.toISOString(),
  };
}

/** An item's attributes as an operator gives them; each must come from EXPLORE_VOCABULARY. */
export type ExploreAttributes = Partial<Record<ExploreFilterName, string>>;

export interface NewExploreItem extends ExploreAttributes {
  prompt: string;
  seed?: string | null;
  numInferenceSteps?: number | null;
  guidanceScale?: number | null;
  featured?: boolean;
}

function checkAttributes(attributes: ExploreAttributes): void {
  for (const name of EXPLORE_FILTER_NAMES) {
    const value = attributes[name];
    const allowed: readonly string[] = EXPLORE_VOCABULARY[name];
    if (value !== undefined && !allowed.includes(value)) {
      throw badRequest(`${name} must be one of ${allowed.join(', ')} (got "${value}").`);
    }
  }
}

export type ExploreService = ReturnType<typeof createExploreService>;

/** The community gallery (product §2 Explore, §6 read-only for users) and its curation by operators. */
export function createExploreService(deps: { db: Db; storage: StorageProvider }) {
  const { db, storage } = deps;

  /** Stores an image under explore/ and inserts its row; returns the new item. */
  async function store(image: Buffer, item: NewExploreItem, sourceGenerationId: string | null): Promise<ExploreItem> {
    checkAttributes(item);
    const prompt = item.prompt.trim();
    if (!prompt) throw badRequest('A prompt is required.');
    if (image.length > MAX_IMAGE_BYTES) throw badRequest('The image is larger than 20 MB.');
    const meta = await sharp(image, DECODE_LIMITS)
      .metadata()
      .catch(() => null);
    const type = meta?.format ? IMAGE_TYPES[meta.format] : undefined;
    if (!meta?.width || !meta.height || !type) throw badRequest('The file is not a JPEG, PNG or WebP image.');
    const id = randomUUID();
    const key = `explore/${id}.${type.extension}`;
    await storage.put(key, image, type.contentType);
    const row = await repo.insert(db, {
      id,
      imageUrl: mediaUrl(key),
      prompt,
      width: meta.width,
      height: meta.height,
      style: item.style ?? null,
      seed: item.seed ?? null,
      numInferenceSteps: item.numInferenceSteps ?? null,
      guidanceScale: item.guidanceScale ?? null,
      gender: item.gender ?? null,
      ethnicity: item.ethnicity ?? null,
      hairColor: item.hair_color ?? null,
      isFeatured: item.featured ?? false,
      sourceGenerationId,
    });
    return toExploreItem(row);
  }

  return {
    async list({ page, ...filters }: { page: number } & ExploreFilters): Promise<ExplorePage> {
      // The exact count first: it decides whether there is a page to read and how best to read it.
      const total = await repo.count(db, filters);
      const offset = (page - 1) * LIMITS.pageSize;
      const rows = offset < total ? await repo.listPage(db, filters, page, total <= FEW_MATCHES) : [];
      return { items: rows.map(toExploreItem), page, pageSize: LIMITS.pageSize, total, pageCount: pageCountOf(total) };
    },

    filterOptions(): Promise<ExploreFilterOptions> {
      return repo.filterOptions(db);
    },

    async featured(): Promise<ExploreItem[]> {
      return (await repo.featured(db, LIMITS.featuredLimit)).map(toExploreItem);
    },

    /** `explore add`: an image file with its prompt and attributes. */
    add(image: Buffer, item: NewExploreItem): Promise<ExploreItem> {
      return store(image, item, null);
    },

    /**
     * `explore publish`: copies an ACTIVE generation of any user into the gallery, with its settings; the
     * attributes default to those of the character it used. The image is copied so the item outlives a
     * later delete of the generation.
     */
    async publish(generationId: string, overrides: ExploreAttributes & { featured?: boolean } = {}): Promise<ExploreItem> {
      if (!isUuid(generationId)) throw notFound(`No generation ${generationId}.`);
      const found = await repo.generationToPublish(db, generationId);
      if (!found || found.generation.status !== 'ACTIVE') throw notFound(`No active generation ${generationId}.`);
      if (await repo.findBySourceGeneration(db, generationId))
        throw conflict(`Generation ${generationId} is already in the explore gallery.`);
      const key = keyFromMediaUrl(found.generation.imageUrl);
      const image = key ? await storage.read(key) : null;
      if (!image) throw notFound(`The image of generation ${generationId} is missing from storage.`);
      const vocabulary = (name: ExploreFilterName, value: string | null | undefined) =>
        value && (EXPLORE_VOCABULARY[name] as readonly string[]).includes(value) ? value : undefined;
      const g = found.generation;
      return store(
        image,
        {
          prompt: g.prompt,
          seed: g.seed,
          numInferenceSteps: g.numInferenceSteps,
          guidanceScale: g.guidanceScale,
          style: overrides.style ?? vocabulary('style', g.style),
          gender: overrides.gender ?? vocabulary('gender', found.gender),
          hair_color: overrides.hair_color ?? vocabulary('hair_color', found.hairColor),
          ethnicity: overrides.ethnicity,
          featured: overrides.featured,
        },
        generationId,
      );
    },

    async setFeatured(id: string, isFeatured: boolean): Promise<ExploreItem> {
      const row = isUuid(id) ? await repo.setFeatured(db, id, isFeatured) : undefined;
      if (!row) throw notFound(`No explore item ${id}.`);
      return toExploreItem(row);
    },

    /**
     * Removes the item, its stored image and that image's thumbnails (explore images belong to the gallery alone;
     * a thumbnail left behind would keep a removed or erased person's image public until the orphan sweep).
     */
    async remove(id: string): Promise<ExploreItem> {
      const row = isUuid(id) ? await repo.remove(db, id) : undefined;
      if (!row) throw notFound(`No explore item ${id}.`);
      const key = keyFromMediaUrl(row.imageUrl);
      if (key?.startsWith('explore/')) await Promise.all(withThumbnails(key).map((k) => storage.delete(k)));
      return toExploreItem(row);
    },
  };
}
