import { Clapperboard } from 'lucide-react';
import { usePageTitle } from '@/lib/use-page-title';

export default function AiVideosPage() {
  usePageTitle('AI Video Generator');
  return (
    <section className="flex min-h-[60dvh] flex-col items-center justify-center gap-4 text-center">
      <div className="rounded-2xl bg-brand-soft p-4 text-brand">
        <Clapperboard className="size-10" aria-hidden />
      </div>
      <h1 className="text-3xl font-bold">AI Video Generator</h1>
      <p className="text-lg text-fg-muted">Coming soon...</p>
    </section>
  );
}
