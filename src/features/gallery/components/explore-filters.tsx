import { EXPLORE_FILTER_NAMES, type ExploreFilterName, type ExploreFilterOptions, type ExploreFilters } from '@common/library';
import { Button } from '@/components/ui/button';
import { labelOf } from '../lib/format';

/** The four filters with their 'All ...' option (product §2 Explore). */
const FILTER_LABELS: Record<ExploreFilterName, { label: string; all: string }> = {
  gender: { label: 'Gender', all: 'All Genders' },
  hair_color: { label: 'Hair Color', all: 'All Hair Colors' },
  ethnicity: { label: 'Ethnicity', all: 'All Ethnicities' },
  style: { label: 'Style', all: 'All Styles' },
};

export interface ExploreFiltersProps {
  options: ExploreFilterOptions | undefined;
  value: ExploreFilters;
  onChange: (name: ExploreFilterName, value: string | undefined) => void;
  onClear: () => void;
}

export function ExploreFiltersPanel({ options, value, onChange, onClear }: ExploreFiltersProps) {
  const active = EXPLORE_FILTER_NAMES.some((name) => value[name]);
  return (
    <section aria-label="Filters" className="rounded-lg border border-border bg-bg p-4 shadow-card">
      <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
        {EXPLORE_FILTER_NAMES.map((name) => {
          const id = `explore-filter-${name}`;
          const current = value[name] ?? '';
          // A value from a shared link stays selectable even before (or without) the options list.
          const values = [...new Set([...(options?.[name] ?? []), ...(current ? [current] : [])])];
          return (
            <div key={name} className="flex flex-col gap-1.5">
              <label htmlFor={id} className="text-xs font-semibold uppercase tracking-wide text-fg-subtle">
                {FILTER_LABELS[name].label}
              </label>
              <select
                id={id}
                value={current}
                onChange={(e) => onChange(name, e.target.value || undefined)}
                className="h-10 w-full rounded-md border border-border-strong bg-bg px-3 text-sm text-fg shadow-sm transition-colors hover:border-fg-subtle"
              >
                <option value="">{FILTER_LABELS[name].all}</option>
                {values.map((v) => (
                  <option key={v} value={v}>
                    {labelOf(v)}
                  </option>
                ))}
              </select>
            </div>
          );
        })}
      </div>
      <div className="mt-3 flex justify-end">
        <Button variant="ghost" size="sm" onClick={onClear} disabled={!active}>
          Clear All
        </Button>
      </div>
    </section>
  );
}
