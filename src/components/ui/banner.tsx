import type { ReactNode } from 'react';
import { AlertTriangle, CheckCircle2, Info, X, XCircle } from 'lucide-react';
import { cn } from '@/lib/cn';

type Tone = 'red' | 'green' | 'blue' | 'amber';

const tones: Record<Tone, { box: string; icon: ReactNode }> = {
  red: { box: 'border-danger-border bg-danger-soft text-danger', icon: <XCircle className="size-5 shrink-0" aria-hidden /> },
  green: { box: 'border-success-border bg-success-soft text-success', icon: <CheckCircle2 className="size-5 shrink-0" aria-hidden /> },
  blue: { box: 'border-info-border bg-info-soft text-info', icon: <Info className="size-5 shrink-0" aria-hidden /> },
  amber: { box: 'border-warning-border bg-warning-soft text-warning', icon: <AlertTriangle className="size-5 shrink-0" aria-hidden /> },
};

export interface BannerProps {
  tone: Tone;
  title?: ReactNode;
  children?: ReactNode;
  action?: ReactNode;
  onDismiss?: () => void;
  className?: string;
}

/** A message strip: red for errors, green for success, blue for status, amber for warnings. */
export function Banner({ tone, title, children, action, onDismiss, className }: BannerProps) {
  return (
    <div
      role={tone === 'red' ? 'alert' : 'status'}
      className={cn('flex items-start gap-3 rounded-md border px-4 py-3 text-sm', tones[tone].box, className)}
    >
      {tones[tone].icon}
      <div className="min-w-0 flex-1">
        {title && <p className="font-semibold">{title}</p>}
        {children && <div className={cn(title ? 'mt-0.5' : '', 'text-fg/80')}>{children}</div>}
      </div>
      {action}
      {onDismiss && (
        <button type="button" onClick={onDismiss} aria-label="Dismiss" className="-m-1 rounded p-1 opacity-70 hover:opacity-100">
          <X className="size-4" />
        </button>
      )}
    </div>
  );
}
