import { useRef, useState } from 'react';
import { Camera, Check, Copy, Download, Heart, Link2, MoreHorizontal, RefreshCw, Star, Trash2 } from 'lucide-react';
import { Link } from 'react-router';
import { Tooltip } from 'radix-ui';
import { LIKENESS_TEXTS } from '@common/likeness';
import { thumbUrl } from '@common/media';
import { DropdownMenu } from '@/components/ui/dropdown-menu';
import { cn } from '@/lib/cn';
import { cutPrompt } from '../lib/format';
import { isHd, shootPath, weakLikeness, type GalleryItem } from '../lib/gallery-item';
import type { GalleryActions } from '../hooks/use-gallery-actions';

/** What a gallery lets the user do (product §6): Explore is read-only; Delete is on My Generations only. */
export interface GalleryPermissions {
  favorite: boolean;
  delete: boolean;
}

export interface GenerationCardProps {
  item: GalleryItem;
  permissions: GalleryPermissions;
  actions: GalleryActions;
  /** Phones get no hover overlay (product §2). */
  phone: boolean;
  /** `opener` is the card's main button, where focus goes back when the viewer closes. */
  onOpen: (item: GalleryItem, opener: HTMLElement | null) => void;
  /** Select mode: the card is a checkbox instead of opening the viewer, on phones too. */
  selection?: { selected: boolean; onToggle: () => void };
}

/**
 * One's own images show whole on their square card (a portrait's head is never cut off), on the card's shade;
 * explore's fill it.
 */
const fit = (item: GalleryItem) => (item.source === 'generation' ? 'object-contain' : 'object-cover');

/** Marks that stay on the card; on desktop they make way for the hover actions in the same corners. */
const mark = (phone: boolean) =>
  cn('pointer-events-none absolute z-10 shadow-sm', !phone && 'transition-opacity group-hover:opacity-0 group-focus-within:opacity-0');

const iconButton =
  'inline-flex size-9 items-center justify-center rounded-full bg-white/90 text-fg shadow-sm backdrop-blur transition hover:bg-white hover:text-brand focus-visible:outline-white';

/** A grid card: the thumbnail opens the viewer; on desktop a hover overlay carries the quick actions. */
export function GenerationCard({ item, permissions, actions, phone, onOpen, selection }: GenerationCardProps) {
  const opener = useRef<HTMLButtonElement>(null);
  const open = () => onOpen(item, opener.current);
  if (selection) return <SelectableCard item={item} selected={selection.selected} onToggle={selection.onToggle} />;
  return (
    <li
      className="group @container relative aspect-square overflow-hidden rounded-lg bg-bg-muted shadow-card"
      data-testid="generation-card"
    >
      <button
        ref={opener}
        type="button"
        onClick={open}
        className="absolute inset-0 block size-full cursor-zoom-in focus-visible:outline-offset-[-3px]"
        aria-label={`Open image details: ${cutPrompt(item.prompt, 80)}`}
      >
        <img
          src={thumbUrl(item.imageUrl, 384)}
          srcSet={`${thumbUrl(item.imageUrl, 384)} 384w, ${thumbUrl(item.imageUrl, 768)} 768w`}
          sizes="(min-width: 768px) 25vw, 50vw"
          width={item.width}
          height={item.height}
          loading="lazy"
          decoding="async"
          alt={item.prompt}
          className={cn('size-full transition-transform duration-300 group-hover:scale-[1.03]', fit(item))}
        />
      </button>

      {item.isFeatured && (
        <span
          data-testid="featured-badge"
          className="pointer-events-none absolute left-2 top-2 z-10 inline-flex items-center gap-1 rounded-full bg-amber-400 px-2 py-0.5 text-xs font-semibold text-amber-950 shadow-sm"
        >
          <Star className="size-3.5 fill-current" aria-hidden />
          <span className={cn(phone && 'sr-only')}>Featured</span>
        </span>
      )}
      {isHd(item) && (
        <span
          className="pointer-events-none absolute bottom-2 left-2 rounded bg-fg/85 px-1.5 py-0.5 text-[11px] font-bold tracking-wide text-bg shadow-sm"
          title={item.origin ? `Upscaled ${item.origin.factor ?? 2}×` : undefined}
        >
          HD
        </span>
      )}
      {item.isFavorite && (
        <span className={cn(mark(phone), 'right-2 top-2 rounded-full bg-white/90 p-1.5 text-accent')} aria-label="Favorite">
          <Heart className="size-3.5 fill-current" aria-hidden />
        </span>
      )}
      {weakLikeness(item) && (
        <span
          data-testid="weak-likeness-mark"
          className={cn(
            mark(phone),
            'right-2 bottom-2 rounded-full border border-warning-border bg-warning-soft px-2 py-0.5 text-[11px] font-semibold text-warning',
          )}
        >
          {LIKENESS_TEXTS.badge[item.likenessVerdict!]}
        </span>
      )}
      {item.shootId && item.shootName && (
        <Link
          to={shootPath(item.shootId)}
          data-testid="card-shoot-link"
          aria-label={`From the shoot ${item.shootName}`}
          title={`From the shoot ${item.shootName}`}
          className={cn(
            'absolute left-2 top-2 z-10 inline-flex items-center gap-1 rounded-full bg-fg/75 px-2 py-0.5 text-[11px] font-semibold text-white shadow-sm hover:bg-fg',
            // Clear of the heart's corner when there is one (and of the hover heart on desktop).
            item.isFavorite || !phone ? 'max-w-[calc(100%-3.5rem)]' : 'max-w-[calc(100%-1rem)]',
          )}
        >
          <Camera className="size-3 shrink-0" aria-hidden />
          <span className="truncate">{item.shootName}</span>
        </Link>
      )}

      {!phone &&
        (item.source === 'explore' ? (
          <ExploreOverlay item={item} actions={actions} onOpen={open} />
        ) : (
          <LibraryOverlay item={item} permissions={permissions} actions={actions} />
        ))}
    </li>
  );
}

/** A card in select mode: one checkbox the size of the card, its tick in the corner. */
function SelectableCard({ item, selected, onToggle }: { item: GalleryItem; selected: boolean; onToggle: () => void }) {
  return (
    <li
      className={cn(
        'relative aspect-square overflow-hidden rounded-lg bg-bg-muted shadow-card',
        selected && 'ring-4 ring-brand ring-offset-2 ring-offset-bg',
      )}
      data-testid="generation-card"
    >
      <button
        type="button"
        role="checkbox"
        aria-checked={selected}
        onClick={onToggle}
        className="absolute inset-0 block size-full cursor-pointer focus-visible:outline-offset-[-3px]"
        aria-label={`Select image: ${cutPrompt(item.prompt, 80)}`}
      >
        <img
          src={thumbUrl(item.imageUrl, 384)}
          srcSet={`${thumbUrl(item.imageUrl, 384)} 384w, ${thumbUrl(item.imageUrl, 768)} 768w`}
          sizes="(min-width: 768px) 25vw, 50vw"
          width={item.width}
          height={item.height}
          loading="lazy"
          decoding="async"
          alt={item.prompt}
          className={cn('size-full transition', fit(item), selected && 'opacity-80')}
        />
        <span
          aria-hidden
          className={cn(
            'absolute left-2 top-2 inline-flex size-7 items-center justify-center rounded-md border-2 shadow-sm',
            selected ? 'border-brand bg-brand text-brand-fg' : 'border-white bg-black/30 text-transparent',
          )}
        >
          <Check className="size-4" strokeWidth={3} />
        </span>
      </button>
    </li>
  );
}

/** Shown on hover or keyboard focus; the layer itself lets clicks through to the card. */
const overlayClasses =
  'pointer-events-none absolute inset-0 flex flex-col justify-between opacity-0 transition-opacity duration-200 group-hover:opacity-100 group-focus-within:opacity-100';

function LibraryOverlay({ item, permissions, actions }: { item: GalleryItem; permissions: GalleryPermissions; actions: GalleryActions }) {
  const favoriteLabel = item.isFavorite ? 'Remove Favorite' : 'Add to Favorites';
  const menuItems = [
    { label: 'Download', icon: <Download className="size-4" aria-hidden />, onSelect: () => void actions.download(item) },
    { label: 'Copy Prompt', icon: <Copy className="size-4" aria-hidden />, onSelect: () => void actions.copyPrompt(item) },
    ...(permissions.favorite
      ? [{ label: favoriteLabel, icon: <Heart className="size-4" aria-hidden />, onSelect: () => void actions.toggleFavorite(item) }]
      : []),
    ...(permissions.delete
      ? [{ label: 'Delete', icon: <Trash2 className="size-4" aria-hidden />, danger: true, onSelect: () => void actions.remove(item) }]
      : []),
  ];
  return (
    <div className={cn(overlayClasses, 'bg-gradient-to-t from-black/60 via-transparent to-black/25')}>
      <div className="flex justify-end p-2">
        {permissions.favorite && (
          <button
            type="button"
            className={cn(iconButton, 'pointer-events-auto', item.isFavorite && 'text-accent hover:text-accent')}
            onClick={() => void actions.toggleFavorite(item)}
            aria-label={favoriteLabel}
            aria-pressed={item.isFavorite}
            title={favoriteLabel}
          >
            <Heart className={cn('size-4', item.isFavorite && 'fill-current')} aria-hidden />
          </button>
        )}
      </div>
      <div className="flex items-center justify-between gap-2 p-2">
        <div className="flex gap-1.5">
          <button
            type="button"
            className={cn(iconButton, 'pointer-events-auto')}
            onClick={() => void actions.download(item)}
            aria-label="Download"
            title="Download"
          >
            <Download className="size-4" aria-hidden />
          </button>
          <button
            type="button"
            className={cn(iconButton, 'pointer-events-auto')}
            onClick={() => void actions.copyImageUrl(item)}
            aria-label="Copy image URL"
            title="Copy image URL"
          >
            <Link2 className="size-4" aria-hidden />
          </button>
          <button
            type="button"
            className={cn(iconButton, 'pointer-events-auto')}
            onClick={() => actions.regenerate(item)}
            aria-label="Regenerate"
            title="Regenerate"
          >
            <RefreshCw className="size-4" aria-hidden />
          </button>
        </div>
        <DropdownMenu
          label="More actions"
          items={menuItems}
          trigger={
            <button type="button" className={cn(iconButton, 'pointer-events-auto')} aria-label="More actions" title="More actions">
              <MoreHorizontal className="size-4" aria-hidden />
            </button>
          }
        />
      </div>
    </div>
  );
}

/** Pixels from the card's top kept clear of the hover text and its tooltip: the Featured badge and a gap. */
const FEATURED_CLEARANCE = 36;
/**
 * Lines of prompt that fit between the Featured badge and the actions on a square card of this width (the card is
 * its own container): 19.5px a line; below 17rem the actions are icons alone (28px tall), from 17rem they carry
 * their labels (about 60px). Measured from 148px (four columns at 768px) to 322px wide.
 */
const PROMPT_LINES =
  'line-clamp-2 @min-[9.25rem]:line-clamp-3 @min-[10.5rem]:line-clamp-4 @min-[11.75rem]:line-clamp-5 @min-[13rem]:line-clamp-6';
/** The action's label: read by screen readers always, shown once the card is wide enough for it. */
const actionLabel = 'sr-only @min-[17rem]:not-sr-only';

function ExploreOverlay({ item, actions, onOpen }: { item: GalleryItem; actions: GalleryActions; onOpen: () => void }) {
  const action =
    'pointer-events-auto flex flex-col items-center justify-center gap-1 rounded-md bg-white/90 px-1 py-1.5 text-center text-[11px] font-semibold leading-tight text-fg shadow-sm transition hover:bg-white hover:text-brand';
  // The full prompt's tooltip is kept within the card: as wide as the text it explains, scrolling if long.
  const [card, setCard] = useState<HTMLDivElement | null>(null);
  return (
    <div ref={setCard} className={cn(overlayClasses, 'justify-end bg-gradient-to-t from-black/80 via-black/35 to-transparent')}>
      <div className="flex flex-col gap-2.5 p-3">
        {/* Hovering the text shows the full prompt; a click on it opens the viewer like the rest of the card. The
            prompt is cut at 150 characters (product §2), and shows as many lines as fit between the actions and the
            top of the card (below the Featured badge) at this card's width: a square card is as tall as it is wide. */}
        <Tooltip.Root delayDuration={300}>
          <Tooltip.Trigger asChild>
            <p
              tabIndex={0}
              onClick={onOpen}
              data-testid="explore-prompt"
              className={cn('pointer-events-auto cursor-zoom-in text-xs leading-relaxed text-white/95 outline-none', PROMPT_LINES)}
            >
              {cutPrompt(item.prompt)}
            </p>
          </Tooltip.Trigger>
          <Tooltip.Portal>
            <Tooltip.Content
              side="top"
              sideOffset={6}
              collisionBoundary={card}
              collisionPadding={{ top: item.isFeatured ? FEATURED_CLEARANCE : 4, right: 4, bottom: 4, left: 4 }}
              data-testid="prompt-tooltip"
              className="z-50 max-h-[var(--radix-tooltip-content-available-height)] w-[var(--radix-tooltip-trigger-width)] overflow-y-auto rounded-md bg-fg px-3 py-2 text-xs leading-relaxed text-bg shadow-pop"
            >
              {item.prompt}
              <Tooltip.Arrow className="fill-fg" />
            </Tooltip.Content>
          </Tooltip.Portal>
        </Tooltip.Root>
        <div className="grid grid-cols-3 gap-1.5">
          <button type="button" className={action} onClick={() => void actions.copyImageUrl(item)} title="Copy Image URL">
            <Link2 className="size-4" aria-hidden />
            <span className={actionLabel}>Copy Image URL</span>
          </button>
          <button type="button" className={action} onClick={() => actions.regenerate(item)} title="Regenerate">
            <RefreshCw className="size-4" aria-hidden />
            <span className={actionLabel}>Regenerate</span>
          </button>
          <button type="button" className={action} onClick={() => void actions.copyPrompt(item)} title="Copy Prompt">
            <Copy className="size-4" aria-hidden />
            <span className={actionLabel}>Copy Prompt</span>
          </button>
        </div>
      </div>
    </div>
  );
}
