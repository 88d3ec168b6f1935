import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { Logo } from '@/components/logo';
import { PRODUCT_NAME } from '@common/product';
import { useSupportEmail } from '@/queries/public-config';
import { SECTION_IDS } from '../lib/site-nav';
import { InstagramIcon, LinkedInIcon, XIcon, YouTubeIcon } from './social-icons';

/** The one social profile that exists; the other icons lead to /login, as the spec's footer does. */
export const SOCIAL_PROFILE_URL = 'https://www.instagram.com/likeness.app';

const linkClass = 'rounded-sm text-fg-muted transition-colors hover:text-fg';
const iconClass =
  'grid size-9 place-items-center rounded-full border border-border text-fg-muted transition-colors hover:border-border-strong hover:text-fg';

/** The link columns; Careers is a button that goes to sign-in, as the spec's footer has it. */
const FOOTER_COLUMNS: { title: string; links: { label: string; to: string; button?: boolean }[] }[] = [
  {
    title: 'Product',
    links: [
      { label: 'Features', to: `/#${SECTION_IDS.features}` },
      { label: 'Pricing', to: '/pricing' },
    ],
  },
  {
    title: 'Company',
    links: [
      { label: 'About', to: '/about' },
      { label: 'Blog', to: '/blog' },
      { label: 'Careers', to: '/login', button: true },
    ],
  },
  {
    title: 'Legal',
    links: [
      { label: 'Terms', to: '/terms-of-service' },
      { label: 'Privacy', to: '/privacy-policy' },
    ],
  },
];

function Column({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div>
      <h2 className="text-sm font-semibold text-fg">{title}</h2>
      <ul className="mt-4 space-y-3 text-sm">{children}</ul>
    </div>
  );
}

/** Site footer (product §2): Product, Company and Legal columns, social icons and the contact address. */
export function SiteFooter() {
  const navigate = useNavigate();
  const supportEmail = useSupportEmail();
  return (
    <footer className="border-t border-border bg-bg-subtle">
      <div className="container-page grid gap-10 py-12 md:grid-cols-[1.2fr_2fr]">
        <div className="max-w-xs">
          <Logo />
          <p className="mt-4 text-sm leading-relaxed text-fg-muted">
            Realistic photos and professional headshots of you, generated from a text prompt.
          </p>
          <ul className="mt-5 flex gap-2" aria-label="Social media">
            <li>
              <Link to="/login" aria-label={`${PRODUCT_NAME} on X`} className={iconClass}>
                <XIcon />
              </Link>
            </li>
            <li>
              <a
                href={SOCIAL_PROFILE_URL}
                target="_blank"
                rel="noopener noreferrer"
                aria-label={`${PRODUCT_NAME} on Instagram`}
                className={iconClass}
              >
                <InstagramIcon />
              </a>
            </li>
            <li>
              <Link to="/login" aria-label={`${PRODUCT_NAME} on LinkedIn`} className={iconClass}>
                <LinkedInIcon />
              </Link>
            </li>
            <li>
              <Link to="/login" aria-label={`${PRODUCT_NAME} on YouTube`} className={iconClass}>
                <YouTubeIcon />
              </Link>
            </li>
          </ul>
        </div>
        <div className="grid grid-cols-3 gap-6">
          {FOOTER_COLUMNS.map(({ title, links }) => (
            <nav key={title} aria-label={title}>
              <Column title={title}>
                {links.map(({ label, to, button }) => (
                  <li key={label}>
                    {button ? (
                      <button type="button" onClick={() => navigate(to)} className={linkClass}>
                        {label}
                      </button>
                    ) : (
                      <Link to={to} className={linkClass}>
                        {label}
                      </Link>
                    )}
                  </li>
                ))}
              </Column>
            </nav>
          ))}
        </div>
      </div>
      <div className="border-t border-border">
        <div className="container-page flex flex-col gap-2 py-6 text-sm text-fg-muted sm:flex-row sm:items-center sm:justify-between">
          <p>
            © {new Date().getFullYear()} {PRODUCT_NAME}. All rights reserved.
          </p>
          {/* min-height keeps the row still while the address loads. */}
          <p className="min-h-5">
            Contact:{' '}
            {supportEmail && (
              <a href={`mailto:${supportEmail}`} className="font-medium text-fg hover:underline">
                {supportEmail}
              </a>
            )}
          </p>
        </div>
      </div>
    </footer>
  );
}
