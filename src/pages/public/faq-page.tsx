import { usePageTitle } from '@/lib/use-page-title';

export default function FaqPage() {
  usePageTitle('FAQ');
  return (
    <section className="container-page flex min-h-[50dvh] flex-col items-center justify-center py-16 text-center">
      <h1 className="text-4xl font-bold">FAQ</h1>
      <p className="mt-3 text-lg text-fg-muted">Coming soon</p>
    </section>
  );
}
