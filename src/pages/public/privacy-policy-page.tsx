import { usePageTitle } from '@/lib/use-page-title';

export default function PrivacyPolicyPage() {
  usePageTitle('Privacy Policy');
  return (
    <section className="container-page py-16">
      <h1 className="text-4xl font-bold">Privacy Policy</h1>
    </section>
  );
}
