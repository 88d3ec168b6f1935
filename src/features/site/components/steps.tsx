import type { LucideIcon } from 'lucide-react';

export interface Step {
  icon: LucideIcon;
  title: string;
  text: string;
}

/** Numbered three-step explanation; each page passes its own copy (the spec keeps each page's numbers). */
export function Steps({ steps, headingLevel = 3 }: { steps: Step[]; headingLevel?: 2 | 3 }) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <ol className="grid gap-6 md:grid-cols-3">
      {steps.map((step, i) => (
        <li key={step.title} className="relative rounded-xl border border-border bg-bg p-6 shadow-card">
          <div className="flex items-center gap-3">
            <span className="grid size-11 place-items-center rounded-lg bg-brand-soft text-brand">
              <step.icon className="size-5" aria-hidden />
            </span>
            <span className="text-sm font-semibold text-fg-muted">Step {i + 1}</span>
          </div>
          <Heading className="mt-5 text-xl font-semibold">{step.title}</Heading>
          <p className="mt-2 leading-relaxed text-fg-muted">{step.text}</p>
        </li>
      ))}
    </ol>
  );
}
