import { useEffect, useId, useRef, type ReactNode } from 'react';
import { AlertCircle, Camera, Trash2, Wand2 } from 'lucide-react';
import { CREDIT_COSTS } from '@common/product';
import { GENDERS, HAIR_COLORS, TRAINING_MESSAGES } from '@common/training';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import type { PhotoChecks } from '../hooks/use-photo-checks';
import type { TrainingFormApi } from '../hooks/use-training-form';
import { PhotoUpload } from './photo-upload';
import { TEXT_LIMITS } from '@common/text';

const selectClasses =
  'h-10 w-full rounded-md border border-border-strong bg-bg px-3 text-sm text-fg shadow-xs capitalize focus:border-brand focus:outline-none focus:ring-2 focus:ring-brand/20 disabled:bg-bg-subtle';
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export interface TrainingFormProps {
  formApi: TrainingFormApi;
  checks: PhotoChecks;
  busy: boolean;
  canSubmit: boolean;
  uploading: boolean;
  /** Why the last click could not submit; shown beside the button, where the eye is. */
  validation?: string | null;
  onSubmit: () => void;
}

/** The reason a click on 'Start Training' did nothing, next to the button, brought into view and focused. */
function SubmitProblem({ message }: { message: string }) {
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    ref.current?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
    ref.current?.focus({ preventScroll: true });
  }, [message]);
  return (
    <p
      ref={ref}
      tabIndex={-1}
      className="flex items-start gap-2 text-sm font-medium text-danger outline-none"
      data-testid="training-submit-problem"
    >
      <AlertCircle className="mt-0.5 size-4 shrink-0" aria-hidden />
      {message}
    </p>
  );
}

/** The photo checks in one line ('12 photos: 10 good, 2 with problems'), what is wrong, and one tap to remove those photos. */
function CheckSummary({ formApi, checks, disabled }: { formApi: TrainingFormApi; checks: PhotoChecks; disabled: boolean }) {
  if (!checks.summary) return null;
  const problems = checks.withProblems;
  return (
    <div className="mt-3 border-t border-border pt-3" data-testid="photo-check-summary">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="font-medium" aria-live="polite">
          {checks.summary}
        </p>
        {problems.length > 0 && (
          // Its label wraps rather than push the page sideways on a narrow phone.
          <Button
            variant="outline"
            size="sm"
            className="h-auto! min-h-8 py-1.5 text-left whitespace-normal!"
            disabled={disabled}
            onClick={() => formApi.removePhotos(problems.map((p) => p.id))}
          >
            <Trash2 className="size-3.5" aria-hidden />
            {problems.length === 1 ? 'Remove the photo with a problem' : `Remove ${problems.length} photos with problems`}
          </Button>
        )}
      </div>
      {problems.length > 0 && (
        <ul className="mt-2 grid gap-1 text-xs text-fg-muted">
          {problems.map((p) => (
            <li key={p.id}>
              <span className="font-medium text-fg">
                Photo {p.number}: {p.badge}.
              </span>{' '}
              {p.hint}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Guidance for choosing photos (product §2), with the checks' summary beside it. */
function Guidance({ children }: { children?: ReactNode }) {
  return (
    <div className="flex gap-3 rounded-lg border border-border bg-bg-subtle p-4 text-sm">
      <Camera className="mt-0.5 size-5 shrink-0 text-brand" aria-hidden />
      <div className="min-w-0 flex-1">
        <p className="font-medium">Upload 10–20 high-quality photos of the same person</p>
        <ul className="mt-2 grid gap-1 text-fg-muted">
          <li>
            <span className="font-medium text-fg">About 50%</span> close-up (face and shoulders)
          </li>
          <li>
            <span className="font-medium text-fg">About 40%</span> half-body
          </li>
          <li>
            <span className="font-medium text-fg">About 10%</span> full-body
          </li>
        </ul>
        {children}
      </div>
    </div>
  );
}

/** A labelled drop-down of a fixed list of lowercase choices, shown capitalised. */
function ChoiceSelect<T extends string>(props: {
  label: string;
  options: readonly T[];
  value: T;
  onChange: (value: T) => void;
  disabled: boolean;
}) {
  const id = useId();
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium">
        {props.label}
      </label>
      <select
        id={id}
        className={selectClasses}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value as T)}
        disabled={props.disabled}
      >
        {props.options.map((option) => (
          <option key={option} value={option}>
            {capitalise(option)}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The training form: name, trigger word, gender, hair colour, photos, guidance and submit (product §2, §5). */
export function TrainingForm({ formApi, checks, busy, canSubmit, uploading, validation = null, onSubmit }: TrainingFormProps) {
  const { form, defaultTrigger } = formApi;
  const nameError = form.nameTouched && !form.characterName.trim() ? TRAINING_MESSAGES.nameRequired : null;

  return (
    <Card className="p-5 md:p-6">
      <form
        aria-label="Character training"
        className="flex flex-col gap-6"
        onSubmit={(e) => {
          e.preventDefault();
          if (canSubmit) onSubmit();
        }}
      >
        <section className="grid gap-4 sm:grid-cols-2">
          <Input
            label="Character name"
            value={form.characterName}
            onChange={(e) => formApi.setCharacterName(e.target.value)}
            onBlur={formApi.touchName}
            placeholder="e.g. Dana"
            maxLength={TEXT_LIMITS.characterName}
            error={nameError}
            disabled={busy}
            autoComplete="off"
          />
          <Input
            label="Trigger word"
            value={form.triggerWord}
            onChange={(e) => formApi.setTriggerWord(e.target.value)}
            placeholder={defaultTrigger || 'e.g. dana'}
            maxLength={TEXT_LIMITS.triggerWord}
            hint="Lowercase letters a–z; use it in prompts to call your character."
            disabled={busy}
            autoComplete="off"
            spellCheck={false}
          />
          <ChoiceSelect label="Gender" options={GENDERS} value={form.gender} onChange={formApi.setGender} disabled={busy} />
          <ChoiceSelect label="Hair color" options={HAIR_COLORS} value={form.hairColor} onChange={formApi.setHairColor} disabled={busy} />
        </section>

        <PhotoUpload
          photos={form.photos}
          verdicts={checks.verdicts}
          onAdd={formApi.addFiles}
          onRemove={formApi.removePhoto}
          onRetryCheck={checks.retry}
          disabled={busy}
        />
        <Guidance>
          <CheckSummary formApi={formApi} checks={checks} disabled={busy} />
        </Guidance>

        <div className="flex flex-col gap-3 border-t border-border pt-5">
          {validation && <SubmitProblem message={validation} />}
          <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
            <p className="text-xs text-fg-muted">
              Training uses <span className="font-semibold text-fg">{CREDIT_COSTS.training} credits</span>.
            </p>
            <Button type="submit" size="lg" disabled={!canSubmit} busy={busy} className="w-full sm:w-auto">
              {!busy && <Wand2 className="size-4" aria-hidden />}
              {uploading ? 'Uploading…' : busy ? 'Submitting…' : 'Start Training'}
            </Button>
          </div>
        </div>
      </form>
    </Card>
  );
}
