import { useId, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import type { SpendSummary } from '@common/credits';
import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';
import { useElementWidth } from '../hooks/use-element-width';
import { formatCredits, formatDay, formatDayShort } from '../lib/format';

const HEIGHT = 220;

/**
 * Credits spent per day (refunds subtracted): a bar chart drawn by recharts as SVG, and the same figures as a table.
 * The chart is hidden from screen readers, which read the table (visually hidden until 'Show table' shows it in the
 * chart's place), so the numbers never exist only as a picture.
 */
export function SpendChart({ perDay, days }: { perDay: SpendSummary['per_day']; days: number }) {
  const [asTable, setAsTable] = useState(false);
  const { ref, width } = useElementWidth<HTMLDivElement>(640);
  const captionId = useId();
  const total = perDay.reduce((sum, d) => sum + d.credits, 0);
  const data = perDay.map((d) => ({ ...d, label: formatDayShort(d.day) }));

  return (
    <figure className="flex flex-col gap-3" aria-labelledby={captionId}>
      <div className="flex items-center justify-between gap-3">
        <figcaption id={captionId} className="text-sm text-fg-muted">
          Credits spent per day, last {days} days: <span className="font-semibold text-fg">{formatCredits(total)}</span>
        </figcaption>
        <Button variant="ghost" size="sm" aria-pressed={asTable} onClick={() => setAsTable((v) => !v)}>
          {asTable ? 'Show chart' : 'Show table'}
        </Button>
      </div>
      <div ref={ref} className={cn('w-full', asTable && 'hidden')} aria-hidden="true" data-testid="spend-chart">
        <BarChart width={width} height={HEIGHT} data={data} margin={{ top: 8, right: 4, bottom: 0, left: -16 }} accessibilityLayer={false}>
          <CartesianGrid vertical={false} stroke="var(--color-border)" />
          <XAxis dataKey="label" tickLine={false} axisLine={false} minTickGap={24} tick={{ fontSize: 11, fill: 'var(--color-fg-muted)' }} />
          <YAxis
            allowDecimals={false}
            tickLine={false}
            axisLine={false}
            width={48}
            tick={{ fontSize: 11, fill: 'var(--color-fg-muted)' }}
          />
          <Tooltip
            cursor={{ fill: 'var(--color-bg-muted)' }}
            formatter={(value) => [`${formatCredits(Number(value))} credits`, 'Spent']}
            labelFormatter={(_, items) => (items[0] ? formatDay(String(items[0].payload.day)) : '')}
          />
          <Bar dataKey="credits" fill="var(--color-brand)" radius={[3, 3, 0, 0]} isAnimationActive={false} minPointSize={0} />
        </BarChart>
      </div>
      <div className={cn(asTable ? 'max-h-80 overflow-y-auto rounded-md border border-border' : 'sr-only')}>
        <table className="w-full text-sm">
          <caption className="sr-only">Credits spent per day, last {days} days</caption>
          <thead className="sticky top-0 bg-bg-subtle text-left text-xs uppercase tracking-wide text-fg-muted">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium">
                Day
              </th>
              <th scope="col" className="px-3 py-2 text-right font-medium">
                Credits spent
              </th>
            </tr>
          </thead>
          <tbody>
            {[...perDay].reverse().map((d) => (
              <tr key={d.day} className="border-t border-border">
                <th scope="row" className="px-3 py-1.5 text-left font-normal">
                  {formatDay(d.day)}
                </th>
                <td className="px-3 py-1.5 text-right tabular-nums">{formatCredits(d.credits)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
