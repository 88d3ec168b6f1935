import { usePageTitle } from '@/lib/use-page-title';

export default function PricingPage() {
  usePageTitle('Pricing');
  return (
    <section className="container-page py-16">
      <h1 className="text-4xl font-bold">Pricing</h1>
    </section>
  );
}
