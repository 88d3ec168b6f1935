import { PLANS, planById } from '@common/plans.ts';
import type { SandboxCheckout, SandboxSubscription } from '../providers/payments/sandbox.ts';
import { canSimulateRenewal, longDate, renewalOpensOn } from '../services/sandbox-payments.service.ts';

/** HTML of the sandbox's test payment pages: no script (the CSP forbids inline code), plain forms. */

export const esc = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

const STYLE = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:16px;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827}
.card{width:100%;max-width:440px;background:#fff;border-radius:16px;box-shadow:0 10px 30px rgba(0,0,0,.08);padding:28px}
.test{background:#fef3c7;color:#92400e;border:1px solid #fcd34d;border-radius:8px;padding:8px 12px;font-size:14px;font-weight:600;text-align:center;margin-bottom:20px}
.brand{font-size:14px;color:#6b7280;margin:0 0 4px}
h1{font-size:24px;margin:0 0 16px}
dl{margin:0 0 20px;display:grid;grid-template-columns:auto minmax(0,1fr);gap:8px 16px}
dt{color:#6b7280}dd{margin:0;min-width:0;text-align:right;font-weight:600;overflow-wrap:anywhere}
.total{font-size:28px;font-weight:700;margin:0 0 20px}.total small{font-size:15px;color:#6b7280;font-weight:500}
form{margin:0}
.btn{display:block;width:100%;padding:12px 16px;border-radius:10px;border:1px solid transparent;font-size:16px;font-weight:600;
text-align:center;text-decoration:none;cursor:pointer;margin-top:10px;font-family:inherit}
.primary{background:#4f46e5;color:#fff}.primary:hover{background:#4338ca}
.secondary{background:#fff;color:#374151;border-color:#d1d5db}.secondary:hover{background:#f9fafb}
.danger{background:#fff;color:#b91c1c;border-color:#fca5a5}.danger:hover{background:#fef2f2}
.notice{background:#ecfdf5;color:#065f46;border-radius:8px;padding:8px 12px;margin-bottom:16px;font-size:14px}
.error{background:#fef2f2;color:#991b1b;border-radius:8px;padding:8px 12px;margin-bottom:16px;font-size:14px}
.ref{color:#6b7280;font-size:12px;margin:-8px 0 16px}
h2{font-size:16px;margin:24px 0 4px}
.muted{color:#6b7280;font-size:14px;margin:0}
.card.wide{max-width:860px}
table.list{width:100%;border-collapse:collapse;font-size:14px}
.list th,.list td{text-align:left;padding:8px;border-bottom:1px solid #e5e7eb;vertical-align:top}
.list a{color:#4f46e5}
pre{white-space:pre-wrap;word-break:break-word;background:#f9fafb;border:1px solid #e5e7eb;border-radius:8px;padding:12px;font-size:13px}
`;

/**
 * One page of the sandbox's look. `banner` says what kind of page this is (the test checkout's by default);
 * null shows none (pages a real user reaches, such as unsubscribing); `wide` for lists.
 */
export function layout(title: string, body: string, opts: { banner?: string | null; wide?: boolean } = {}): string {
  const banner = opts.banner === undefined ? 'Test payment page — no real money' : opts.banner;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(title)} · Likeness</title><style>${STYLE}</style></head>
<body><main class="card${opts.wide ? ' wide' : ''}">
${banner ? `<div class="test" role="note">${esc(banner)}</div>` : ''}
<p class="brand">Likeness</p>
${body}
</main></body></html>`;
}

export function checkoutPage(checkout: SandboxCheckout, cancelUrl: string): string {
  const plan = planById(checkout.plan);
  return layout(
    'Test checkout',
    `<h1>Subscribe to ${esc(plan.name)}</h1>
<dl>
<dt>Plan</dt><dd>${esc(plan.name)}</dd>
<dt>Credits</dt><dd>${esc(plan.creditsText)} per month</dd>
<dt>Email</dt><dd>${esc(checkout.email)}</dd>
</dl>
<p class="total">$${plan.priceUsd}<small>/month</small></p>
<form method="post" action="/sandbox/checkout/${esc(checkout.id)}/pay"><button class="btn primary" type="submit">Pay</button></form>
<a class="btn secondary" href="${esc(cancelUrl)}">Cancel</a>`,
  );
}

const NOTICES: Record<string, string> = {
  upgraded: 'Plan upgraded. Only the credits above what this period already granted were added.',
  downgraded: 'Plan changed. The new plan’s credits arrive with the next renewal.',
  renewed: 'Renewal paid. This month’s credits were added.',
  canceled: 'Subscription canceled. Your plan stays active until the end of the paid period.',
  resumed: 'Subscription resumed. It renews automatically again.',
  ended: 'The paid period ended. You are on the Free Plan now.',
};

/** How the portal's own links keep the visitor's access (a hosted SPA's signed `access` query) and lead back. */
export interface PortalLinks {
  /** Appended to every portal address: '' with cookie sessions, `?access=…` for a hosted SPA. */
  query: string;
  returnUrl: string;
}

export function portalPage(customerId: string, sub: SandboxSubscription | undefined, links: PortalLinks, done?: string): string {
  const notice = done && NOTICES[done] ? `<div class="notice" role="status">${esc(NOTICES[done])}</div>` : '';
  const back = `<a class="btn secondary" href="${esc(links.returnUrl)}">Return to Likeness</a>`;
  if (!sub) {
    return layout('Customer portal', `${notice}<h1>Customer portal</h1><p class="muted">You have no active subscription.</p>${back}`);
  }
  const plan = planById(sub.plan);
  const canceling = sub.status === 'scheduled_cancel';
  const action = portalAction(customerId, links);
  const switches = PLANS.filter((p) => p.id !== sub.plan)
    .map(
      (p) => `<form method="post" action="${action('plan')}"><input type="hidden" name="plan" value="${p.id}">
<button class="btn secondary" type="submit">Switch to ${esc(p.name)} ($${p.priceUsd}/month, ${esc(p.creditsText)})</button></form>`,
    )
    .join('\n');
  return layout(
    'Customer portal',
    `${notice}<h1>Customer portal</h1>
<dl>
<dt>Plan</dt><dd>${esc(plan.name)}</dd>
<dt>Price</dt><dd>$${plan.priceUsd}/month</dd>
<dt>Credits</dt><dd>${esc(plan.creditsText)} per month</dd>
<dt>${canceling ? 'Cancels on' : 'Renews on'}</dt><dd>${esc(longDate(sub.periodEnd))}</dd>
</dl>
${
  canceling
    ? `<p class="muted">This subscription is set to cancel: the plan stays active until ${esc(longDate(sub.periodEnd))}, then ends. Nothing more is charged.</p>
<form method="post" action="${action('resume')}"><button class="btn primary" type="submit">Resume subscription</button></form>`
    : ''
}
<h2>Change plan</h2>
<p class="muted">Upgrades apply at once within this period and add only the credits above what it has already granted; downgrades apply from the next renewal.</p>
${switches}
<h2>Billing</h2>
${
  canceling
    ? `<form method="post" action="${action('end')}"><button class="btn secondary" type="submit">Simulate the end of the period</button></form>`
    : canSimulateRenewal(sub)
      ? `<form method="post" action="${action('renew')}"><button class="btn primary" type="submit">Simulate next month’s renewal</button></form>`
      : `<p class="muted">Next month’s renewal has been simulated. The one after it can be simulated from ${esc(renewalOpensOn(sub))}.</p>`
}
${canceling ? '' : `<a class="btn danger" href="${esc(action('cancel'))}">Cancel subscription</a>`}
${back}`,
  );
}

const portalAction = (customerId: string, links: PortalLinks) => (path: string) =>
  `/sandbox/portal/${encodeURIComponent(customerId)}/${path}${links.query}`;

/** 'Cancel subscription' asks first, and says until when the plan stays in force. */
export function cancelConfirmPage(customerId: string, sub: SandboxSubscription | undefined, links: PortalLinks): string {
  const action = portalAction(customerId, links);
  const portal = action('').replace(/\/(\?|$)/, '$1');
  if (!sub || sub.status === 'scheduled_cancel') {
    return layout(
      'Customer portal',
      `<h1>Nothing to cancel</h1><p class="muted">This subscription is not active or is already set to cancel.</p><a class="btn secondary" href="${esc(portal)}">Back to the portal</a>`,
    );
  }
  const plan = planById(sub.plan);
  return layout(
    'Cancel subscription',
    `<h1>Cancel your ${esc(plan.name)} plan?</h1>
<p class="muted">Your plan stays active until ${esc(longDate(sub.periodEnd))}, with the credits you have. After that it ends and nothing more is charged. You can resume it until then.</p>
<form method="post" action="${action('cancel')}"><button class="btn danger" type="submit">Yes, cancel at the end of the period</button></form>
<a class="btn secondary" href="${esc(portal)}">Keep my plan</a>`,
  );
}

/** A page with one message and a way back; `reference` (the request id) lets support find a failure in the logs. */
export function messagePage(title: string, message: string, link: { href: string; label: string }, reference?: string): string {
  const ref = reference ? `<p class="ref">Reference: ${esc(reference)}</p>` : '';
  return layout(
    title,
    `<h1>${esc(title)}</h1><div class="error" role="alert">${esc(message)}</div>${ref}<a class="btn secondary" href="${esc(link.href)}">${esc(link.label)}</a>`,
  );
}
