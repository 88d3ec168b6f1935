import { Link } from 'react-router';
import { Download, ScanFace, Upload } from 'lucide-react';
import { CREDIT_COSTS } from '@common/product';
import { useStartPath } from '@/features/site/hooks/use-start-path';
import { useUploadRetentionDays } from '@/queries/public-config';
import { BeforeAfter } from '@/features/site/components/before-after';
import { CallToAction, ctaPrimary, ctaSecondary } from '@/features/site/components/call-to-action';
import { FaqAccordion } from '@/features/site/components/faq-accordion';
import { Hero } from '@/features/site/components/hero';
import { landingFaq } from '@/features/site/lib/landing-faq';
import { PhotoShootsSection } from '@/features/site/components/photo-shoots-section';
import { PlanCards } from '@/features/site/components/plan-cards';
import { SectionHeading } from '@/features/site/components/section-heading';
import { Steps, type Step } from '@/features/site/components/steps';
import { useScrollToHash } from '@/features/site/hooks/use-scroll-to-hash';
import { SECTION_IDS } from '@/features/site/lib/site-nav';
import { usePageMeta } from '@/features/site/hooks/use-page-meta';

const STEPS: Step[] = [
  {
    icon: Upload,
    title: 'Upload your photos',
    text: 'Add 10-15 clear photos of yourself: different angles, expressions and lighting. Close-ups work best.',
  },
  {
    icon: ScanFace,
    title: 'Train your character',
    text: 'We train a personal character model on your face. It takes 5-10 minutes, and you can keep working meanwhile.',
  },
  {
    icon: Download,
    title: 'Generate and download',
    text: 'Describe any scene in a prompt and get realistic photos and professional headshots of you, ready to download.',
  },
];

export default function LandingPage() {
  usePageMeta({
    description:
      'Upload 10-15 photos, train your personal character in 5-10 minutes, and create realistic photos and professional headshots of yourself from a text prompt.',
  });
  useScrollToHash();
  const startPath = useStartPath();
  const uploadRetentionDays = useUploadRetentionDays();
  return (
    <>
      <Hero />
      <BeforeAfter />
      <section id={SECTION_IDS.features} className="bg-bg-subtle py-20 md:py-28">
        <div className="container-page">
          <SectionHeading eyebrow="How it works" title="Three steps from selfies to studio-quality photos">
            No photographer, no studio, no waiting for edits.
          </SectionHeading>
          <div className="mt-14">
            <Steps steps={STEPS} />
          </div>
        </div>
      </section>
      <PhotoShootsSection />
      <section id={SECTION_IDS.pricing} className="py-20 md:py-28">
        <div className="container-page">
          <SectionHeading eyebrow="Pricing" title="Simple plans, fresh credits every month">
            Generating an image costs {CREDIT_COSTS.generation} credits and training a character costs {CREDIT_COSTS.training}.
            Every plan renews monthly.
          </SectionHeading>
          <div className="mt-14">
            <PlanCards />
          </div>
        </div>
      </section>
      <section id={SECTION_IDS.faq} className="bg-bg-subtle py-20 md:py-28">
        <div className="container-page">
          <SectionHeading eyebrow="FAQ" title="Questions, answered" />
          <div className="mt-12">
            <FaqAccordion items={landingFaq(uploadRetentionDays)} />
          </div>
        </div>
      </section>
      <CallToAction title="Ready to see yourself in a new light?" text="Train your character once, then create photos of you for any occasion.">
        <Link to={startPath} className={ctaPrimary}>
          Try Now
        </Link>
        <Link to="/pricing" className={ctaSecondary}>
          See pricing
        </Link>
      </CallToAction>
    </>
  );
}
