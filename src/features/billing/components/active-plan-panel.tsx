import { BadgeCheck, CalendarClock, Coins, RefreshCw } from 'lucide-react';
import type { Plan } from '@common/plans';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';

const longDate = (iso: string) => new Date(iso).toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric' });

export interface ActivePlanPanelProps {
  plan: Plan;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  /** Disabled until the portal link has loaded, or while offline. */
  manageDisabled: boolean;
  manageLabel: string;
  onManage: () => void;
}

/**
 * The plan in force: name, monthly credits, renewal (or the day a cancelled plan ends) and the way to the
 * customer portal, where a cancelled plan can be resumed.
 */
export function ActivePlanPanel({
  plan,
  currentPeriodEnd,
  cancelAtPeriodEnd,
  manageDisabled,
  manageLabel,
  onManage,
}: ActivePlanPanelProps) {
  return (
    <Card className="flex flex-col gap-5 bg-gradient-to-br from-brand-soft via-bg to-bg p-6 md:flex-row md:items-center md:justify-between md:p-7">
      <div className="flex items-start gap-4">
        <div className="hidden rounded-xl bg-brand p-3 text-brand-fg sm:block">
          <BadgeCheck className="size-6" aria-hidden />
        </div>
        <div>
          <p className="text-sm font-medium text-fg-muted">Your current plan</p>
          <div className="mt-0.5 flex items-center gap-2">
            <h2 className="text-2xl font-bold">{plan.name} Plan</h2>
            <span className="rounded-full bg-success-soft px-2.5 py-0.5 text-xs font-semibold text-success">Active</span>
          </div>
          <ul className="mt-3 flex flex-col gap-1.5 text-sm text-fg-muted sm:flex-row sm:flex-wrap sm:gap-x-5">
            <li className="flex items-center gap-1.5">
              <Coins className="size-4 text-warning" aria-hidden />
              {plan.creditsText} per month
            </li>
            <li className="flex items-center gap-1.5" data-testid="plan-renewal">
              <RefreshCw className="size-4 text-brand" aria-hidden />
              {cancelAtPeriodEnd
                ? currentPeriodEnd
                  ? `Cancels on ${longDate(currentPeriodEnd)}`
                  : 'Canceled: it will not renew'
                : 'Renews automatically every month'}
            </li>
            {currentPeriodEnd && !cancelAtPeriodEnd && (
              <li className="flex items-center gap-1.5">
                <CalendarClock className="size-4 text-brand" aria-hidden />
                Current period ends {longDate(currentPeriodEnd)}
              </li>
            )}
          </ul>
        </div>
      </div>
      <Button size="lg" className="w-full md:w-auto" disabled={manageDisabled} onClick={onManage}>
        {manageLabel}
      </Button>
    </Card>
  );
}
