import { usePageTitle } from '@/lib/use-page-title';

export default function TermsOfServicePage() {
  usePageTitle('Terms of Service');
  return (
    <section className="container-page py-16">
      <h1 className="text-4xl font-bold">Terms of Service</h1>
    </section>
  );
}
