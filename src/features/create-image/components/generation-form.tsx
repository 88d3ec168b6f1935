import { useId, useState, type KeyboardEvent } from 'react';
import { Lock, LockOpen, ScanSearch, Sparkles, UserRound, X } from 'lucide-react';
import {
  ASPECT_PRESETS,
  DIMENSION,
  GENERATION_BOUNDS,
  OUTPUT_FORMATS,
  PROMPT_MAX_LENGTH,
  type GenerationCharacter,
} from '@common/generation';
import { EDIT_STRENGTH } from '@common/finishing';
import { CREDIT_COSTS } from '@common/product';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Input, Textarea } from '@/components/ui/input';
import { cn } from '@/lib/cn';
import { isPromptBlank, type GenerationForm as FormApi } from '../hooks/use-generation-form';
import { ExtractPromptPanel } from './extract-prompt-panel';
import { InspireMe } from './inspire-me';
import { SliderField } from './slider-field';

const sectionTitle = 'text-xs font-semibold uppercase tracking-wide text-fg-subtle';
const selectClasses =
  'h-11 w-full rounded-md border border-border-strong bg-bg px-3 text-sm text-fg shadow-xs focus:border-brand focus:outline-none focus:ring-2 focus:ring-brand/20 md:h-10';

export interface GenerationFormProps {
  formApi: FormApi;
  characters: GenerationCharacter[];
  charactersLoading: boolean;
  /** Why Generate cannot be pressed, as its label ('Need 10 Credits'); null when it can. */
  creditsShortLabel: string | null;
  canGenerate: boolean;
  busy: boolean;
  onGenerate: () => void;
}

/** Enter in a size field commits it like leaving the field does, and never submits. */
function commitOnEnter(commit: () => void) {
  return (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      commit();
    }
  };
}

/** The left column: prompt, character, size, sliders, seed and format (product §2, §5). */
export function GenerationForm({
  formApi,
  characters,
  charactersLoading,
  creditsShortLabel,
  canGenerate,
  busy,
  onGenerate,
}: GenerationFormProps) {
  const { form } = formApi;
  const [extractOpen, setExtractOpen] = useState(false);
  const characterId = useId();
  const seedId = useId();
  const generateHintId = useId();
  const promptMissing = isPromptBlank(form.prompt);
  const selected = characters.find((c) => c.lora_file_url === form.loraPath) ?? null;

  return (
    <Card className="p-5 md:p-6">
      <form
        aria-label="Image settings"
        className="flex flex-col gap-6"
        // Generate is a plain button: nothing in this form submits on Enter (product §5).
        onSubmit={(e) => e.preventDefault()}
      >
        <section className="flex flex-col gap-3">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h2 className={sectionTitle} aria-hidden>
              Prompt
            </h2>
            <div className="flex gap-2">
              <Button variant="outline" size="sm" onClick={() => setExtractOpen(true)}>
                <ScanSearch className="size-4" aria-hidden />
                Extract from Image
              </Button>
              <InspireMe onPick={formApi.setPrompt} />
            </div>
          </div>
          <div className={cn(form.editSource && 'flex items-start gap-3')}>
            {form.editSource && (
              <figure className="flex w-24 shrink-0 flex-col gap-1" data-testid="edit-source">
                <img
                  src={form.editSource.imageUrl}
                  alt="Starting point"
                  width={form.editSource.width}
                  height={form.editSource.height}
                  className="aspect-square w-full rounded-md border border-border object-cover"
                />
                <figcaption className="text-center text-[11px] text-fg-muted">Starting point</figcaption>
              </figure>
            )}
            <Textarea
              label="Prompt"
              className="min-w-0 flex-1 [&>label]:sr-only"
              value={form.prompt}
              onChange={(e) => formApi.setPrompt(e.target.value)}
              rows={5}
              placeholder={
                form.editSource
                  ? 'Describe what to change: the same scene, with…'
                  : 'Describe the image you want: subject, setting, light, mood…'
              }
              required
              maxLength={PROMPT_MAX_LENGTH}
            />
          </div>
          {form.editSource && (
            <div className="flex flex-col gap-3 rounded-md bg-bg-subtle p-3">
              <SliderField
                label="Strength"
                min={EDIT_STRENGTH.min}
                max={EDIT_STRENGTH.max}
                step={EDIT_STRENGTH.step}
                value={form.strength}
                onChange={formApi.setStrength}
                format={(v) => v.toFixed(2)}
                hint="How far the result may move from the starting point: low keeps most of it, high changes more."
              />
              <Button variant="ghost" size="sm" className="self-start" onClick={formApi.clearEditSource}>
                <X className="size-4" aria-hidden />
                Start from scratch
              </Button>
            </div>
          )}
          <ExtractPromptPanel
            open={extractOpen}
            onOpenChange={setExtractOpen}
            onUsePrompt={(text) => {
              formApi.setPrompt(text);
              setExtractOpen(false);
            }}
          />
        </section>

        <section className="flex flex-col gap-3">
          <label htmlFor={characterId} className={sectionTitle}>
            Character
          </label>
          <div className="flex items-center gap-3">
            <span className="flex size-11 shrink-0 items-center justify-center rounded-full bg-brand-soft text-brand md:size-10">
              <UserRound className="size-5" aria-hidden />
            </span>
            <select
              id={characterId}
              className={selectClasses}
              value={form.loraPath ?? ''}
              onChange={(e) => formApi.selectCharacter(e.target.value || null)}
              disabled={charactersLoading && !form.loraPath}
            >
              <option value="">No character</option>
              {characters.map((c) => (
                <option key={c.id} value={c.lora_file_url ?? ''}>
                  {c.character_name}
                </option>
              ))}
            </select>
          </div>
          {selected?.trigger_word && (
            <p className="text-xs text-fg-muted">
              Tip: mention <span className="font-semibold text-fg">{selected.trigger_word}</span> in your prompt to bring in{' '}
              {selected.character_name}.
            </p>
          )}
          {!charactersLoading && characters.length === 0 && (
            <p className="text-xs text-fg-muted">Train a character to put yourself in your images.</p>
          )}
        </section>

        <section className="flex flex-col gap-3">
          <h2 className={sectionTitle}>Size</h2>
          <div className="grid grid-cols-3 gap-2" role="group" aria-label="Aspect ratio">
            {ASPECT_PRESETS.map((p) => {
              const active = form.width === p.width && form.height === p.height;
              return (
                <button
                  key={p.label}
                  type="button"
                  aria-pressed={active}
                  onClick={() => formApi.applyPreset(p.width, p.height)}
                  className={cn(
                    'flex h-12 flex-col items-center justify-center rounded-md border text-sm font-semibold transition-colors md:h-11',
                    active ? 'border-brand bg-brand-soft text-brand' : 'border-border-strong bg-bg text-fg hover:bg-bg-subtle',
                  )}
                >
                  {p.label}
                  <span className="text-[11px] font-normal text-fg-muted">
                    {p.width}×{p.height}
                  </span>
                </button>
              );
            })}
          </div>
          <div className="grid grid-cols-2 gap-3">
            <Input
              label="Width"
              inputMode="numeric"
              value={form.widthText}
              onChange={(e) => formApi.setWidthText(e.target.value)}
              onBlur={formApi.commitWidth}
              onKeyDown={commitOnEnter(formApi.commitWidth)}
            />
            <Input
              label="Height"
              inputMode="numeric"
              value={form.heightText}
              onChange={(e) => formApi.setHeightText(e.target.value)}
              onBlur={formApi.commitHeight}
              onKeyDown={commitOnEnter(formApi.commitHeight)}
            />
          </div>

          {/* Always in the page, so that screen readers hear a note appear. */}
          <p role="status" data-testid="size-note" className="-mt-1 min-h-0 text-xs font-medium text-amber-700 empty:sr-only">
            {formApi.sizeNote}
          </p>
          <p className="-mt-1 text-xs text-fg-muted">
            {DIMENSION.min}–{DIMENSION.max} pixels, in steps of {DIMENSION.step}.
          </p>
        </section>

        <section className="flex flex-col gap-5">
          <h2 className={sectionTitle}>Settings</h2>
          <SliderField label="Inference steps" {...GENERATION_BOUNDS.steps} value={form.steps} onChange={formApi.setSteps} />
          <SliderField
            label="Guidance scale"
            {...GENERATION_BOUNDS.guidance}
            value={form.guidance}
            onChange={formApi.setGuidance}
            format={(v) => v.toFixed(1)}
          />
          <SliderField
            label="LoRA power"
            {...GENERATION_BOUNDS.loraScale}
            value={form.loraScale}
            onChange={formApi.setLoraScale}
            format={(v) => v.toFixed(2)}
            disabled={!form.loraPath}
            hint={form.loraPath ? undefined : 'Choose a character to adjust how strongly it shows.'}
          />

          <div className="flex flex-col gap-1.5">
            <label htmlFor={seedId} className="text-sm font-medium text-fg">
              Seed
            </label>
            <div className="flex gap-2">
              <input
                id={seedId}
                inputMode="numeric"
                autoComplete="off"
                value={form.seed}
                onChange={(e) => formApi.setSeed(e.target.value)}
                onKeyDown={(e) => e.key === 'Enter' && e.preventDefault()}
                placeholder="Random"
                aria-describedby={`${seedId}-hint`}
                className="h-11 min-w-0 flex-1 rounded-md border border-border-strong bg-bg px-3 text-sm tabular-nums shadow-xs focus:border-brand focus:outline-none focus:ring-2 focus:ring-brand/20 md:h-10"
              />
              <button
                type="button"
                aria-pressed={form.seedLocked}
                aria-label="Lock seed"
                title={form.seedLocked ? 'Seed locked' : 'Seed unlocked'}
                onClick={formApi.toggleSeedLock}
                className={cn(
                  'flex size-11 shrink-0 items-center justify-center rounded-md border transition-colors md:size-10',
                  form.seedLocked
                    ? 'border-brand bg-brand text-brand-fg hover:bg-brand-hover'
                    : 'border-border-strong bg-bg text-fg-muted hover:bg-bg-subtle hover:text-fg',
                )}
              >
                {form.seedLocked ? <Lock className="size-4" aria-hidden /> : <LockOpen className="size-4" aria-hidden />}
              </button>
            </div>
            <p id={`${seedId}-hint`} className="text-xs text-fg-muted">
              {form.seedLocked && form.seed !== '' ? 'This seed is used for every image.' : 'Unlocked: each image gets a random seed.'}
            </p>
          </div>

          <fieldset className="flex flex-col gap-1.5">
            <legend className="mb-1.5 text-sm font-medium text-fg">Output format</legend>
            <div className="grid grid-cols-2 gap-2">
              {OUTPUT_FORMATS.map((format) => (
                <label
                  key={format}
                  className={cn(
                    'flex h-11 cursor-pointer items-center justify-center rounded-md border text-sm font-semibold uppercase transition-colors md:h-10',
                    'has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-brand',
                    form.outputFormat === format
                      ? 'border-brand bg-brand-soft text-brand'
                      : 'border-border-strong bg-bg text-fg hover:bg-bg-subtle',
                  )}
                >
                  <input
                    type="radio"
                    name="output-format"
                    value={format}
                    checked={form.outputFormat === format}
                    onChange={() => formApi.setOutputFormat(format)}
                    className="sr-only"
                  />
                  {format}
                </label>
              ))}
            </div>
          </fieldset>
        </section>

        {/* The form is taller than a laptop screen: Generate and its cost stay in reach while it scrolls. */}
        <div
          className="sticky bottom-0 z-10 -mx-5 -mb-5 flex flex-col gap-2 rounded-b-lg border-t border-border bg-bg/95 px-5 pt-3 pb-4 backdrop-blur md:-mx-6 md:-mb-6 md:px-6"
          data-testid="generate-bar"
        >
          <Button
            size="lg"
            className="w-full"
            disabled={!canGenerate}
            onClick={onGenerate}
            aria-describedby={promptMissing ? generateHintId : undefined}
          >
            <Sparkles className="size-5" aria-hidden />
            {creditsShortLabel ?? 'Generate'}
          </Button>
          {/* Why Generate is greyed out when the button's own label ('Need 10 Credits') does not say it. */}
          {promptMissing && (
            <p id={generateHintId} className="text-center text-sm font-medium text-fg" data-testid="generate-hint">
              Write a prompt first
            </p>
          )}
          <p className="text-center text-xs text-fg-muted">
            {busy ? 'Another click adds an image to the queue. ' : ''}Each image uses {CREDIT_COSTS.generation} credits.
          </p>
        </div>
      </form>
    </Card>
  );
}
