import { Loader2 } from 'lucide-react';
import type { Plan } from '@common/plans';
import { PlanFeatureList } from '@/components/plan-feature-list';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { cn } from '@/lib/cn';

export interface PlanCardProps {
  plan: Plan;
  /** What the button says: 'Choose plan', 'Upgrade', 'Processing...', 'Offline'… */
  label: string;
  current: boolean;
  processing: boolean;
  disabled: boolean;
  onSelect: () => void;
}

/** One plan of the table (product §9): price, credits, approximate photos, trainings and features. */
export function PlanCard({ plan, label, current, processing, disabled, onSelect }: PlanCardProps) {
  const highlighted = current || plan.popular;
  return (
    <Card
      data-testid={`plan-${plan.id}`}
      aria-labelledby={`plan-${plan.id}-name`}
      role="group"
      className={cn(
        'relative flex flex-col p-6 md:p-7',
        current ? 'border-brand ring-2 ring-brand' : plan.popular && 'border-brand/40 ring-1 ring-brand/30',
      )}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id={`plan-${plan.id}-name`} className="text-lg font-semibold">
          {plan.name}
        </h3>
        <div className="flex flex-wrap gap-1.5">
          {current && <span className="rounded-full bg-success-soft px-2.5 py-0.5 text-xs font-semibold text-success">Current plan</span>}
          {plan.popular && <span className="rounded-full bg-brand px-2.5 py-0.5 text-xs font-semibold text-brand-fg">Popular</span>}
        </div>
      </div>
      <p className="mt-4 flex items-baseline gap-1">
        <span className="text-4xl font-bold tracking-tight">${plan.priceUsd}</span>
        <span className="text-sm text-fg-muted">/month</span>
      </p>
      <p className="mt-1 text-sm font-semibold text-brand">{plan.creditsText} per month</p>
      <PlanFeatureList features={plan.features} className="mt-6 flex-1 border-t border-border pt-6" />
      <Button
        size="lg"
        variant={highlighted ? 'primary' : 'outline'}
        // A long label wraps instead of being clipped on a narrow card.
        className="mt-8 h-auto! min-h-12 w-full py-2 whitespace-normal!"
        disabled={disabled || processing}
        aria-busy={processing || undefined}
        onClick={onSelect}
      >
        {processing && <Loader2 className="size-4 animate-spin" aria-hidden />}
        {label}
      </Button>
    </Card>
  );
}
