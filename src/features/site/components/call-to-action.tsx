import type { ReactNode } from 'react';

/** The closing band of a page: a headline, one sentence and its buttons. */
export function CallToAction({ title, text, children }: { title: string; text: string; children: ReactNode }) {
  return (
    <section className="container-page py-20">
      <div className="relative overflow-hidden rounded-xl bg-gradient-to-br from-brand to-[#9b3df0] px-6 py-14 text-center text-white shadow-pop sm:px-12">
        <h2 className="mx-auto max-w-2xl text-3xl font-bold tracking-tight text-balance sm:text-4xl">{title}</h2>
        <p className="mx-auto mt-4 max-w-xl text-lg text-white/85">{text}</p>
        <div className="mt-8 flex flex-wrap justify-center gap-3">{children}</div>
      </div>
    </section>
  );
}

/** White button for the brand-coloured call-to-action band. */
export const ctaPrimary =
  'inline-flex h-12 items-center justify-center gap-2 rounded-md bg-white px-6 text-base font-semibold text-brand shadow-sm transition-colors hover:bg-brand-soft focus-visible:outline-white';
export const ctaSecondary =
  'inline-flex h-12 items-center justify-center gap-2 rounded-md border border-white/50 px-6 text-base font-semibold text-white transition-colors hover:bg-white/10 focus-visible:outline-white';
