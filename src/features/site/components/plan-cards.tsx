import { Link } from 'react-router';
import { PlanFeatureList } from '@/components/plan-feature-list';
import { buttonClasses } from '@/components/ui/button';
import { cn } from '@/lib/cn';
import { PLANS } from '@common/plans';
import { useStartPath } from '../hooks/use-start-path';

/** The three plans of common/plans.ts; 'Choose plan' leads to the app when signed in, else to sign-up. */
export function PlanCards({ headingLevel = 3 }: { headingLevel?: 2 | 3 }) {
  const startPath = useStartPath();
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <ul className="mx-auto grid max-w-5xl gap-6 md:grid-cols-3 md:items-stretch">
      {PLANS.map((plan) => (
        <li
          key={plan.id}
          data-testid={`plan-${plan.id}`}
          className={cn(
            'relative flex flex-col rounded-xl border bg-bg p-6 shadow-card',
            plan.popular ? 'border-brand ring-2 ring-brand md:-my-3 md:py-9' : 'border-border',
          )}
        >
          {plan.popular && (
            <span className="absolute -top-3 left-1/2 -translate-x-1/2 rounded-full bg-brand px-3 py-1 text-xs font-semibold text-brand-fg">
              Popular
            </span>
          )}
          <Heading className="text-lg font-semibold">{plan.name}</Heading>
          <p className="mt-4 flex items-baseline gap-1">
            <span className="text-4xl font-bold tracking-tight">${plan.priceUsd}</span>
            <span className="text-fg-muted">/month</span>
          </p>
          <p className="mt-1 font-medium text-brand">{plan.creditsText} per month</p>
          <PlanFeatureList features={plan.features} className="mt-6 flex-1" />
          <Link
            to={startPath}
            aria-label={`Choose plan: ${plan.name}`}
            className={buttonClasses(plan.popular ? 'primary' : 'outline', 'lg', 'mt-8 w-full')}
          >
            Choose plan
          </Link>
        </li>
      ))}
    </ul>
  );
}
