import { Check } from 'lucide-react';
import { cn } from '@/lib/cn';

/** A plan's features as a checked list, shared by the public pricing cards and the subscription page. */
export function PlanFeatureList({ features, className }: { features: readonly string[]; className?: string }) {
  return (
    <ul className={cn('flex flex-col gap-3 text-sm', className)}>
      {features.map((feature) => (
        <li key={feature} className="flex items-start gap-2.5">
          <Check className="mt-0.5 size-4 shrink-0 text-success" aria-hidden />
          <span>{feature}</span>
        </li>
      ))}
    </ul>
  );
}
