import type { OutboxMessage } from '../providers/mail/local-outbox.ts';
import { esc, layout } from './sandbox.pages.ts';

/** HTML of the local outbox (/sandbox/mail) and the unsubscribe pages: no script, plain forms. */

const OUTBOX_BANNER = 'Local outbox — nothing here was sent; SMTP_URL is not set';

const when = (iso: string) => new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC';

export function outboxListPage(messages: OutboxMessage[]): string {
  const rows = messages
    .map(
      (m) =>
        `<tr><td>${esc(when(m.sentAt))}</td><td>${esc(m.to)}</td><td><a href="/sandbox/mail/${esc(m.id)}">${esc(m.subject)}</a></td></tr>`,
    )
    .join('\n');
  return layout(
    'Local outbox',
    `<h1>Local outbox</h1>
<p class="muted">Every message this server would have e-mailed, newest first. Set SMTP_URL to send them for real.</p>
${
  messages.length
    ? `<table class="list"><thead><tr><th>Sent</th><th>To</th><th>Subject</th></tr></thead><tbody>${rows}</tbody></table>`
    : '<p class="muted" style="margin-top:16px">No mail yet.</p>'
}`,
    { banner: OUTBOX_BANNER, wide: true },
  );
}

export function outboxMessagePage(message: OutboxMessage, raw: string): string {
  const headers = Object.entries(message.headers)
    .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`)
    .join('');
  return layout(
    message.subject,
    `<h1>${esc(message.subject)}</h1>
<dl>
<dt>From</dt><dd>${esc(message.from)}</dd>
<dt>To</dt><dd>${esc(message.to)}</dd>
<dt>Sent</dt><dd>${esc(when(message.sentAt))}</dd>
${headers}
</dl>
<a class="btn primary" href="/sandbox/mail/${esc(message.id)}/html">Open the message</a>
<h2>Plain text</h2>
<pre>${esc(message.text)}</pre>
<details><summary class="muted">As sent (RFC 5322)</summary><pre>${esc(raw)}</pre></details>
<a class="btn secondary" href="/sandbox/mail">All messages</a>`,
    { banner: OUTBOX_BANNER, wide: true },
  );
}

export function outboxRefusedPage(reason: string): string {
  return layout('No local outbox', `<h1>No local outbox</h1><div class="error" role="alert">${esc(reason)}</div>`, { banner: null });
}

const unsubscribeForm = (action: string, label: string, value: string) =>
  `<form method="post" action="${esc(action)}"><input type="hidden" name="action" value="${esc(value)}"><button class="btn secondary" type="submit">${esc(label)}</button></form>`;

/** What the link shows until the person confirms: opening it (or a scanner fetching it) changes nothing. */
export function confirmUnsubscribePage(action: string, maskedEmail: string | null): string {
  return layout(
    'Unsubscribe',
    `<h1>Stop notification e&#8209;mails?</h1>
<p>We e-mail ${maskedEmail ? `<strong>${esc(maskedEmail)}</strong>` : 'you'} when a character or a photo shoot is ready.</p>
<p class="muted">Mail about your account (such as a password reset) still reaches you.</p>
<form method="post" action="${esc(action)}"><input type="hidden" name="action" value="unsubscribe"><button class="btn primary" type="submit">Unsubscribe</button></form>
<a class="btn secondary" href="/app/profile">Open your profile</a>`,
    { banner: null },
  );
}

export function unsubscribedPage(action: string): string {
  return layout(
    'Unsubscribed',
    `<h1>You are unsubscribed</h1>
<div class="notice" role="status">We will no longer e-mail you when a character or a photo shoot is ready.</div>
<p class="muted">Mail about your account (such as a password reset) still reaches you. You can turn notifications back on here or in your profile.</p>
${unsubscribeForm(action, 'Subscribe again', 'subscribe')}
<a class="btn secondary" href="/app/profile">Open your profile</a>`,
    { banner: null },
  );
}

export function resubscribedPage(action: string): string {
  return layout(
    'Subscribed',
    `<h1>Notifications are on</h1>
<div class="notice" role="status">We will e-mail you when a character or a photo shoot is ready.</div>
${unsubscribeForm(action, 'Unsubscribe', 'unsubscribe')}
<a class="btn secondary" href="/app/profile">Open your profile</a>`,
    { banner: null },
  );
}

export function badUnsubscribeLinkPage(): string {
  return layout(
    'Link not valid',
    `<h1>This unsubscribe link is not valid</h1>
<div class="error" role="alert">Nothing was changed. Use the link from the e-mail as it is, or turn notifications off in your profile.</div>
<a class="btn secondary" href="/app/profile">Open your profile</a>`,
    { banner: null },
  );
}
