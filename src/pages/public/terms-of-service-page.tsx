import { Link } from 'react-router';
import { CREDIT_COSTS, PRODUCT_NAME } from '@common/product';
import { LegalDocument, SupportEmailLink, type LegalSection } from '@/features/site/components/legal-document';
import { usePageMeta } from '@/features/site/hooks/use-page-meta';
import { UploadRetentionDays } from '@/features/site/components/upload-retention-days';

const SECTIONS: LegalSection[] = [
  {
    title: 'Agreement to these Terms',
    body: (
      <p>
        These Terms of Service govern your use of {PRODUCT_NAME}, a web service that trains a personal character model
        from your photos and generates images from text prompts. By creating an account or using the service you agree
        to these Terms and to our <Link to="/privacy-policy" className="text-brand underline underline-offset-2">Privacy Policy</Link>.
        If you do not agree, do not use {PRODUCT_NAME}.
      </p>
    ),
  },
  {
    title: 'Eligibility',
    body: (
      <p>
        {PRODUCT_NAME} is only for people aged <strong>18 and over</strong>. By using the service you confirm that you
        are at least 18 years old and able to enter into a binding agreement.
      </p>
    ),
  },
  {
    title: 'Your account',
    body: (
      <>
        <p>
          You need an account to use the app. Keep your sign-in details secret and tell us at once if you believe someone
          else has used your account. You are responsible for everything done through your account.
        </p>
        <p>One person may hold one account. Accounts may not be shared, sold or transferred.</p>
      </>
    ),
  },
  {
    title: 'The service',
    body: (
      <>
        <p>{PRODUCT_NAME} lets you:</p>
        <ul>
          <li>upload photos of yourself and train a personal character model from them;</li>
          <li>generate images from text prompts, with or without your character;</li>
          <li>extract a text prompt from an image you upload;</li>
          <li>keep, favourite and download your generations, and browse a community gallery.</li>
        </ul>
        <p>
          Images are produced by artificial intelligence. Results vary, may be inaccurate and may not look exactly like
          you. We may improve, change or discontinue features; where a change materially reduces what you have paid for,
          we will tell you in advance as described in section 13.
        </p>
      </>
    ),
  },
  {
    title: 'Credits, subscriptions and payments',
    body: (
      <>
        <p>
          Actions in the app are paid with credits: generating an image costs {CREDIT_COSTS.generation} credits, training a
          character costs {CREDIT_COSTS.training} credits and extracting a prompt from an image costs{' '}
          {CREDIT_COSTS.captionFast} (Fast) or {CREDIT_COSTS.captionDetailed} (Detailed) credits. New accounts start with 0
          credits.
        </p>
        <p>
          Credits come with paid monthly subscriptions. A subscription renews automatically every month until you cancel
          it; you can change or cancel your plan at any time from the Subscription page, and a cancellation takes effect at
          the end of the period already paid for. Payments are processed by our payment provider; we never see or store
          your full card details.
        </p>
        <p>
          Credits have no cash value and cannot be transferred. Except where the law requires otherwise, payments are not
          refundable. When a generation or training fails on our side, the credits it used are returned to your balance.
        </p>
      </>
    ),
  },
  {
    title: 'Your photos',
    body: (
      <>
        <p>
          You may only upload photos of yourself, or photos you have every right to use. You keep all rights in the photos
          you upload. You give us a limited licence to store and process them only to provide the service to you, for
          example to train your character model.
        </p>
        <p>
          We do <strong>not</strong> train our own models on your photos. Your original uploads are kept for about{' '}
          <UploadRetentionDays /> days and then deleted.
        </p>
      </>
    ),
  },
  {
    title: 'Generated images and commercial use',
    body: (
      <>
        <p>
          As between you and us, the images you generate are yours. You may use them for any lawful purpose,{' '}
          <strong>including commercial use</strong>, such as profile pictures, websites, advertising and printed material.
        </p>
        <p>
          Generated images are kept in your account for a period that depends on your account and plan. Download the
          images you want to keep; we are not obliged to store them indefinitely.
        </p>
      </>
    ),
  },
  {
    title: 'Prohibited content and conduct',
    body: (
      <>
        <p>
          <strong>NSFW content is prohibited.</strong> You must not upload, request or generate nude, sexual or otherwise
          explicit content. Violating this rule leads to the <strong>permanent closure of your account without refund</strong>.
        </p>
        <p>You must also not use {PRODUCT_NAME} to:</p>
        <ul>
          <li>create images of another person without their consent, or of anyone under 18;</li>
          <li>impersonate, deceive, defame, harass or threaten anyone;</li>
          <li>create content that is illegal, hateful or violent, or that infringes others' rights;</li>
          <li>break, overload or reverse-engineer the service, or get around its limits or its safety checks.</li>
        </ul>
      </>
    ),
  },
  {
    title: 'Suspension and closure',
    body: (
      <p>
        You may close your account at any time by contacting us. We may suspend or close an account that breaks these
        Terms; for NSFW content, closure is permanent and without refund. Otherwise we will, where reasonable, tell you
        why and give you a chance to respond.
      </p>
    ),
  },
  {
    title: 'Disclaimer',
    body: (
      <p>
        The service is provided "as is" and "as available". To the extent the law allows, we give no warranty that it
        will be uninterrupted, error-free or that results will meet your expectations.
      </p>
    ),
  },
  {
    title: 'Limitation of liability',
    body: (
      <p>
        To the extent the law allows, our total liability for any claim about the service is limited to the amount you
        paid us in the three months before the claim. Nothing in these Terms limits liability that cannot be limited by
        law, including for intent or gross negligence, or your rights as a consumer.
      </p>
    ),
  },
  {
    title: 'Governing law',
    body: (
      <p>
        These Terms are governed by <strong>Greek law</strong>. Disputes are subject to the competent courts of Greece,
        without prejudice to any mandatory consumer protection of the country where you live.
      </p>
    ),
  },
  {
    title: 'Changes to these Terms',
    body: (
      <p>
        We may update these Terms. We will give you at least <strong>two weeks' notice</strong> of any major change,
        by e-mail or in the app, before it takes effect. If you keep using {PRODUCT_NAME} after that, the new Terms apply;
        if you do not agree, you can cancel your subscription and close your account.
      </p>
    ),
  },
  {
    title: 'Contact',
    body: (
      <p>
        Questions about these Terms? Write to us at <SupportEmailLink />.
      </p>
    ),
  },
];

export default function TermsOfServicePage() {
  usePageMeta({
    title: 'Terms of Service',
    description: `The terms for using ${PRODUCT_NAME}: eligibility (18+), credits and subscriptions, commercial use of your images and prohibited content.`,
  });
  return (
    <LegalDocument
      title="Terms of Service"
      intro={<p>Please read these Terms carefully. They explain what you can expect from us and what we expect from you.</p>}
      sections={SECTIONS}
    />
  );
}
