import { Hammer } from 'lucide-react';
import { usePageTitle } from '@/lib/use-page-title';

/** Shown by sections whose feature has not been built yet. */
export default function UnfinishedPage({ title }: { title: string }) {
  usePageTitle(title);
  return (
    <section className="flex min-h-[60dvh] flex-col items-center justify-center gap-3 text-center">
      <Hammer className="size-10 text-fg-subtle" aria-hidden />
      <h1 className="text-2xl font-bold">{title}</h1>
      <p className="text-fg-muted">This section is being built and is not available yet.</p>
    </section>
  );
}
