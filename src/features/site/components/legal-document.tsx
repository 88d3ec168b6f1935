import type { ReactNode } from 'react';
import { useSupportEmail } from '@/queries/public-config';

/** When the legal texts last changed (product §1). */
export const LEGAL_LAST_MODIFIED = '2025-06-30';

export interface LegalSection {
  title: string;
  body: ReactNode;
}

/** The contact address from the server's SUPPORT_EMAIL, as a mail link (a placeholder while it loads). */
export function SupportEmailLink() {
  const email = useSupportEmail();
  if (!email) return <span className="text-fg-muted">our support address</span>;
  return (
    <a href={`mailto:${email}`} className="font-medium text-brand underline underline-offset-2">
      {email}
    </a>
  );
}

/** A legal page: title, last-modified date, a table of contents and numbered sections. */
export function LegalDocument({ title, intro, sections }: { title: string; intro: ReactNode; sections: LegalSection[] }) {
  return (
    <article className="container-page max-w-3xl py-14 md:py-20">
      <h1 className="text-4xl font-extrabold tracking-tight">{title}</h1>
      <p className="mt-3 text-sm text-fg-muted">
        Last modified: <time dateTime={LEGAL_LAST_MODIFIED}>{LEGAL_LAST_MODIFIED}</time>
      </p>
      <div className="mt-8 text-lg leading-relaxed text-fg-muted">{intro}</div>
      <nav aria-label="Contents" className="mt-8 rounded-xl border border-border bg-bg-subtle p-5">
        <p className="text-sm font-semibold text-fg">Contents</p>
        <ol className="mt-3 grid gap-1.5 text-sm sm:grid-cols-2">
          {sections.map((s, i) => (
            <li key={s.title}>
              <a href={`#section-${i + 1}`} className="text-fg-muted hover:text-brand">
                {i + 1}. {s.title}
              </a>
            </li>
          ))}
        </ol>
      </nav>
      {sections.map((s, i) => (
        <section key={s.title} id={`section-${i + 1}`} className="mt-10 scroll-mt-20">
          <h2 className="text-2xl font-bold tracking-tight">
            {i + 1}. {s.title}
          </h2>
          <div className="mt-3 space-y-3 leading-relaxed text-fg-muted [&_li]:ml-5 [&_li]:list-disc [&_strong]:text-fg [&_ul]:space-y-1.5">
            {s.body}
          </div>
        </section>
      ))}
    </article>
  );
}
