import { ArrowRight } from 'lucide-react';
import { PEOPLE, Portrait, type Person, type Scene } from './portrait';
import { SectionHeading } from './section-heading';

interface Example {
  name: string;
  person: Person;
  scene: Scene;
  prompt: string;
}

const EXAMPLES: Example[] = [
  { name: 'Leo', person: PEOPLE.leo, scene: 'studio', prompt: 'Professional headshot, studio lighting, charcoal blazer' },
  { name: 'Ama', person: PEOPLE.ama, scene: 'outdoor', prompt: 'Golden hour portrait in the hills, linen jacket' },
  { name: 'Sofia', person: PEOPLE.sofia, scene: 'city', prompt: 'Business portrait at night, city lights behind' },
];

/** Before/after examples: a casual selfie next to a photo generated from the prompt shown. */
export function BeforeAfter() {
  return (
    <section className="bg-bg py-20 md:py-28">
      <div className="container-page">
        <SectionHeading eyebrow="Before and after" title="From everyday selfies to photos you'll actually use">
          The same person, the same face: only the prompt changes.
        </SectionHeading>
        <ul className="mt-14 grid gap-6 md:grid-cols-3">
          {EXAMPLES.map((ex) => (
            <li key={ex.name} className="rounded-xl border border-border bg-bg p-4 shadow-card">
              <div className="grid grid-cols-[1fr_auto_1fr] items-center gap-2">
                <figure>
                  <Portrait
                    person={ex.person}
                    scene="selfie"
                    label={`${ex.name}'s original selfie`}
                    width={150}
                    height={188}
                    className="h-auto w-full rounded-md"
                  />
                  <figcaption className="mt-2 text-center text-xs font-medium text-fg-muted">Before</figcaption>
                </figure>
                <ArrowRight className="size-4 text-fg-subtle" aria-hidden />
                <figure>
                  <Portrait
                    person={ex.person}
                    scene={ex.scene}
                    label={`${ex.name}, generated: ${ex.prompt}`}
                    width={150}
                    height={188}
                    className="h-auto w-full rounded-md"
                  />
                  <figcaption className="mt-2 text-center text-xs font-semibold text-brand">After</figcaption>
                </figure>
              </div>
              <p className="mt-4 rounded-md bg-bg-subtle px-3 py-2 text-sm text-fg-muted">
                <span className="font-medium text-fg">Prompt: </span>
                {ex.prompt}
              </p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
