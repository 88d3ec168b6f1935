import { useId } from 'react';
import { cn } from '@/lib/cn';

export interface SliderFieldProps {
  label: string;
  value: number;
  min: number;
  max: number;
  step: number;
  onChange: (value: number) => void;
  /** How the value reads next to the label (e.g. one decimal for guidance). */
  format?: (value: number) => string;
  disabled?: boolean;
  hint?: string;
}

/** A labelled range input with its current value; keyboard arrows move it by `step`. */
export function SliderField({ label, value, min, max, step, onChange, format = String, disabled, hint }: SliderFieldProps) {
  const id = useId();
  return (
    // Disabled, the control greys out but its words stay readable (WCAG AA): the hint says why it is off.
    <div className="flex flex-col gap-1.5">
      <div className="flex items-center justify-between gap-2">
        <label htmlFor={id} className={cn('text-sm font-medium', disabled ? 'text-fg-muted' : 'text-fg')}>
          {label}
        </label>
        <output
          htmlFor={id}
          className={cn('rounded-md bg-bg-muted px-2 py-0.5 text-xs font-semibold tabular-nums', disabled ? 'text-fg-muted' : 'text-fg')}
        >
          {format(value)}
        </output>
      </div>
      <input
        id={id}
        type="range"
        min={min}
        max={max}
        step={step}
        value={value}
        disabled={disabled}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => onChange(Number(e.target.value))}
        className="h-6 w-full cursor-pointer accent-brand disabled:cursor-not-allowed disabled:opacity-50"
      />
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-fg-muted">
          {hint}
        </p>
      )}
    </div>
  );
}
