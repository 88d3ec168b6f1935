import { SECTION_IDS } from './section-scroll';

/** Header navigation: each entry is a section of the landing page (Home is its top). */
export const SITE_NAV = [
  { label: 'Home', to: '/' },
  { label: 'How It Works', to: `/#${SECTION_IDS.features}` },
  { label: 'Pricing', to: `/#${SECTION_IDS.pricing}` },
  { label: 'FAQ', to: `/#${SECTION_IDS.faq}` },
] as const;
