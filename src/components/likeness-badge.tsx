import { LIKENESS_TEXTS, type LikenessVerdict } from '@common/likeness';
import { cn } from '@/lib/cn';

const TONES: Record<LikenessVerdict, string> = {
  strong: 'border-success-border bg-success-soft text-success',
  weak: 'border-warning-border bg-warning-soft text-warning',
  no_face: 'border-warning-border bg-warning-soft text-warning',
};

/**
 * 'Strong likeness', 'Weak likeness' or 'No face found': an image's likeness to its character, once it was
 * checked (nothing before, or without a reference face). The viewer and the shoot page show it.
 */
export function LikenessBadge({
  likeness,
  verdict,
  className,
}: {
  likeness: number | null;
  verdict: LikenessVerdict | null;
  className?: string;
}) {
  if (!verdict) return null;
  return (
    <span
      data-testid="likeness-badge"
      title={verdict === 'no_face' ? undefined : `Likeness ${likeness ?? 0} of 100`}
      className={cn('inline-flex shrink-0 items-center rounded-full border px-2 py-0.5 text-xs font-medium', TONES[verdict], className)}
    >
      {LIKENESS_TEXTS.badge[verdict]}
    </span>
  );
}
