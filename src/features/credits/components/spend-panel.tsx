import { useState } from 'react';
import { LEDGER_ENTRY_LABELS, SPEND_RANGES, type SpendRange } from '@common/credits';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { ErrorState } from '@/components/ui/states';
import { cn } from '@/lib/cn';
import { useSpend } from '../api';
import { formatCredits, formatDay } from '../lib/format';
import { CREDITS_TEXTS } from '../lib/messages';
import { SpendChart } from './spend-chart';

/** This period's spend by kind, and the chart of spend per day over 30 or 90 days. */
export function SpendPanel() {
  const [days, setDays] = useState<SpendRange>(30);
  const spend = useSpend(days);

  return (
    <Card className="flex flex-col gap-5 p-5 md:p-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 className="text-lg font-semibold">Spending</h2>
        <div role="group" aria-label="Days shown" className="inline-flex rounded-md border border-border p-0.5">
          {SPEND_RANGES.map((range) => (
            <button
              key={range}
              type="button"
              aria-pressed={days === range}
              onClick={() => setDays(range)}
              className={cn(
                'rounded px-3 py-1 text-sm font-medium',
                days === range ? 'bg-brand-soft text-brand' : 'text-fg-muted hover:text-fg',
              )}
            >
              {range} days
            </button>
          ))}
        </div>
      </div>

      {spend.isPending ? (
        <div className="grid h-48 place-items-center">
          <Spinner label="Loading your spending" />
        </div>
      ) : spend.isError ? (
        <ErrorState title={CREDITS_TEXTS.spendError} onRetry={() => void spend.refetch()} />
      ) : (
        <>
          <section aria-labelledby="spend-by-kind">
            <h3 id="spend-by-kind" className="text-sm text-fg-muted">
              This period, since {formatDay(spend.data.period_start.slice(0, 10))}
            </h3>
            <dl className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-6">
              {spend.data.by_kind.map(({ kind, credits }) => (
                <div key={kind} className="rounded-md bg-bg-subtle px-3 py-2">
                  <dt className="text-xs text-fg-muted">{LEDGER_ENTRY_LABELS[kind]}</dt>
                  <dd className="text-base font-semibold tabular-nums">{formatCredits(credits)}</dd>
                </div>
              ))}
            </dl>
            {spend.data.refunded > 0 && (
              <p className="mt-2 text-xs text-fg-muted">{formatCredits(spend.data.refunded)} credits were refunded this period.</p>
            )}
          </section>
          <SpendChart perDay={spend.data.per_day} days={spend.data.days} />
        </>
      )}
    </Card>
  );
}
