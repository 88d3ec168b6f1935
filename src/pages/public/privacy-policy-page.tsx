import { Link } from 'react-router';
import { PRODUCT_NAME } from '@common/product';
import { LegalDocument, SupportEmailLink, type LegalSection } from '@/features/site/components/legal-document';
import { usePageMeta } from '@/features/site/hooks/use-page-meta';
import { UploadRetentionDays } from '@/features/site/components/upload-retention-days';

const SECTIONS: LegalSection[] = [
  {
    title: 'Who we are',
    body: (
      <p>
        {PRODUCT_NAME} is the data controller for the personal data described in this policy. You can reach us about
        anything in it at <SupportEmailLink />.
      </p>
    ),
  },
  {
    title: 'What we collect',
    body: (
      <ul>
        <li><strong>Account data:</strong> your name, e-mail address and, if you add one, your profile picture.</li>
        <li><strong>Photos you upload:</strong> the photos you use to train your character and images you upload to extract a prompt.</li>
        <li><strong>What you create:</strong> your prompts, generation settings, generated images and favourites.</li>
        <li><strong>Billing data:</strong> your plan, credit balance and payment history. Card details are handled by our payment provider and never reach us.</li>
        <li><strong>Technical data:</strong> server logs (IP address, browser, time of request) and a sign-in cookie that keeps you signed in.</li>
      </ul>
    ),
  },
  {
    title: 'How we use it',
    body: (
      <>
        <p>We use your data only to:</p>
        <ul>
          <li>provide the service: train your character, generate images and keep your gallery (performance of our contract with you);</li>
          <li>manage your subscription, credits and payments (contract and legal obligations);</li>
          <li>keep the service secure and enforce our <Link to="/terms-of-service" className="text-brand underline underline-offset-2">Terms of Service</Link>, including the ban on NSFW content (legitimate interest);</li>
          <li>answer your messages and tell you about important changes (contract and legitimate interest).</li>
        </ul>
        <p>We do not sell your personal data and we do not use it for advertising.</p>
      </>
    ),
  },
  {
    title: 'Your photos and our models',
    body: (
      <p>
        Your photos are used only to train <strong>your own</strong> character model, which only you can use. We{' '}
        <strong>do not train our models on user photos</strong>, and we do not share your photos or characters with other
        users. Images appear in the community gallery only when we put them there; your own generations stay private.
      </p>
    ),
  },
  {
    title: 'How long we keep it',
    body: (
      <ul>
        <li><strong>Original uploads</strong> are kept for about <UploadRetentionDays /> days and then deleted.</li>
        <li><strong>Generated images</strong> are kept for a period that depends on your account and plan.</li>
        <li><strong>Account data</strong> is kept while your account exists and deleted after you close it.</li>
        <li><strong>Billing records</strong> are kept for as long as tax and accounting law requires.</li>
      </ul>
    ),
  },
  {
    title: 'Who we share it with',
    body: (
      <>
        <p>We share data only with service providers that help us run {PRODUCT_NAME}, under contracts that protect it:</p>
        <ul>
          <li>hosting, storage and database providers;</li>
          <li>AI inference providers that run image generation and character training for us;</li>
          <li>our payment provider, which processes subscriptions and payments;</li>
          <li>our identity provider, which handles sign-in.</li>
        </ul>
        <p>We may also disclose data when the law requires it or to protect the rights and safety of others.</p>
      </>
    ),
  },
  {
    title: 'International transfers',
    body: (
      <p>
        Some providers may process data outside the European Economic Area. When they do, we rely on adequacy decisions
        or the European Commission's standard contractual clauses.
      </p>
    ),
  },
  {
    title: 'Security',
    body: (
      <p>
        Data travels encrypted, access is limited to what each part of the service needs, and your photos are stored
        privately. No system is perfectly secure; if a breach affects you, we will tell you as the law requires.
      </p>
    ),
  },
  {
    title: 'Your rights',
    body: (
      <p>
        You may ask for access to, correction or deletion of your personal data, ask us to restrict or stop processing
        it, and receive it in a portable format. To change your name or e-mail address, or to exercise these rights,
        contact us at <SupportEmailLink />. You may also complain to the Hellenic Data Protection Authority.
      </p>
    ),
  },
  {
    title: 'Age limit',
    body: <p>{PRODUCT_NAME} is only for people aged 18 and over. We do not knowingly collect data from anyone under 18.</p>,
  },
  {
    title: 'Changes to this policy',
    body: (
      <p>
        We will give you at least <strong>two weeks' notice</strong> of any major change to this policy, by e-mail or in
        the app, before it takes effect.
      </p>
    ),
  },
  {
    title: 'Governing law',
    body: <p>This policy is governed by <strong>Greek law</strong>, together with the EU General Data Protection Regulation.</p>,
  },
  {
    title: 'Contact',
    body: (
      <p>
        Questions about your privacy? Write to us at <SupportEmailLink />.
      </p>
    ),
  },
];

export default function PrivacyPolicyPage() {
  usePageMeta({
    title: 'Privacy Policy',
    description: `How ${PRODUCT_NAME} handles your photos and personal data: what we collect, how long we keep it, and that we never train our models on your photos.`,
  });
  return (
    <LegalDocument
      title="Privacy Policy"
      intro={<p>Your photos are personal. This policy explains what data {PRODUCT_NAME} collects, why, how long we keep it and what rights you have.</p>}
      sections={SECTIONS}
    />
  );
}
