import { LIKENESS_TEXTS } from '@common/likeness';
import { missesLikeness, type GalleryItem } from '../lib/gallery-item';

/** Under a single generation that misses its character: try another seed (charged as usual). */
export function LikenessHint({ item }: { item: Pick<GalleryItem, 'likenessVerdict' | 'fromShoot' | 'characterName'> }) {
  if (!item.characterName || !missesLikeness(item)) return null;
  return (
    <p
      role="note"
      data-testid="likeness-hint"
      className="rounded-md border border-warning-border bg-warning-soft px-3 py-2 text-sm text-warning"
    >
      {LIKENESS_TEXTS.hint(item.characterName)}
    </p>
  );
}

/**
 * Where the likeness badge would be, for an image of a character without a reference face: why there is none
 * (issue 54 item 15).
 */
export function NoLikenessCheck({ item }: { item: Pick<GalleryItem, 'likenessVerdict' | 'photosDiffer'> }) {
  if (item.likenessVerdict || !item.photosDiffer) return null;
  return (
    <span data-testid="no-likeness-check" className="text-xs font-normal whitespace-normal text-fg-muted">
      {LIKENESS_TEXTS.noReference}
    </span>
  );
}
