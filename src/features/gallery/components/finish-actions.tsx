import { useEffect, useId, useRef, useState } from 'react';
import { Maximize2, PencilLine, RefreshCw } from 'lucide-react';
import { sourceLabel, UPSCALE_COSTS, UPSCALE_FACTORS, upscaledSize, upscaleTooLargeMessage, type UpscaleFactor } from '@common/finishing';
import type { GenerationSource, GenerationView } from '@common/generation';
import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';
import type { GalleryItem } from '../lib/gallery-item';
import type { GalleryActions } from '../hooks/use-gallery-actions';

type Outcome = { tone: 'success'; text: string; generation: GenerationView } | { tone: 'error'; text: string };

/**
 * Finishing a result in the viewer: 'Upscale 2×' and 'Upscale 4×' with their credit cost, and
 * 'Edit with a prompt'. Both upscale buttons are disabled while one runs (a double click charges once), and an
 * upscale past the 4096 px limit is disabled with the reason.
 */
export function FinishActions({
  item,
  actions,
  onOpenGeneration,
  className,
}: {
  item: GalleryItem;
  actions: GalleryActions;
  onOpenGeneration: (id: string) => void;
  className?: string;
}) {
  const [running, setRunning] = useState<UpscaleFactor | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  // Another image in the viewer: its own outcome.
  useEffect(() => setOutcome(null), [item.id]);

  const tooLarge = UPSCALE_FACTORS.filter((f) => !upscaledSize(item.width, item.height, f));
  const run = async (factor: UpscaleFactor) => {
    if (running) return;
    setRunning(factor);
    setOutcome(null);
    const result = await actions.upscale(item, factor);
    if (!mounted.current) return;
    setRunning(null);
    setOutcome(
      'error' in result
        ? { tone: 'error', text: result.error }
        : { tone: 'success', text: `Upscaled ${factor}× — added to My Generations.`, generation: result.generation },
    );
  };

  return (
    <section aria-label="Finish this image" className={cn('flex flex-col gap-2', className)}>
      <div className="grid grid-cols-2 gap-2">
        {UPSCALE_FACTORS.map((factor) => (
          <Button
            key={factor}
            variant="outline"
            onClick={() => void run(factor)}
            busy={running === factor}
            disabled={running !== null || tooLarge.includes(factor)}
            title={tooLarge.includes(factor) ? upscaleTooLargeMessage(item.width, item.height, factor) : undefined}
            className="h-auto flex-col gap-0 py-2"
          >
            <span className="inline-flex items-center gap-1.5">
              {running !== factor && <Maximize2 className="size-4" aria-hidden />}
              Upscale {factor}×
            </span>
            <span className="text-xs font-normal text-fg-muted">{UPSCALE_COSTS[factor]} credits</span>
          </Button>
        ))}
      </div>
      {tooLarge.length > 0 && <p className="text-xs text-fg-muted">{upscaleTooLargeMessage(item.width, item.height, tooLarge[0])}</p>}
      {running && (
        <p className="text-xs text-fg-muted" aria-live="polite">
          Upscaling {running}×… this can take a little while.
        </p>
      )}
      {outcome && (
        <p
          role={outcome.tone === 'error' ? 'alert' : 'status'}
          className={cn('text-sm', outcome.tone === 'error' ? 'text-danger' : 'text-fg')}
        >
          {outcome.text}{' '}
          {outcome.tone === 'success' && (
            <button type="button" className="font-semibold text-brand underline" onClick={() => onOpenGeneration(outcome.generation.id)}>
              Open it
            </button>
          )}
        </p>
      )}
      <Button variant="outline" onClick={() => actions.editWithPrompt(item)} disabled={running !== null}>
        <PencilLine className="size-4" aria-hidden />
        Edit with a prompt
      </Button>
    </section>
  );
}

/** 'Regenerate' with 'Keep the seed' (off by default, as before). */
export function RegenerateControl({ item, actions, className }: { item: GalleryItem; actions: GalleryActions; className?: string }) {
  const [keepSeed, setKeepSeed] = useState(false);
  const id = useId();
  return (
    <div className={cn('flex flex-col gap-1.5', className)}>
      <Button variant="outline" onClick={() => actions.regenerate(item, { keepSeed })}>
        <RefreshCw className="size-4" aria-hidden />
        Regenerate
      </Button>
      <KeepSeedCheckbox id={id} checked={keepSeed} onChange={setKeepSeed} disabled={!item.seed} />
    </div>
  );
}

export function KeepSeedCheckbox({
  id,
  checked,
  onChange,
  disabled,
}: {
  id: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  disabled?: boolean;
}) {
  return (
    <label htmlFor={id} className={cn('inline-flex items-center gap-2 text-xs text-fg-muted', disabled && 'opacity-60')}>
      <input
        id={id}
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.target.checked)}
        className="size-4 accent-brand"
      />
      Keep the seed
    </label>
  );
}

/** 'Upscaled 2× from …' / 'Edited from …' with a link that opens the source. */
export function SourceLink({ origin, onOpen }: { origin: GenerationSource; onOpen: (id: string) => void }) {
  return (
    <p className="text-sm text-fg-muted" data-testid="source-link">
      {sourceLabel(origin)}{' '}
      <button
        type="button"
        onClick={() => onOpen(origin.id)}
        // Padded out to a finger's size (the id alone is ~16 px high) without moving the line around it.
        className="-mx-1 -my-2 inline-block rounded px-1 py-2 font-mono text-xs font-semibold text-brand underline hover:bg-brand-soft"
        title={origin.id}
      >
        {origin.id.slice(0, 8)}…
      </button>
    </p>
  );
}
