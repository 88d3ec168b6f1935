import { CREDIT_COSTS } from '@common/product';
import { PlanCards } from '@/features/site/components/plan-cards';
import { usePageMeta } from '@/features/site/hooks/use-page-meta';

const COSTS = [
  { label: 'Image generation', credits: CREDIT_COSTS.generation },
  { label: 'Character training', credits: CREDIT_COSTS.training },
  { label: 'Image to prompt (Fast)', credits: CREDIT_COSTS.captionFast },
  { label: 'Image to prompt (Detailed)', credits: CREDIT_COSTS.captionDetailed },
];

export default function PricingPage() {
  usePageMeta({
    title: 'Pricing',
    description: 'Basic, Standard and Professional plans with monthly credits for AI photos, headshots and character training.',
  });
  return (
    <>
      <section className="bg-gradient-to-b from-brand-soft to-bg">
        <div className="container-page py-16 text-center md:py-20">
          <h1 className="text-4xl font-extrabold tracking-tight sm:text-5xl">Pricing</h1>
          <p className="mx-auto mt-4 max-w-2xl text-lg text-pretty text-fg-muted">
            Pick a plan and get fresh credits every month. Plans renew automatically; change or cancel any time.
          </p>
        </div>
      </section>
      <section className="container-page pb-16 pt-4">
        <PlanCards headingLevel={2} />
      </section>
      <section className="container-page pb-24">
        <div className="mx-auto max-w-3xl rounded-xl border border-border bg-bg-subtle p-6 sm:p-8">
          <h2 className="text-xl font-semibold">What credits buy</h2>
          <dl className="mt-5 grid gap-3 sm:grid-cols-2">
            {COSTS.map((c) => (
              <div key={c.label} className="flex items-center justify-between rounded-lg bg-bg px-4 py-3 shadow-card">
                <dt className="text-fg-muted">{c.label}</dt>
                <dd className="font-semibold">{c.credits} {c.credits === 1 ? 'credit' : 'credits'}</dd>
              </div>
            ))}
          </dl>
        </div>
      </section>
    </>
  );
}
