import { useId, useRef, useState, type DragEvent } from 'react';
import { ImagePlus, RotateCw, X } from 'lucide-react';
import { cn } from '@/lib/cn';
import type { PhotoVerdict } from '../hooks/use-photo-checks';
import type { TrainingPhoto } from '../hooks/use-training-form';

export interface PhotoUploadProps {
  photos: TrainingPhoto[];
  /** Each photo's check, by photo id. */
  verdicts: Map<string, PhotoVerdict>;
  /** Adds the images among the files; returns the names of those that are not images. */
  onAdd: (files: Iterable<File>) => string[];
  onRemove: (id: string) => void;
  onRetryCheck: (id: string) => void;
  /** The picker is locked while a training is being sent. */
  disabled: boolean;
}

const TONES: Record<PhotoVerdict['tone'], string> = {
  good: 'bg-success text-white',
  warn: 'bg-warning text-white',
  bad: 'bg-danger text-white',
  busy: 'bg-fg/70 text-white',
  none: 'bg-fg/70 text-white',
};

/** A thumbnail's verdict, in words, along its bottom edge. */
function CheckBadge({ verdict, onRetry, disabled }: { verdict: PhotoVerdict | undefined; onRetry: () => void; disabled: boolean }) {
  if (!verdict) return null;
  return (
    <span
      data-testid="photo-badge"
      title={verdict.hint ?? undefined}
      className={cn(
        'absolute inset-x-0 bottom-0 flex min-h-6 items-center gap-1 px-1.5 py-0.5 text-[11px] leading-tight font-semibold',
        TONES[verdict.tone],
      )}
    >
      {verdict.tone === 'busy' && (
        <span aria-hidden className="size-2.5 shrink-0 animate-spin rounded-full border-[1.5px] border-current border-r-transparent" />
      )}
      <span className="line-clamp-2">{verdict.badge}</span>
      {verdict.state === 'failed' && (
        <button
          type="button"
          onClick={onRetry}
          disabled={disabled}
          aria-label="Check again"
          className="ml-auto rounded p-0.5 hover:bg-white/20"
        >
          <RotateCw className="size-3" aria-hidden />
        </button>
      )}
    </span>
  );
}

/** What the picker says about files left out because they are not images (a PDF dropped with the photos). */
export function notPhotosMessage(names: readonly string[]): string | null {
  if (!names.length) return null;
  const listed = names.length === 1 ? `“${names[0]}” is not a photo` : `${names.length} files are not photos (${names.join(', ')})`;
  return `${listed}, so ${names.length === 1 ? 'it was' : 'they were'} not added. Choose JPG, PNG or WEBP images.`;
}

/** The image-upload area: a picker (click or drop; images, several at once) and removable, checked thumbnails. */
export function PhotoUpload({ photos, verdicts, onAdd, onRemove, onRetryCheck, disabled }: PhotoUploadProps) {
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [leftOut, setLeftOut] = useState<string | null>(null);
  const add = (files: Iterable<File>) => setLeftOut(notPhotosMessage(onAdd(files)));

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (!disabled) add(e.dataTransfer.files);
  };

  return (
    <div className="flex flex-col gap-3">
      <div className="flex items-baseline justify-between gap-2">
        <label htmlFor={inputId} className="text-sm font-medium text-fg">
          Photos
        </label>
        <span className="text-xs text-fg-muted" aria-live="polite">
          {photos.length === 1 ? '1 photo selected' : `${photos.length} photos selected`}
        </span>
      </div>
      <label
        htmlFor={inputId}
        onDragOver={(e) => {
          e.preventDefault();
          if (!disabled) setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        className={cn(
          'flex cursor-pointer flex-col items-center justify-center gap-2 rounded-lg border-2 border-dashed border-border-strong bg-bg-subtle px-4 py-7 text-center transition-colors',
          'hover:border-brand hover:bg-brand-soft/50 has-[:focus-visible]:border-brand has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-brand/30',
          dragging && 'border-brand bg-brand-soft/60',
          disabled && 'cursor-not-allowed opacity-60 hover:border-border-strong hover:bg-bg-subtle',
        )}
      >
        <span className="flex size-11 items-center justify-center rounded-full bg-brand-soft text-brand">
          <ImagePlus className="size-5" aria-hidden />
        </span>
        <span className="text-sm font-medium text-fg">
          <span className="text-brand">Choose photos</span> or drop them here
        </span>
        <span className="text-xs text-fg-muted">JPG, PNG or WEBP · at least 4, best 10–20 · each is checked as you add it</span>
        <input
          ref={inputRef}
          id={inputId}
          type="file"
          accept="image/*"
          multiple
          disabled={disabled}
          className="sr-only"
          onChange={(e) => {
            if (e.target.files) add(e.target.files);
            // The same files may be chosen again after removing them.
            e.target.value = '';
          }}
        />
      </label>
      {leftOut && (
        <p role="alert" className="-mt-1 text-sm text-danger" data-testid="photos-left-out">
          {leftOut}
        </p>
      )}
      {photos.length > 0 && (
        <ul className="grid grid-cols-3 gap-2 sm:grid-cols-4 lg:grid-cols-5" aria-label="Selected photos">
          {photos.map((photo, i) => {
            const verdict = verdicts.get(photo.id);
            return (
              <li
                key={photo.id}
                aria-label={`Photo ${i + 1}: ${verdict?.badge ?? 'Waiting…'}`}
                className={cn(
                  'group relative aspect-square overflow-hidden rounded-md border bg-bg-muted',
                  verdict?.tone === 'bad'
                    ? 'border-danger ring-2 ring-danger/40'
                    : verdict?.tone === 'warn'
                      ? 'border-warning'
                      : 'border-border',
                )}
              >
                <img src={photo.previewUrl} alt={`Selected photo ${i + 1}`} className="size-full object-cover" />
                <span
                  aria-hidden
                  className="absolute top-1 left-1 flex size-5 items-center justify-center rounded-full bg-fg/70 text-[11px] font-semibold text-white"
                >
                  {i + 1}
                </span>
                <button
                  type="button"
                  onClick={() => onRemove(photo.id)}
                  disabled={disabled}
                  aria-label={`Remove photo ${i + 1}`}
                  className="absolute top-1 right-1 flex size-6 items-center justify-center rounded-full bg-fg/70 text-white shadow transition-colors hover:bg-danger focus-visible:bg-danger disabled:opacity-50"
                >
                  <X className="size-3.5" aria-hidden />
                </button>
                <CheckBadge verdict={verdict} onRetry={() => onRetryCheck(photo.id)} disabled={disabled} />
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
