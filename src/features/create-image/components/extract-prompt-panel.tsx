import { useEffect, useId, useRef, useState, type DragEvent } from 'react';
import { ImageUp, RefreshCw, Trash2, WandSparkles } from 'lucide-react';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { useMe } from '@/session/api';
import { cn } from '@/lib/cn';
import { ACCEPTED_TYPES, ANALYSIS_TYPES, analysisOf } from '../lib/extraction';
import { usePromptExtraction, type PromptExtraction } from '../hooks/use-prompt-extraction';

export interface ExtractPromptPanelProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** 'Use This Prompt': puts the extracted text into the prompt field; the panel then closes itself. */
  onUsePrompt: (text: string) => void;
}

/** A centred dialog on wider screens; below 768px a full-height sheet (product §2, phone layout). */
const SHEET_CLASSES = cn(
  'md:max-w-xl',
  'max-md:inset-0 max-md:h-dvh max-md:max-h-none max-md:w-full max-md:max-w-none',
  'max-md:translate-x-0 max-md:translate-y-0 max-md:rounded-none max-md:border-0 max-md:px-5 max-md:pt-5',
);

const BUSY_LABEL = { uploading: 'Uploading image...', analyzing: 'Analyzing image...' } as const;

function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * 'Extract Prompt from Image' (product §2, §4), opened from the prompt field: choose or drop a JPG, PNG or WEBP
 * photo, pick Fast or Detailed analysis, generate, then 'Use This Prompt'.
 */
export function ExtractPromptPanel({ open, onOpenChange, onUsePrompt }: ExtractPromptPanelProps) {
  const extraction = usePromptExtraction(open);
  const { credits } = useMe();
  const { file, analysis, result, error, busy, stage } = extraction;
  const cost = analysisOf(analysis).cost;
  const short = credits < cost;
  const resultRef = useRef<HTMLElement>(null);
  // The result sits below the picker and options: bring it, and 'Use This Prompt', into view when it arrives.
  useEffect(() => {
    if (result !== null) resultRef.current?.scrollIntoView?.({ behavior: 'smooth', block: 'nearest' });
  }, [result]);

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="Extract Prompt from Image"
      description="Upload a photo and get a prompt that describes it."
      className={SHEET_CLASSES}
    >
      <div className="flex flex-col gap-5">
        <ImagePicker extraction={extraction} />

        <fieldset className="flex flex-col gap-2" disabled={busy}>
          <legend className="mb-2 text-sm font-medium text-fg">Analysis type</legend>
          <div className="grid grid-cols-2 gap-2">
            {ANALYSIS_TYPES.map((type) => {
              const checked = analysis === type.value;
              return (
                <label
                  key={type.value}
                  className={cn(
                    'flex cursor-pointer flex-col gap-1 rounded-lg border p-3 transition-colors',
                    'has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-brand',
                    checked ? 'border-brand bg-brand-soft' : 'border-border-strong bg-bg hover:bg-bg-subtle',
                  )}
                >
                  <input
                    type="radio"
                    name="analysis-type"
                    value={type.value}
                    checked={checked}
                    onChange={() => extraction.setAnalysis(type.value)}
                    className="sr-only"
                  />
                  <span className="flex items-center justify-between gap-2">
                    <span className={cn('text-sm font-semibold', checked ? 'text-brand' : 'text-fg')}>{type.label}</span>
                    <span
                      className={cn(
                        'rounded-full px-2 py-0.5 text-xs font-medium tabular-nums',
                        checked ? 'bg-brand text-brand-fg' : 'bg-bg-muted text-fg-muted',
                      )}
                    >
                      {type.cost} {type.cost === 1 ? 'credit' : 'credits'}
                    </span>
                  </span>
                  <span className="text-xs leading-snug text-fg-muted">{type.description}</span>
                </label>
              );
            })}
          </div>
        </fieldset>

        {error && <Banner tone="red">{error}</Banner>}

        <div className="flex flex-col gap-2">
          <Button
            size="lg"
            variant={result ? 'outline' : 'primary'}
            className="w-full"
            busy={busy}
            disabled={!file || short}
            onClick={() => void extraction.generate()}
          >
            {!busy && <WandSparkles className="size-5" aria-hidden />}
            {stage !== 'idle' ? BUSY_LABEL[stage] : short ? `Need ${cost} Credits` : result ? 'Generate Again' : 'Generate Prompt'}
          </Button>
          <p className="text-center text-xs text-fg-muted">
            {file ? `Uses ${cost} ${cost === 1 ? 'credit' : 'credits'}. ` : 'Choose an image first. '}
            You have {credits.toLocaleString('en-US')} {credits === 1 ? 'credit' : 'credits'}.
          </p>
        </div>

        <div aria-live="polite">
          {result !== null && (
            <section ref={resultRef} aria-label="Extracted prompt" className="flex scroll-mb-6 flex-col gap-3">
              <h3 className="text-xs font-semibold uppercase tracking-wide text-fg-subtle">Extracted prompt</h3>
              {/* A long Detailed result scrolls inside its box, so 'Use This Prompt' stays in view under it. */}
              <p
                tabIndex={0}
                data-testid="extracted-prompt"
                className="max-h-56 overflow-y-auto whitespace-pre-wrap rounded-lg border border-border bg-bg-subtle p-4 text-sm leading-relaxed text-fg focus-visible:outline-2 focus-visible:outline-brand md:max-h-64"
              >
                {result}
              </p>
              <Button size="lg" className="w-full" onClick={() => onUsePrompt(result)}>
                Use This Prompt
              </Button>
            </section>
          )}
        </div>
      </div>
    </Dialog>
  );
}

/** The drop zone (click, keyboard or drag and drop) and, once a file is chosen, its preview. */
function ImagePicker({ extraction }: { extraction: PromptExtraction }) {
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const { file, previewUrl, busy } = extraction;

  const dropHandlers = {
    onDragOver: (e: DragEvent) => {
      e.preventDefault();
      e.dataTransfer.dropEffect = busy ? 'none' : 'copy';
      if (!busy) setDragging(true);
    },
    onDragLeave: (e: DragEvent) => {
      if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
    },
    onDrop: (e: DragEvent) => {
      e.preventDefault();
      setDragging(false);
      const dropped = e.dataTransfer.files[0];
      if (dropped && !busy) extraction.chooseFile(dropped);
    },
  };

  const input = (
    <input
      ref={inputRef}
      id={inputId}
      type="file"
      accept={ACCEPTED_TYPES.join(',')}
      aria-label="Choose an image"
      className="peer sr-only"
      // With a file chosen, 'Change' opens the picker instead, so the hidden input leaves the tab order.
      tabIndex={file ? -1 : undefined}
      disabled={busy}
      onChange={(e) => {
        const chosen = e.target.files?.[0];
        // Cleared every time, so choosing the same file again (or after an error) still counts as a choice.
        e.target.value = '';
        if (chosen) extraction.chooseFile(chosen);
      }}
    />
  );

  // The input stays first and mounted in both layouts, so choosing a file from the keyboard keeps the focus.
  if (!file) {
    return (
      <>
        {input}
        <label
          htmlFor={inputId}
          {...dropHandlers}
          data-testid="extract-drop-zone"
          className={cn(
            'flex cursor-pointer flex-col items-center justify-center gap-3 rounded-lg border-2 border-dashed px-6 py-10 text-center transition-colors',
            'peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-brand',
            dragging ? 'border-brand bg-brand-soft' : 'border-border-strong bg-bg-subtle hover:border-brand/60 hover:bg-brand-soft/40',
          )}
        >
          <span className="flex size-12 items-center justify-center rounded-full bg-brand-soft text-brand">
            <ImageUp className="size-6" aria-hidden />
          </span>
          <span className="text-sm font-semibold text-fg">
            <span className="max-md:hidden">Drop an image here or </span>
            <span className="text-brand underline-offset-2 hover:underline">
              <span className="md:hidden">Choose an image</span>
              <span className="max-md:hidden">browse</span>
            </span>
          </span>
          <span className="text-xs text-fg-muted">JPG, PNG or WEBP, up to 5MB</span>
        </label>
      </>
    );
  }

  return (
    <>
      {input}
      <div className="flex flex-col gap-3" {...dropHandlers} data-testid="extract-drop-zone">
        <div
          className={cn(
            'flex h-48 items-center justify-center overflow-hidden rounded-lg border bg-bg-subtle transition-colors md:h-60',
            dragging ? 'border-2 border-dashed border-brand' : 'border-border',
          )}
        >
          {previewUrl && <img src={previewUrl} alt="Selected image preview" className="max-h-full max-w-full object-contain" />}
        </div>
        <div className="flex items-center gap-3">
          <div className="min-w-0 flex-1">
            <p className="truncate text-sm font-medium text-fg" title={file.name}>
              {file.name}
            </p>
            <p className="text-xs text-fg-muted">{formatSize(file.size)}</p>
          </div>
          <Button variant="outline" size="sm" disabled={busy} onClick={() => inputRef.current?.click()}>
            <RefreshCw className="size-4" aria-hidden />
            Change
          </Button>
          <Button variant="ghost" size="sm" disabled={busy} onClick={extraction.clearFile} aria-label="Remove image">
            <Trash2 className="size-4" aria-hidden />
          </Button>
        </div>
      </div>
    </>
  );
}
