import { Link } from 'react-router';
import { ArrowRight, Check } from 'lucide-react';
import { buttonClasses } from '@/components/ui/button';
import { useStartPath } from '../hooks/use-start-path';
import { SECTION_IDS } from '../lib/site-nav';
import { PEOPLE, Portrait } from './portrait';

const PROMISES = ['For adults 18+', 'Commercial use included', 'Your photos never train our models'];

/** Landing hero: the promise, 'Try Now' and 'How It Works' (product §2), and a before → after picture. */
export function Hero() {
  const startPath = useStartPath();
  return (
    <section className="relative overflow-hidden">
      <div aria-hidden className="pointer-events-none absolute inset-x-0 top-0 -z-10 h-[36rem] bg-gradient-to-b from-brand-soft to-bg" />
      <div className="container-page grid items-center gap-12 pb-16 pt-12 md:grid-cols-[1.1fr_1fr] md:pb-24 md:pt-20">
        <div>
          <p className="inline-flex items-center gap-2 rounded-full border border-brand/20 bg-bg px-3 py-1 text-sm font-medium text-brand">
            AI photos of you, from your own selfies
          </p>
          <h1 className="mt-5 text-4xl font-extrabold tracking-tight text-balance sm:text-5xl lg:text-display">
            Your best photos, without the photo shoot
          </h1>
          <p className="mt-5 max-w-xl text-lg text-pretty text-fg-muted">
            Upload 10-15 photos of yourself, train your personal character in 5-10 minutes, then create realistic photos and professional
            headshots from a simple text prompt.
          </p>
          <div className="mt-8 flex flex-wrap gap-3">
            <Link to={startPath} className={buttonClasses('primary', 'lg')}>
              Try Now
              <ArrowRight className="size-4" aria-hidden />
            </Link>
            <Link to={`/#${SECTION_IDS.features}`} className={buttonClasses('outline', 'lg')}>
              How It Works
            </Link>
          </div>
          <ul className="mt-8 flex flex-col gap-2 text-sm text-fg-muted sm:flex-row sm:flex-wrap sm:gap-x-5">
            {PROMISES.map((p) => (
              <li key={p} className="inline-flex items-center gap-1.5">
                <Check className="size-4 text-success" aria-hidden />
                {p}
              </li>
            ))}
          </ul>
        </div>
        <HeroPicture />
      </div>
    </section>
  );
}

function HeroPicture() {
  return (
    <div className="relative mx-auto w-full max-w-xs sm:max-w-md">
      <div className="overflow-hidden rounded-xl shadow-pop ring-1 ring-fg/5">
        <Portrait
          person={PEOPLE.maya}
          scene="studio"
          label="Generated studio headshot of Maya in a dark blazer"
          width={448}
          height={560}
          className="block h-auto w-full"
        />
      </div>
      <span className="absolute right-3 top-3 rounded-full bg-bg/90 px-3 py-1 text-xs font-semibold text-fg shadow-card">After</span>
      <figure className="absolute -bottom-6 -left-3 w-28 rotate-[-4deg] rounded-lg bg-bg p-1.5 shadow-pop sm:-left-8 sm:w-40">
        <Portrait
          person={PEOPLE.maya}
          scene="selfie"
          label="Maya's original phone selfie"
          width={148}
          height={185}
          className="block h-auto w-full rounded-md"
        />
        <figcaption className="py-1 text-center text-xs font-medium text-fg-muted">Before</figcaption>
      </figure>
    </div>
  );
}
