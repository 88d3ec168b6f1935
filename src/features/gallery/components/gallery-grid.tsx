import { useEffect, useMemo, useRef, useState } from 'react';
import { useShootNames } from '../api';
import { useIsPhone } from '@/lib/use-is-phone';
import { useToast } from '@/components/ui/toast';
import { fromGeneration, type GalleryItem } from '../lib/gallery-item';
import { useGalleryActions } from '../hooks/use-gallery-actions';
import type { Selection } from '../hooks/use-selection';
import { GenerationCard, type GalleryPermissions } from './generation-card';
import { GenerationViewer } from './generation-viewer';

const gridClasses = 'grid grid-cols-2 gap-3 md:grid-cols-4 md:gap-4';

/** 4 columns on desktop, 2 on phones (product §2); a card opens the detail viewer. */
export function GalleryGrid({
  items: listed,
  permissions,
  label,
  selection,
  onSelectionFull,
}: {
  items: GalleryItem[];
  permissions: GalleryPermissions;
  label: string;
  /** Select mode: cards toggle their selection instead of opening the viewer. */
  selection?: Selection;
  /** A card could not be added because the selection is full. */
  onSelectionFull?: () => void;
}) {
  const phone = useIsPhone();
  const actions = useGalleryActions();
  // A shoot's photo names its shoot, on its card and in the viewer.
  const shootNames = useShootNames(listed.some((item) => item.shootId));
  const items = useMemo(
    () => listed.map((item) => (item.shootId ? { ...item, shootName: shootNames.get(item.shootId) ?? null } : item)),
    [listed, shootNames],
  );
  const [openId, setOpenId] = useState<string | null>(null);
  /** A generation shown in the viewer that is not on this page (an image's source, a fresh upscale). */
  const [elsewhere, setElsewhere] = useState<GalleryItem | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  // The viewer follows the list, so a favourite flip shows in both and a deleted image closes it.
  const open = items.find((item) => item.id === openId) ?? (elsewhere?.id === openId ? elsewhere : null);
  // Closed for good when its image left the list (deleted here or in another tab): an Undo brings the card
  // back, not the viewer over the page.
  useEffect(() => {
    if (openId !== null && open === null) setOpenId(null);
  }, [openId, open]);
  const toast = useToast();
  const openGeneration = (id: string) => {
    if (items.some((item) => item.id === id)) return setOpenId(id);
    actions.loadGeneration(id).then(
      (generation) => {
        setElsewhere(fromGeneration(generation));
        setOpenId(id);
      },
      (err: unknown) => {
        console.warn('Could not open a generation', err);
        toast.show('That image is no longer in your generations.', { tone: 'error' });
      },
    );
  };
  return (
    <>
      <ul className={gridClasses} aria-label={label}>
        {items.map((item) => (
          <GenerationCard
            key={item.id}
            item={item}
            permissions={permissions}
            actions={actions}
            phone={phone}
            onOpen={(i, el) => {
              opener.current = el;
              setOpenId(i.id);
            }}
            selection={
              selection?.active
                ? { selected: selection.has(item.id), onToggle: () => void (selection.toggle(item.id) || onSelectionFull?.()) }
                : undefined
            }
          />
        ))}
      </ul>
      <GenerationViewer
        item={open}
        permissions={permissions}
        actions={actions}
        phone={phone}
        onClose={() => setOpenId(null)}
        returnFocusTo={opener}
        onOpenGeneration={openGeneration}
      />
    </>
  );
}

export function GallerySkeleton() {
  return (
    <div className={gridClasses} aria-busy="true" aria-label="Loading images">
      {Array.from({ length: 8 }, (_, i) => (
        <div key={i} className="aspect-square animate-pulse rounded-lg bg-bg-muted" />
      ))}
    </div>
  );
}
