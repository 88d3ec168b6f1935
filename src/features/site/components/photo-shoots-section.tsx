import { Camera, Check, Download, Radio } from 'lucide-react';
import { CREDIT_COSTS } from '@common/product';
import { PEOPLE, Portrait, type Scene } from './portrait';
import { SectionHeading } from './section-heading';

/** The catalogue's pack sizes (PACK_PROMPTS in common/photo-shoots.ts, whose zod schemas stay out of the landing bundle); a test keeps them equal. */
const LANDING_PACK_SIZE = '8–20';

const POINTS = [
  {
    icon: Camera,
    title: "A photographer's briefs, in packs",
    text: `LinkedIn headshots, studio black & white, actor headshots, travel: each pack holds ${LANDING_PACK_SIZE} briefs, run for your character in one click.`,
  },
  {
    icon: Radio,
    title: 'Followed live',
    text: 'Watch each photo land as it is taken, with the time left. Leave the page and come back: the shoot keeps going.',
  },
  {
    icon: Download,
    title: 'Downloaded as one ZIP',
    text: `Keep the set in one file. Each photo uses ${CREDIT_COSTS.generation} credits, and a photo that fails is refunded.`,
  },
];

/** The shoot in the drawing: four photos taken, four still to come. */
const TAKEN: Scene[] = ['studio', 'city', 'outdoor', 'cafe'];
const WAITING = 4;

/** Photo shoots on the landing page: what a pack is, that it is followed live, and the ZIP at the end. */
export function PhotoShootsSection() {
  return (
    <section id="photo-shoots" className="border-b border-border bg-bg py-20 md:py-28">
      <div className="container-page">
        <SectionHeading eyebrow="Photo shoots" title="A whole photo shoot in one click">
          Once your character is trained, pick a pack and get a full set of photos of you, shot to a photographer's briefs.
        </SectionHeading>
        <div className="mt-14 grid items-center gap-10 md:grid-cols-2">
          <ul className="flex flex-col gap-6">
            {POINTS.map((point) => (
              <li key={point.title} className="flex gap-4">
                <span className="grid size-11 shrink-0 place-items-center rounded-lg bg-brand-soft text-brand">
                  <point.icon className="size-5" aria-hidden />
                </span>
                <div>
                  <h3 className="text-lg font-semibold">{point.title}</h3>
                  <p className="mt-1 leading-relaxed text-fg-muted">{point.text}</p>
                </div>
              </li>
            ))}
          </ul>
          <figure className="rounded-xl border border-border bg-bg p-4 shadow-card sm:p-5">
            <div className="flex items-center justify-between gap-3">
              <p className="font-semibold">LinkedIn Headshots</p>
              <p className="inline-flex items-center gap-1.5 text-sm text-fg-muted">
                <span className="size-2 animate-pulse rounded-full bg-brand" aria-hidden />
                {TAKEN.length} of {TAKEN.length + WAITING} ready
              </p>
            </div>
            <div className="mt-3 h-1.5 overflow-hidden rounded-full bg-bg-muted" aria-hidden>
              <div className="h-full rounded-full bg-brand" style={{ width: `${(100 * TAKEN.length) / (TAKEN.length + WAITING)}%` }} />
            </div>
            <ul className="mt-4 grid grid-cols-4 gap-2">
              {TAKEN.map((scene) => (
                <li key={scene} className="relative">
                  <Portrait
                    person={PEOPLE.maya}
                    scene={scene}
                    label={`Maya, a ${scene} shot of the shoot`}
                    width={120}
                    height={150}
                    className="h-auto w-full rounded-md"
                  />
                  <Check className="absolute right-1 bottom-1 size-4 rounded-full bg-white p-0.5 text-brand" aria-hidden />
                </li>
              ))}
              {Array.from({ length: WAITING }, (_, i) => (
                <li key={i} className="aspect-[4/5] rounded-md border border-dashed border-border-strong bg-bg-subtle" aria-hidden />
              ))}
            </ul>
            <figcaption className="mt-4 flex items-center justify-between gap-3 text-sm text-fg-muted">
              <span>A shoot in progress, as you follow it.</span>
              <span className="inline-flex items-center gap-1.5 font-medium text-fg">
                <Download className="size-4" aria-hidden />
                ZIP
              </span>
            </figcaption>
          </figure>
        </div>
      </div>
    </section>
  );
}
