import { useState } from 'react';
import { Download, Heart, Trash2, X } from 'lucide-react';
import { MAX_SELECTION } from '@common/library';
import { errorMessage } from '@/backend/api-error';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';

export interface SelectionBarProps {
  count: number;
  /** Deletes the selection; its toast ('3 images deleted', with Undo) says what happened, not the bar. */
  onDelete: () => Promise<number>;
  onFavorite: () => Promise<number>;
  onDownload: () => Promise<void>;
  onDone: () => void;
  /** A message from outside (the selection is full). */
  notice?: string | null;
}

const images = (n: number) => `${n} ${n === 1 ? 'image' : 'images'}`;
export const deleteSelectionQuestion = (n: number) => `Delete ${images(n)}? They are removed from My Generations and Favorites.`;

/** Select mode's action bar: how many are selected, 'Delete', 'Add to favorites', 'Download' and 'Done'. */
export function SelectionBar({ count, onDelete, onFavorite, onDownload, onDone, notice }: SelectionBarProps) {
  const [busy, setBusy] = useState<'delete' | 'favorite' | 'download' | null>(null);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [confirming, setConfirming] = useState(false);

  async function run(which: 'delete' | 'favorite' | 'download', action: () => Promise<string | null>) {
    setBusy(which);
    setMessage(null);
    try {
      const text = await action();
      setMessage(text === null ? null : { text, error: false });
    } catch (err) {
      setMessage({ text: errorMessage(err), error: true });
    } finally {
      setBusy(null);
      setConfirming(false);
    }
  }

  const none = count === 0;
  const shown = notice ? { text: notice, error: true } : message;
  return (
    <div
      className="sticky bottom-3 z-30 flex flex-col gap-2 rounded-xl border border-border bg-bg/95 p-3 shadow-pop backdrop-blur md:flex-row md:items-center md:justify-between"
      role="toolbar"
      aria-label="Selected images"
    >
      <div className="flex items-center justify-between gap-3">
        <p className="text-sm font-semibold" data-testid="selection-count">
          {count} selected <span className="font-normal text-fg-muted">(up to {MAX_SELECTION})</span>
        </p>
        <Button variant="ghost" size="sm" onClick={onDone} className="md:hidden">
          <X className="size-4" aria-hidden />
          Done
        </Button>
      </div>
      {shown && (
        <p role={shown.error ? 'alert' : 'status'} className={shown.error ? 'text-sm text-danger' : 'text-sm text-success'}>
          {shown.text}
        </p>
      )}
      <div className="grid grid-cols-3 gap-2 md:flex">
        <Button
          variant="outline"
          size="sm"
          disabled={none || busy !== null}
          busy={busy === 'delete'}
          onClick={() => setConfirming(true)}
          className="text-danger"
        >
          <Trash2 className="size-4" aria-hidden />
          Delete
        </Button>
        <Button
          variant="outline"
          size="sm"
          disabled={none || busy !== null}
          busy={busy === 'favorite'}
          onClick={() => void run('favorite', async () => `${images(await onFavorite())} added to favorites.`)}
        >
          <Heart className="size-4" aria-hidden />
          <span className="md:hidden">Favorite</span>
          <span className="hidden md:inline">Add to favorites</span>
        </Button>
        <Button
          variant="outline"
          size="sm"
          disabled={none || busy !== null}
          busy={busy === 'download'}
          onClick={() => void run('download', async () => (await onDownload(), `Downloading ${images(count)}.`))}
        >
          <Download className="size-4" aria-hidden />
          Download
        </Button>
        {/* A wrapper hides it on phones (on the button itself `hidden` would lose to the button's own display). */}
        <div className="hidden md:block">
          <Button variant="ghost" size="sm" onClick={onDone}>
            Done
          </Button>
        </div>
      </div>

      <Dialog open={confirming} onOpenChange={(open) => busy === null && setConfirming(open)} title="Delete images" hideTitle>
        <p className="pr-6 text-sm leading-relaxed">{deleteSelectionQuestion(count)}</p>
        <div className="mt-5 flex justify-end gap-2">
          <Button variant="outline" onClick={() => setConfirming(false)} disabled={busy !== null}>
            Cancel
          </Button>
          <Button variant="danger" busy={busy === 'delete'} onClick={() => void run('delete', async () => (await onDelete(), null))}>
            <Trash2 className="size-4" aria-hidden />
            Delete
          </Button>
        </div>
      </Dialog>
    </div>
  );
}
