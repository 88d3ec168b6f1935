import { CREDIT_COSTS } from '@common/product';
import type { FaqItem } from '../components/faq-accordion';

/**
 * The landing page's FAQ. Its numbers (10-15 photos, 5-10 minutes) are the landing's own (product §1); how long
 * originals are kept is the server's UPLOAD_RETENTION_DAYS.
 */
export const landingFaq = (uploadRetentionDays: number): FaqItem[] => [
  {
    question: 'How many photos do I need to upload?',
    answer:
      'Upload 10-15 photos of yourself. Clear, well-lit photos from different angles and with different expressions work best; avoid sunglasses, hats and group photos.',
  },
  {
    question: 'How long does training take?',
    answer:
      'Training your character takes 5-10 minutes. You can keep using the app in the meantime: your character appears as soon as it is ready.',
  },
  {
    question: 'Can I use the photos commercially?',
    answer:
      'Yes. The photos you generate are yours to use, including commercially: profile pictures, websites, marketing material and more. Likeness is for people aged 18 and over.',
  },
  {
    question: 'What happens to the photos I upload?',
    answer: `We keep your original uploads for about ${uploadRetentionDays} days, and the photos you generate for a period that depends on your account. We do not train our models on your photos.`,
  },
  {
    question: 'How do credits work?',
    answer: `Every plan adds credits each month. Generating an image costs ${CREDIT_COSTS.generation} credits, training a character costs ${CREDIT_COSTS.training} credits, and extracting a prompt from an image costs ${CREDIT_COSTS.captionFast} (Fast) or ${CREDIT_COSTS.captionDetailed} (Detailed) credits. New accounts start with 0 credits.`,
  },
  {
    question: 'Is any content not allowed?',
    answer: 'Yes. NSFW content is prohibited. Creating it leads to the permanent closure of your account, without a refund.',
  },
  {
    question: 'Can I change or cancel my plan?',
    answer:
      'Yes. Plans renew automatically every month; you can upgrade, downgrade or cancel at any time from the Subscription page in the app.',
  },
];
