import { usePageTitle } from '@/lib/use-page-title';

export default function HowItWorksPage() {
  usePageTitle('How It Works');
  return (
    <section className="container-page py-16">
      <h1 className="text-4xl font-bold">How It Works</h1>
    </section>
  );
}
