import { usePageTitle } from '@/lib/use-page-title';

export default function LandingPage() {
  usePageTitle('Likeness');
  return (
    <section className="container-page py-16">
      <h1 className="text-4xl font-bold">Likeness</h1>
    </section>
  );
}
