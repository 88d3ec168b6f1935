import { MessageCircleQuestion } from 'lucide-react';
import { usePageMeta } from '@/features/site/hooks/use-page-meta';

export default function FaqPage() {
  usePageMeta({ title: 'FAQ', description: 'Frequently asked questions about Likeness.' });
  return (
    <section className="container-page flex min-h-[60dvh] flex-col items-center justify-center py-16 text-center">
      <span className="grid size-14 place-items-center rounded-full bg-brand-soft text-brand">
        <MessageCircleQuestion className="size-7" aria-hidden />
      </span>
      <h1 className="mt-5 text-4xl font-bold tracking-tight">FAQ</h1>
      <p className="mt-3 text-lg text-fg-muted">Coming soon</p>
    </section>
  );
}
