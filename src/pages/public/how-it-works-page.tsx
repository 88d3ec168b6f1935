import { Link } from 'react-router';
import { Download, ScanFace, Upload } from 'lucide-react';
import { CallToAction, ctaPrimary, ctaSecondary } from '@/features/site/components/call-to-action';
import { FaqAccordion, type FaqItem } from '@/features/site/components/faq-accordion';
import { SectionHeading } from '@/features/site/components/section-heading';
import { Steps, type Step } from '@/features/site/components/steps';
import { usePageMeta } from '@/features/site/hooks/use-page-meta';

// This page's numbers differ from the landing's on purpose (product §1 keeps each page's copy as written).
const STEPS: Step[] = [
  {
    icon: Upload,
    title: 'Upload 10-20 photos',
    text: 'Choose 10-20 high-quality photos of yourself: about 50% close-ups, 40% half-body and 10% full-body shots, with varied expressions and backgrounds.',
  },
  {
    icon: ScanFace,
    title: 'Train your character',
    text: 'Name your character and start training. Likeness learns your face and builds a personal character model that only you can use.',
  },
  {
    icon: Download,
    title: 'Create and download',
    text: 'Pick your character, describe a scene in a prompt and generate realistic photos and headshots. Download the ones you love.',
  },
];

const FAQ: FaqItem[] = [
  {
    question: 'How many photos do I need?',
    answer: '5-10 good photos are enough to get started. Sharp, well-lit photos where your face is clearly visible give the best results.',
  },
  {
    question: 'How long does training take?',
    answer: 'Training usually takes 15-30 minutes. You can close the page: your character will be waiting in the app when it is ready.',
  },
  {
    question: 'Which photos should I avoid?',
    answer: 'Avoid blurry photos, heavy filters, sunglasses, hats that hide your hair, and photos with other people in them.',
  },
  {
    question: 'Are my photos used to train your models?',
    answer: 'No. Your photos are only used to train your own character. We do not train our models on user photos.',
  },
];

export default function HowItWorksPage() {
  usePageMeta({
    title: 'How It Works',
    description: 'Upload 10-20 photos, train your personal character, then generate realistic photos and headshots of yourself from a prompt.',
  });
  return (
    <>
      <section className="bg-gradient-to-b from-brand-soft to-bg">
        <div className="container-page py-16 text-center md:py-24">
          <p className="text-sm font-semibold uppercase tracking-wider text-brand">How it works</p>
          <h1 className="mx-auto mt-3 max-w-3xl text-4xl font-extrabold tracking-tight text-balance sm:text-5xl">
            From your photos to your personal AI photographer
          </h1>
          <p className="mx-auto mt-5 max-w-2xl text-lg text-pretty text-fg-muted">
            Three steps: upload, train, create. Here is what happens at each one.
          </p>
        </div>
      </section>
      <section className="container-page pb-8">
        <Steps steps={STEPS} headingLevel={2} />
      </section>
      <section className="container-page py-16 md:py-24">
        <SectionHeading eyebrow="FAQ" title="Frequently asked questions" />
        <div className="mt-10">
          <FaqAccordion items={FAQ} />
        </div>
      </section>
      <CallToAction title="Start creating photos of yourself" text="Create your account, upload your photos and train your character today.">
        <Link to="/signup" className={ctaPrimary}>
          Get Started
        </Link>
        <Link to="/pricing" className={ctaSecondary}>
          View Pricing
        </Link>
      </CallToAction>
    </>
  );
}
