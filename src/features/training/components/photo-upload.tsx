import { useId, useRef, useState, type DragEvent } from 'react';
import { ImagePlus, X } from 'lucide-react';
import { cn } from '@/lib/cn';
import type { TrainingPhoto } from '../hooks/use-training-form';

export interface PhotoUploadProps {
  photos: TrainingPhoto[];
  onAdd: (files: Iterable<File>) => void;
  onRemove: (id: string) => void;
  /** The picker is locked while a training is being sent. */
  disabled: boolean;
}

/** The image-upload area: a picker (click or drop; images, several at once) and removable thumbnails. */
export function PhotoUpload({ photos, onAdd, onRemove, disabled }: PhotoUploadProps) {
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (!disabled) onAdd(e.dataTransfer.files);
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
        <span className="text-xs text-fg-muted">JPG, PNG or WEBP · at least 4, best 10–20</span>
        <input
          ref={inputRef}
          id={inputId}
          type="file"
          accept="image/*"
          multiple
          disabled={disabled}
          className="sr-only"
          onChange={(e) => {
            if (e.target.files) onAdd(e.target.files);
            // The same files may be chosen again after removing them.
            e.target.value = '';
          }}
        />
      </label>
      {photos.length > 0 && (
        <ul className="grid grid-cols-4 gap-2 sm:grid-cols-5" aria-label="Selected photos">
          {photos.map((photo, i) => (
            <li key={photo.id} className="group relative aspect-square overflow-hidden rounded-md border border-border bg-bg-muted">
              <img src={photo.previewUrl} alt={`Selected photo ${i + 1}`} className="size-full object-cover" />
              <button
                type="button"
                onClick={() => onRemove(photo.id)}
                disabled={disabled}
                aria-label={`Remove photo ${i + 1}`}
                className="absolute top-1 right-1 flex size-6 items-center justify-center rounded-full bg-fg/70 text-white shadow transition-colors hover:bg-danger focus-visible:bg-danger disabled:opacity-50"
              >
                <X className="size-3.5" aria-hidden />
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
