import { useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { ArrowLeft, Check, Copy, Download, Heart, MoreVertical, RefreshCw, Share2, Trash2, X } from 'lucide-react';
import { Dialog } from 'radix-ui';
import { Link } from 'react-router';
import { TIMINGS } from '@common/product';
import { LikenessBadge } from '@/components/likeness-badge';
import { Button } from '@/components/ui/button';
import { DropdownMenu } from '@/components/ui/dropdown-menu';
import { cn } from '@/lib/cn';
import { relativeTime, shortDateTime } from '../lib/format';
import { absoluteImageUrl, isHd, shootPath, type GalleryItem } from '../lib/gallery-item';
import type { GalleryActions } from '../hooks/use-gallery-actions';
import { SourceLink } from './finish-actions';
import { FavoriteButton, GenerationActions } from './generation-actions';
import { NoLikenessCheck } from './likeness';
import type { GalleryPermissions } from './generation-card';

export interface GenerationViewerProps {
  item: GalleryItem | null;
  permissions: GalleryPermissions;
  actions: GalleryActions;
  phone: boolean;
  onClose: () => void;
  /** The card that opened the viewer; focus goes back to it on close (it is not a Radix trigger). */
  returnFocusTo: RefObject<HTMLElement | null>;
  /** Shows another of the user's generations here (an image's source, or a fresh upscale). */
  onOpenGeneration: (id: string) => void;
}

/**
 * The detail viewer (product §2): a modal on desktop (Escape closes it and focus goes back to the card) and a
 * full-screen sheet on phones with Back, favourite and a menu.
 */
export function GenerationViewer({ item, permissions, actions, phone, onClose, returnFocusTo, onOpenGeneration }: GenerationViewerProps) {
  return (
    <Dialog.Root open={item !== null} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        {!phone && <Dialog.Overlay className="fixed inset-0 z-50 bg-fg/70 backdrop-blur-sm" />}
        {item && (
          <Dialog.Content
            aria-describedby={undefined}
            onCloseAutoFocus={(event) => {
              // A deleted card is gone: then the browser's default (the page) is the right place.
              if (returnFocusTo.current?.isConnected) {
                event.preventDefault();
                returnFocusTo.current.focus();
              }
            }}
            className={cn(
              'fixed z-50 bg-bg focus:outline-none',
              phone
                ? 'inset-0 overflow-y-auto'
                : 'left-1/2 top-1/2 grid max-h-[90dvh] w-[calc(100vw-4rem)] max-w-6xl -translate-x-1/2 -translate-y-1/2 grid-cols-[minmax(0,1fr)_22rem] overflow-hidden rounded-xl shadow-pop',
            )}
          >
            {phone ? (
              <PhoneSheet item={item} permissions={permissions} actions={actions} onClose={onClose} onOpenGeneration={onOpenGeneration} />
            ) : (
              <DesktopModal item={item} permissions={permissions} actions={actions} onOpenGeneration={onOpenGeneration} />
            )}
          </Dialog.Content>
        )}
      </Dialog.Portal>
    </Dialog.Root>
  );
}

interface PartProps {
  item: GalleryItem;
  permissions: GalleryPermissions;
  actions: GalleryActions;
  onOpenGeneration: (id: string) => void;
}

function DesktopModal({ item, permissions, actions, onOpenGeneration }: PartProps) {
  const own = item.source === 'generation';
  return (
    <>
      <div className="flex h-[min(90dvh,48rem)] min-h-0 items-center justify-center bg-[#0f0e17] p-4">
        <img src={item.imageUrl} alt={item.prompt} width={item.width} height={item.height} className="size-full object-contain" />
      </div>
      <div className="flex min-h-0 flex-col overflow-y-auto p-6">
        <div className="flex items-start justify-between gap-3">
          <Dialog.Title className="text-lg font-semibold">Image details</Dialog.Title>
          <Dialog.Close aria-label="Close" className="-mr-2 -mt-1 rounded-md p-1.5 text-fg-muted hover:bg-bg-muted hover:text-fg">
            <X className="size-5" aria-hidden />
          </Dialog.Close>
        </div>
        <Details item={item} onOpenGeneration={onOpenGeneration} />
        {own && (
          <GenerationActions
            item={item}
            actions={actions}
            onOpenGeneration={onOpenGeneration}
            favorite={permissions.favorite}
            className="mt-6"
          />
        )}
        <div className="mt-auto grid grid-cols-2 gap-2 pt-6">
          <DownloadButton item={item} actions={actions} className="col-span-2" />
          {!own && (
            <Button variant="outline" onClick={() => actions.regenerate(item)}>
              <RefreshCw className="size-4" aria-hidden />
              Regenerate
            </Button>
          )}
          <ShareButton item={item} />
          {!own && permissions.favorite && <FavoriteButton item={item} actions={actions} />}
          {permissions.delete && <DeleteButton item={item} actions={actions} />}
        </div>
      </div>
    </>
  );
}

function PhoneSheet({ item, permissions, actions, onClose, onOpenGeneration }: PartProps & { onClose: () => void }) {
  const favoriteLabel = item.isFavorite ? 'Remove Favorite' : 'Add to Favorites';
  const menu = [
    { label: 'Regenerate', icon: <RefreshCw className="size-4" aria-hidden />, onSelect: () => actions.regenerate(item) },
    { label: 'Share URL', icon: <Share2 className="size-4" aria-hidden />, onSelect: () => void actions.copyImageUrl(item) },
    ...(permissions.delete
      ? [
          {
            label: 'Delete',
            icon: <Trash2 className="size-4" aria-hidden />,
            danger: true,
            onSelect: () => void actions.remove(item).then((ok) => ok && onClose()),
          },
        ]
      : []),
  ];
  return (
    <div className="flex min-h-full flex-col">
      <header className="sticky top-0 z-10 flex h-14 items-center justify-between border-b border-border bg-bg/95 px-2 backdrop-blur">
        <Dialog.Close className="inline-flex h-10 items-center gap-1.5 rounded-md px-2 text-sm font-medium text-fg hover:bg-bg-muted">
          <ArrowLeft className="size-5" aria-hidden />
          Back
        </Dialog.Close>
        <Dialog.Title className="sr-only">Image details</Dialog.Title>
        <div className="flex items-center gap-1">
          {permissions.favorite && (
            <button
              type="button"
              onClick={() => void actions.toggleFavorite(item)}
              aria-label={favoriteLabel}
              aria-pressed={item.isFavorite}
              className={cn(
                'inline-flex size-10 items-center justify-center rounded-md hover:bg-bg-muted',
                item.isFavorite ? 'text-accent' : 'text-fg',
              )}
            >
              <Heart className={cn('size-5', item.isFavorite && 'fill-current')} aria-hidden />
            </button>
          )}
          <DropdownMenu
            label="Image actions"
            items={menu}
            trigger={
              <button
                type="button"
                aria-label="Image actions"
                className="inline-flex size-10 items-center justify-center rounded-md text-fg hover:bg-bg-muted"
              >
                <MoreVertical className="size-5" aria-hidden />
              </button>
            }
          />
        </div>
      </header>
      <div className="bg-[#0f0e17]">
        <img
          src={item.imageUrl}
          alt={item.prompt}
          width={item.width}
          height={item.height}
          className="mx-auto max-h-[70dvh] w-auto max-w-full object-contain"
        />
      </div>
      <div className="flex flex-col gap-5 p-4 pb-8">
        <Details item={item} onOpenGeneration={onOpenGeneration} />
        <DownloadButton item={item} actions={actions} className="h-12" />
        {item.source === 'generation' && (
          // The heart is in the sheet's header.
          <GenerationActions item={item} actions={actions} onOpenGeneration={onOpenGeneration} favorite={false} />
        )}
      </div>
    </div>
  );
}

function Details({ item, onOpenGeneration }: { item: GalleryItem; onOpenGeneration: (id: string) => void }) {
  const rows: [string, ReactNode][] = [
    [
      'Created',
      <time dateTime={item.createdAt} title={shortDateTime(item.createdAt)}>
        {relativeTime(item.createdAt)}
      </time>,
    ],
    ['Dimensions', isHd(item) ? `${item.width} × ${item.height} (HD)` : `${item.width} × ${item.height}`],
    [
      'Character',
      item.characterName ? (
        <span className="flex min-w-0 flex-wrap items-center gap-1.5">
          <span className="truncate">{item.characterName}</span>
          <LikenessBadge likeness={item.likeness} verdict={item.likenessVerdict} />
          <NoLikenessCheck item={item} />
        </span>
      ) : (
        'None'
      ),
    ],
    ...(item.shootId
      ? ([
          [
            'Photo shoot',
            <Link to={shootPath(item.shootId)} className="font-semibold text-brand underline" data-testid="viewer-shoot-link">
              {item.shootName ?? 'Open the shoot'}
            </Link>,
          ],
        ] as [string, ReactNode][])
      : []),
    ['Seed', item.seed ?? '—'],
    ['Steps', item.steps ?? '—'],
    ['Guidance', item.guidance ?? '—'],
  ];
  return (
    <div className="mt-4 flex flex-col gap-5">
      {item.origin && <SourceLink origin={item.origin} onOpen={onOpenGeneration} />}
      <section>
        <div className="flex items-center justify-between gap-2">
          <h3 className="text-xs font-semibold uppercase tracking-wide text-fg-subtle">Prompt</h3>
          <CopyPromptButton prompt={item.prompt} />
        </div>
        <p className="mt-2 max-h-48 overflow-y-auto whitespace-pre-wrap rounded-md bg-bg-subtle p-3 text-sm leading-relaxed text-fg">
          {item.prompt}
        </p>
      </section>
      <dl className="grid grid-cols-2 gap-x-4 gap-y-3 text-sm">
        {rows.map(([label, value]) => (
          <div
            key={label}
            className={cn('min-w-0', ((label === 'Character' && item.likenessVerdict) || label === 'Photo shoot') && 'col-span-2')}
          >
            <dt className="text-xs text-fg-subtle">{label}</dt>
            <dd className="truncate font-medium tabular-nums text-fg">{value}</dd>
          </div>
        ))}
        <div className="col-span-2 min-w-0">
          <dt className="text-xs text-fg-subtle">ID</dt>
          <dd className="break-all font-mono text-xs text-fg-muted">{item.id}</dd>
        </div>
      </dl>
    </div>
  );
}

/**
 * Copies text to the clipboard; the returned label says how it went for 2 s, then goes back
 * (product §9 copy feedback).
 */
function useCopyFeedback() {
  const [feedback, setFeedback] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const show = (text: string) => {
    setFeedback(text);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setFeedback(null), TIMINGS.copyFeedbackMs);
  };
  const copy = async (text: string, copiedLabel: string) => {
    try {
      await navigator.clipboard.writeText(text);
      show(copiedLabel);
    } catch (err) {
      console.error('Copy failed', err);
      show('Failed to copy');
    }
  };
  return [feedback, copy] as const;
}

function CopyPromptButton({ prompt }: { prompt: string }) {
  const [feedback, copy] = useCopyFeedback();
  return (
    <Button
      variant="ghost"
      size="sm"
      onClick={() => void copy(prompt, 'Copied!')}
      aria-live="polite"
      className={cn(feedback === 'Failed to copy' && 'text-danger')}
    >
      {feedback === 'Copied!' ? <Check className="size-4" aria-hidden /> : <Copy className="size-4" aria-hidden />}
      {feedback ?? 'Copy Prompt'}
    </Button>
  );
}

function ShareButton({ item }: { item: GalleryItem }) {
  const [feedback, copy] = useCopyFeedback();
  return (
    <Button variant="outline" onClick={() => void copy(absoluteImageUrl(item), 'Link Copied!')} aria-live="polite">
      <Share2 className="size-4" aria-hidden />
      {feedback ?? 'Share'}
    </Button>
  );
}

function DownloadButton({ item, actions, className }: { item: GalleryItem; actions: GalleryActions; className?: string }) {
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    await actions.download(item);
    setBusy(false);
  };
  return (
    <Button onClick={() => void download()} busy={busy} className={className}>
      {!busy && <Download className="size-4" aria-hidden />}
      Download
    </Button>
  );
}

function DeleteButton({ item, actions }: { item: GalleryItem; actions: GalleryActions }) {
  const [busy, setBusy] = useState(false);
  const remove = async () => {
    setBusy(true);
    // On success the card leaves the list and the viewer closes with it.
    if (!(await actions.remove(item))) setBusy(false);
  };
  return (
    <Button variant="outline" onClick={() => void remove()} busy={busy} className="text-danger hover:bg-danger-soft">
      {!busy && <Trash2 className="size-4" aria-hidden />}
      Delete
    </Button>
  );
}
