import { forwardRef, useId, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes } from 'react';
import { cn } from '@/lib/cn';

const fieldClasses =
  'w-full rounded-md border border-border-strong bg-bg px-3 text-sm text-fg placeholder:text-fg-subtle shadow-xs transition-colors ' +
  'focus:border-brand focus:outline-none focus:ring-2 focus:ring-brand/20 disabled:bg-bg-subtle disabled:text-fg-subtle ' +
  'aria-invalid:border-danger aria-invalid:ring-danger/20';

interface FieldProps {
  label: ReactNode;
  error?: string | null;
  hint?: ReactNode;
}

/** The id of a field's control and the aria attributes that tie it to its error or hint. */
function useFieldControl(id: string | undefined, { error, hint }: Omit<FieldProps, 'label'>) {
  const autoId = useId();
  const controlId = id ?? autoId;
  return {
    id: controlId,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? `${controlId}-error` : hint ? `${controlId}-hint` : undefined,
  };
}

/** Label, control, then the error (or else the hint) below it. */
function FieldFrame({
  controlId,
  label,
  error,
  hint,
  className,
  children,
}: FieldProps & { controlId: string; className?: string; children: ReactNode }) {
  return (
    <div className={cn('flex flex-col gap-1.5', className)}>
      <label htmlFor={controlId} className="text-sm font-medium text-fg">
        {label}
      </label>
      {children}
      {error ? (
        <p id={`${controlId}-error`} className="text-sm text-danger">
          {error}
        </p>
      ) : hint ? (
        <p id={`${controlId}-hint`} className="text-xs text-fg-muted">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

export const Input = forwardRef<HTMLInputElement, InputHTMLAttributes<HTMLInputElement> & FieldProps>(function Input(
  { label, error, hint, className, id, ...rest },
  ref,
) {
  const control = useFieldControl(id, { error, hint });
  return (
    <FieldFrame controlId={control.id} label={label} error={error} hint={hint} className={className}>
      <input ref={ref} {...control} className={cn(fieldClasses, 'h-10')} {...rest} />
    </FieldFrame>
  );
});

export const Textarea = forwardRef<HTMLTextAreaElement, TextareaHTMLAttributes<HTMLTextAreaElement> & FieldProps>(function Textarea(
  { label, error, hint, className, id, ...rest },
  ref,
) {
  const control = useFieldControl(id, { error, hint });
  return (
    <FieldFrame controlId={control.id} label={label} error={error} hint={hint} className={className}>
      <textarea ref={ref} {...control} className={cn(fieldClasses, 'min-h-24 py-2 leading-relaxed')} {...rest} />
    </FieldFrame>
  );
});
