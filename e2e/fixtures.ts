import { test as base, expect, type Page } from '@playwright/test';
import { randomUUID } from 'node:crypto';

const PORT = Number(process.env.E2E_PORT ?? 4310);
export const ORIGIN = `http://127.0.0.1:${PORT}`;
export const CONTROL = `http://127.0.0.1:${PORT + 100}`;

export interface TestUser {
  email: string;
  password: string;
  name: string;
}

/** Grants (or with a negative amount removes) credits, as an operator would. */
export async function withCredits(user: TestUser, amount: number): Promise<number> {
  const res = await fetch(`${CONTROL}/credits`, { method: 'POST', body: JSON.stringify({ email: user.email, amount }) });
  if (!res.ok) throw new Error(await res.text());
  return (await res.json()).balance;
}

/** Creates a promo code worth `credits`, for `redemptions` accounts, as an operator would; answers the code as stored. */
export async function withPromoCode(code: string, credits: number, redemptions = 1): Promise<string> {
  const res = await fetch(`${CONTROL}/promo`, { method: 'POST', body: JSON.stringify({ code, amount: credits, count: redemptions }) });
  if (!res.ok) throw new Error(await res.text());
  return (await res.json()).code;
}

/** Each photo of the person's character takes at least `ms` longer from now on (a shoot stays under way). */
export async function withSlowPhotos(user: TestUser, ms: number): Promise<void> {
  const res = await fetch(`${CONTROL}/photos/slow`, { method: 'POST', body: JSON.stringify({ email: user.email, amount: ms }) });
  if (!res.ok) throw new Error(await res.text());
}

export function newUser(name = 'Dana Park'): TestUser {
  return { email: `e2e-${randomUUID().slice(0, 8)}@example.com`, password: 'correct-horse-1', name };
}

/**
 * Creates an account through the API (fast) and confirms it with the link the server mailed, as its owner would
 * (sign-up signs nobody in; the link does), leaving the page's browser signed in.
 */
export async function signUp(page: Page, user: TestUser = newUser()): Promise<TestUser> {
  const res = await page.request.post('/api/auth/sign-up/email', {
    data: user,
    headers: { origin: ORIGIN },
  });
  expect(res.ok()).toBeTruthy();
  const [confirmation] = await mailTo(user.email);
  const opened = await page.request.get(linkIn(confirmation, '/api/auth/verify-email'), { maxRedirects: 0 });
  expect(opened.status()).toBe(302);
  return user;
}

/** Fills the sign-up form on the page and sends it: the answer is 'Check your e-mail to continue', whatever the address. */
export async function signUpThroughForm(page: Page, user: TestUser): Promise<void> {
  await page.getByLabel('Full name').fill(user.name);
  await page.getByLabel('Email address').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByRole('heading', { name: 'Check your e-mail to continue' })).toBeVisible();
}

export const isPhone = (page: Page) => (page.viewportSize()?.width ?? 1280) < 768;

export const test = base;
export { expect };

export interface ReceivedMail {
  subject: string;
  text: string;
  html: string;
}

/** Mail the e2e server's SMTP server received for `email`, waiting until `count` have arrived. */
export async function mailTo(email: string, count = 1): Promise<ReceivedMail[]> {
  const until = Date.now() + 20_000;
  for (;;) {
    const res = await fetch(`${CONTROL}/mail`, { method: 'POST', body: JSON.stringify({ email }) });
    if (!res.ok) throw new Error(await res.text());
    const mail = (await res.json()) as ReceivedMail[];
    if (mail.length >= count) return mail;
    if (Date.now() > until) throw new Error(`no mail to ${email} (${mail.length} of ${count})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The first link in a message's text that contains `part`. */
export function linkIn(mail: ReceivedMail, part: string): string {
  const link = mail.text.match(/https?:\/\/[^\s\]]+/g)?.find((l) => l.includes(part));
  if (!link) throw new Error(`no link with ${part} in ${mail.text}`);
  return link;
}
