/** The landing page's sections that the header, hero and footer link to (product §2 anchors). */
export const SECTION_IDS = { features: 'features', pricing: 'pricing', faq: 'faq' } as const;

/** Header navigation: each entry is a section of the landing page (Home is its top). */
export const SITE_NAV = [
  { label: 'Home', to: '/' },
  { label: 'How It Works', to: `/#${SECTION_IDS.features}` },
  { label: 'Pricing', to: `/#${SECTION_IDS.pricing}` },
  { label: 'FAQ', to: `/#${SECTION_IDS.faq}` },
] as const;
