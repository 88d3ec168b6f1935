import { Heart } from 'lucide-react';
import type { GenerationView } from '@common/generation';
import { LikenessBadge } from '@/components/likeness-badge';
import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';
import { useGeneration } from '../api';
import { useGalleryActions, type GalleryActions } from '../hooks/use-gallery-actions';
import { fromGeneration, type GalleryItem } from '../lib/gallery-item';
import { FinishActions, RegenerateControl } from './finish-actions';
import { LikenessHint, NoLikenessCheck } from './likeness';

/**
 * What can be done with one of the user's own images, wherever it is shown (the viewer, desktop and phone, and
 * the fresh result on Create Image): Upscale 2×/4× and Edit with a prompt, the likeness hint, Regenerate with
 * Keep the seed, and the heart unless the place has its own (issue 54 item 7).
 */
export function GenerationActions({
  item,
  actions,
  onOpenGeneration,
  favorite,
  className,
}: {
  item: GalleryItem;
  actions: GalleryActions;
  onOpenGeneration: (id: string) => void;
  favorite: boolean;
  className?: string;
}) {
  return (
    <div className={cn('flex flex-col gap-3', className)} data-testid="generation-actions">
      <FinishActions item={item} actions={actions} onOpenGeneration={onOpenGeneration} />
      <LikenessHint item={item} />
      <div className="grid grid-cols-2 items-start gap-2">
        <RegenerateControl item={item} actions={actions} />
        {favorite && <FavoriteButton item={item} actions={actions} />}
      </div>
    </div>
  );
}

export function FavoriteButton({ item, actions }: { item: GalleryItem; actions: GalleryActions }) {
  return (
    <Button
      variant="outline"
      onClick={() => void actions.toggleFavorite(item)}
      aria-pressed={item.isFavorite}
      title={item.isFavorite ? 'Remove Favorite' : 'Add to Favorites'}
      className={cn(item.isFavorite && 'text-accent')}
    >
      <Heart className={cn('size-4', item.isFavorite && 'fill-current')} aria-hidden />
      {item.isFavorite ? 'Favorited' : 'Favorite'}
    </Button>
  );
}

/**
 * A generation shown outside the galleries (the Create Image result): its likeness badge and the viewer's
 * actions, kept current as it is checked and favourited. `onShow` shows another generation in its place (an
 * upscale's 'Open it').
 */
export function ResultActions({ generation, onShow }: { generation: GenerationView; onShow: (generation: GenerationView) => void }) {
  const actions = useGalleryActions();
  const item = fromGeneration(useGeneration(generation));
  const open = (id: string) =>
    void actions.loadGeneration(id).then(onShow, (err: unknown) => console.error('Could not open the generation', err));
  return (
    <div className="flex flex-col gap-3">
      {item.characterName && (
        <p className="flex flex-wrap items-center gap-1.5 text-xs text-fg-muted">
          <span>{item.characterName}</span>
          <LikenessBadge likeness={item.likeness} verdict={item.likenessVerdict} />
          <NoLikenessCheck item={item} />
        </p>
      )}
      <GenerationActions item={item} actions={actions} onOpenGeneration={open} favorite />
    </div>
  );
}
