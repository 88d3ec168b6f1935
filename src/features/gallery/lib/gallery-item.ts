import { remixSettingsOf, type RemixSettings } from '@common/create-image-state';
import type { GenerationSource, GenerationView } from '@common/generation';
import type { ExploreItem } from '@common/library';
import type { LikenessVerdict } from '@common/likeness';

/**
 * What a card and the viewer show, whichever gallery it comes from: a saved generation (My Generations,
 * Favorites) or an explore item. `source` decides the download address and what actions exist.
 */
export interface GalleryItem {
  id: string;
  source: 'generation' | 'explore';
  imageUrl: string;
  prompt: string;
  width: number;
  height: number;
  createdAt: string;
  seed: string | null;
  steps: number | null;
  guidance: number | null;
  characterName: string | null;
  isFavorite: boolean;
  isFeatured: boolean;
  remix: RemixSettings;
  /** The generation this one was upscaled or edited from; null otherwise. */
  origin: GenerationSource | null;
  /** Likeness to its character (common/likeness.ts); null when not scored. */
  likeness: number | null;
  likenessVerdict: LikenessVerdict | null;
  /** Its character has no reference face (its training photos showed different people): never checked. */
  photosDiffer: boolean;
  /** Made in a photo shoot (which re-takes its misses itself) rather than as a single generation. */
  fromShoot: boolean;
  /** The shoot it was made in, and that shoot's name ('LinkedIn Profile') once known. */
  shootId: string | null;
  shootName?: string | null;
}

/** A single generation that misses its character: the viewer suggests another seed. */
export const missesLikeness = (item: Pick<GalleryItem, 'likenessVerdict' | 'fromShoot'>) =>
  !item.fromShoot && (item.likenessVerdict === 'weak' || item.likenessVerdict === 'no_face');

/** A tile's mark for an image of a character that does not look like them (weak, or no face found). */
export const weakLikeness = (item: Pick<GalleryItem, 'likenessVerdict'>) =>
  item.likenessVerdict === 'weak' || item.likenessVerdict === 'no_face';

/** Where a shoot's photo links: its shoot's page. */
export const shootPath = (shootId: string) => `/app/photo-shoots/${encodeURIComponent(shootId)}`;

/** Upscaled images carry the 'HD' badge. */
export const isHd = (item: Pick<GalleryItem, 'origin'>) => item.origin?.kind === 'upscale';

export function fromGeneration(g: GenerationView): GalleryItem {
  return {
    id: g.id,
    source: 'generation',
    imageUrl: g.result.images[0]?.url ?? '',
    prompt: g.params.prompt,
    width: g.params.image_size.width,
    height: g.params.image_size.height,
    createdAt: g.timestamp,
    seed: g.params.seed,
    steps: g.params.num_inference_steps,
    guidance: g.params.guidance_scale,
    characterName: g.lora_trainings?.character_name ?? null,
    isFavorite: g.isFavorited,
    isFeatured: false,
    remix: remixSettingsOf(g),
    origin: g.source ?? null,
    likeness: g.likeness ?? null,
    likenessVerdict: g.likeness_verdict ?? null,
    photosDiffer: !!g.lora_trainings?.photos_differ,
    fromShoot: !!g.shoot_id,
    shootId: g.shoot_id ?? null,
  };
}

export function fromExplore(e: ExploreItem): GalleryItem {
  return {
    id: e.id,
    source: 'explore',
    imageUrl: e.image_url,
    prompt: e.prompt,
    width: e.width,
    height: e.height,
    createdAt: e.created_at,
    seed: e.seed,
    steps: e.num_inference_steps,
    guidance: e.guidance_scale,
    characterName: null,
    isFavorite: false,
    isFeatured: e.is_featured,
    // The seed is never carried: a remix should make a new image (product §2).
    remix: { prompt: e.prompt, width: e.width, height: e.height, steps: e.num_inference_steps, guidance: e.guidance_scale, lora: null },
    origin: null,
    likeness: null,
    likenessVerdict: null,
    photosDiffer: false,
    fromShoot: false,
    shootId: null,
  };
}

/** The image's absolute address, for 'Copy image URL' and 'Share'. */
export const absoluteImageUrl = (item: GalleryItem) => new URL(item.imageUrl, window.location.origin).href;
