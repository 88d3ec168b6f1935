import type { ReactNode } from 'react';
import { PRODUCT_NAME } from '@common/product.ts';

/**
 * The look every message shares: the product's colours (src/index.css), its logo mark, a card with the message and
 * a footer with the support address. Tables and inline styles only: that is what mail clients render alike.
 */
export const COLORS = {
  brand: '#6d4aff',
  fg: '#14121f',
  muted: '#5b5872',
  subtle: '#8a87a0',
  bgSubtle: '#f7f7fb',
  border: '#e4e3ee',
  danger: '#d92d20',
};

const font = '-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif';

export interface LayoutProps {
  /** Shown by mail clients next to the subject (hidden in the message). */
  preview: string;
  supportEmail: string;
  /** A notification's one-click unsubscribe link; account mail has none. */
  unsubscribeUrl?: string;
  children: ReactNode;
}

export function Layout({ preview, supportEmail, unsubscribeUrl, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta httpEquiv="Content-Type" content="text/html; charset=UTF-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
      </head>
      <body style={{ margin: 0, padding: 0, backgroundColor: COLORS.bgSubtle, fontFamily: font, color: COLORS.fg }}>
        <div data-skip-in-text="true" style={{ display: 'none', maxHeight: 0, overflow: 'hidden' }}>
          {preview}
        </div>
        <table role="presentation" width="100%" cellPadding={0} cellSpacing={0} style={{ backgroundColor: COLORS.bgSubtle }}>
          <tbody>
            <tr>
              <td align="center" style={{ padding: '32px 16px' }}>
                <table role="presentation" width="100%" cellPadding={0} cellSpacing={0} style={{ maxWidth: 520 }}>
                  <tbody>
                    <tr>
                      <td style={{ paddingBottom: 20 }}>
                        <table role="presentation" cellPadding={0} cellSpacing={0}>
                          <tbody>
                            <tr>
                              <td
                                data-skip-in-text="true"
                                width={32}
                                height={32}
                                align="center"
                                style={{
                                  width: 32,
                                  height: 32,
                                  borderRadius: 8,
                                  backgroundColor: COLORS.brand,
                                  backgroundImage: 'linear-gradient(135deg,#7c5cff,#ff6fa8)',
                                  color: '#ffffff',
                                  fontWeight: 700,
                                  fontSize: 18,
                                }}
                              >
                                L
                              </td>
                              <td style={{ paddingLeft: 10, fontSize: 18, fontWeight: 700, color: COLORS.fg }}>{PRODUCT_NAME}</td>
                            </tr>
                          </tbody>
                        </table>
                      </td>
                    </tr>
                    <tr>
                      <td
                        style={{
                          backgroundColor: '#ffffff',
                          border: `1px solid ${COLORS.border}`,
                          borderRadius: 16,
                          padding: '28px 28px 24px',
                          fontSize: 16,
                          lineHeight: '24px',
                        }}
                      >
                        {children}
                      </td>
                    </tr>
                    <tr>
                      <td style={{ padding: '20px 8px 0', fontSize: 13, lineHeight: '20px', color: COLORS.subtle }}>
                        Questions? Write to{' '}
                        <a href={`mailto:${supportEmail}`} style={{ color: COLORS.muted }}>
                          {supportEmail}
                        </a>
                        .
                        {unsubscribeUrl && (
                          <>
                            <br />
                            You get this e-mail because you asked to be told when a character or a photo shoot is ready.{' '}
                            <a href={unsubscribeUrl} style={{ color: COLORS.muted }}>
                              Unsubscribe
                            </a>
                          </>
                        )}
                      </td>
                    </tr>
                  </tbody>
                </table>
              </td>
            </tr>
          </tbody>
        </table>
      </body>
    </html>
  );
}

export function Heading({ children }: { children: ReactNode }) {
  return <h1 style={{ margin: '0 0 12px', fontSize: 22, lineHeight: '30px', fontWeight: 700, color: COLORS.fg }}>{children}</h1>;
}

export function Paragraph({ children, muted }: { children: ReactNode; muted?: boolean }) {
  return <p style={{ margin: '0 0 16px', color: muted ? COLORS.muted : COLORS.fg, fontSize: muted ? 14 : 16 }}>{children}</p>;
}

/** The one call to action: a bulletproof button (a link styled as one). */
export function Button({ href, children }: { href: string; children: ReactNode }) {
  return (
    <p style={{ margin: '8px 0 20px' }}>
      <a
        href={href}
        style={{
          display: 'inline-block',
          backgroundColor: COLORS.brand,
          color: '#ffffff',
          textDecoration: 'none',
          fontWeight: 600,
          fontSize: 16,
          padding: '12px 22px',
          borderRadius: 10,
        }}
      >
        {children}
      </a>
    </p>
  );
}

/** The address under a button, for clients that show no button. */
export function LinkText({ href }: { href: string }) {
  return (
    <p style={{ margin: '0 0 16px', fontSize: 13, lineHeight: '20px', color: COLORS.subtle, wordBreak: 'break-all' }}>
      Or open this link:{' '}
      <a href={href} style={{ color: COLORS.brand }}>
        {href}
      </a>
    </p>
  );
}
